/** `stockscreen presets list`: your saved screens. */
import type { Command } from 'commander';
import { presetsTable } from '../../services/screening/preset-rows.js';
import { listPresets } from '../../services/screening/presets.js';
import { printTable } from '../../services/output/print-table.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `list` to the `presets` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('list')
    .description('List your saved presets (piped: a header row, then ID NAME DESCRIPTION QUERY UPDATED)')
    .addHelpText('after', examples(['stockscreen presets list', 'stockscreen presets list --json', 'stockscreen presets list | cut -f2 | tail -n +2     # names']))
    .action(
      action(ctx, async (session) => {
        const res = await listPresets(session);
        printTable(session, res.body, presetsTable(res.data));
      }),
    );
}
