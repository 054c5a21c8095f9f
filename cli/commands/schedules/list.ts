/** `stockscreen schedules list`: your digest schedules with their last and next run. */
import type { Command } from 'commander';
import { listSchedules, schedulesTable } from '../../services/notify/deliveries.js';
import { printTable } from '../../services/output/print-table.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `list` to the `schedules` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('list')
    .description('List your digest schedules (piped: a header row, then rows of id, preset, at, channels, last run, members, entered, left, next run)')
    .addHelpText('after', examples(['stockscreen schedules list', 'stockscreen schedules list --json']))
    .action(
      action(ctx, async (session) => {
        const res = await listSchedules(session);
        printTable(session, res.body, schedulesTable(res.data, session.out.mode === 'tty'));
      }),
    );
}
