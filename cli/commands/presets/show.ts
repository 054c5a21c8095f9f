/** `stockscreen presets show <name|id>`: one preset with its saved query. */
import type { Command } from 'commander';
import { presetRecord } from '../../services/screening/preset-rows.js';
import { getPreset } from '../../services/screening/presets.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `show` to the `presets` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('show')
    .description('Show a preset (piped: one TSV row id, name, description, query, created, updated)')
    .argument('<preset>', 'name or id')
    .addHelpText('after', examples(['stockscreen presets show cheap-quality', 'stockscreen presets show cheap-quality --json | jq .data.query']))
    .action(
      action(ctx, async (session, cmd) => {
        const [ref] = cmd.processedArgs as [string];
        const res = await getPreset(session, ref);
        session.out.record(res.body, presetRecord(res.data));
      }),
    );
}
