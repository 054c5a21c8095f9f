/** `stockscreen stocks sectors`: the sector names, Korean and English (either works with --sector). */
import type { Command } from 'commander';
import { printTable } from '../../services/output/print-table.js';
import { sectorsTable } from '../../services/market/sectors.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `sectors` to the `stocks` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('sectors')
    .description('List the sector names (Korean as stored, and English); --sector accepts either (piped: a header row, then SECTOR ENGLISH)')
    .addHelpText('after', examples(['stockscreen stocks sectors', 'stockscreen watch --sector Semiconductors', 'stockscreen stocks list --sector 은행']))
    .action(
      action(ctx, async (session) => {
        const table = sectorsTable();
        printTable(session, { status: 'success', data: table.rows.map(([ko, en]) => ({ sector: ko, english: en })) }, table);
      }),
    );
}
