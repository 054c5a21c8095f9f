/** `stockscreen backtest list`: your backtest runs, newest first. */
import type { Command } from 'commander';
import { printTable } from '../../services/output/print-table.js';
import { listBacktests, runsTable } from '../../services/screening/backtest.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** Add `list` to the `backtest` command. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('list')
    .description('List your backtest runs, newest first (piped: a header row, then id status progress screen from rebalance created finished error)')
    .option('--limit <n>', 'how many runs', intArg(1, 100), 20)
    .addHelpText('after', examples([
      'stockscreen backtest list',
      'stockscreen backtest list --limit 5 --json | jq ".data[] | {id, status, done, total}"',
      "stockscreen backtest list | awk -F'\\t' '$2 == \"queued\" || $2 == \"running\"'",
    ]))
    .action(
      action(ctx, async (session, cmd) => {
        const { limit } = cmd.opts<{ limit: number }>();
        const res = await listBacktests(session, limit);
        printTable(session, res.body, runsTable(res.data));
      }),
    );
}
