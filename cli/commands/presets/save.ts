/** `stockscreen presets save <name>`: save the screen the flags describe under a name. */
import type { Command } from 'commander';
import { presetRecord } from '../../services/screening/preset-rows.js';
import { savePreset } from '../../services/screening/presets.js';
import { buildScreenBody } from '../../services/screening/screen-flags.js';
import type { CliContext } from '../context.js';
import { addScreenOptions, screenFlags } from '../screen/screen-options.js';
import { action, examples } from '../shared.js';

/** Add `save` to the `presets` group. */
export function register(parent: Command, ctx: CliContext): void {
  const cmd = parent
    .command('save')
    .description('Save a screen as a preset: the same flags as `stockscreen screen` (checked here, then by the server)')
    .argument('<name>', 'preset name (unique among your presets)');
  addScreenOptions(cmd, false)
    .option('--description <text>', 'what the preset is for')
    .addHelpText(
      'after',
      examples([
        "stockscreen presets save cheap-quality --where 'per < 12 and roe > 12' --filter debt_ratio=..100 --sort roe:desc",
        'stockscreen presets save kosdaq-momentum --market KOSDAQ --filter return_3m=20.. --description "3-month winners"',
        'stockscreen presets run cheap-quality',
      ]),
    )
    .action(
      action(ctx, async (session, c) => {
        const [name] = c.processedArgs as [string];
        const { description } = c.opts<{ description?: string }>();
        const res = await savePreset(session, { name, description, query: buildScreenBody(screenFlags(c)) });
        session.out.record(res.body, presetRecord(res.data));
        session.out.info(`saved preset "${res.data.name}" (${res.data.id})`);
      }),
    );
}
