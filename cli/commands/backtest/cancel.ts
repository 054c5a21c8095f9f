/** `stockscreen backtest cancel <id>`: stop a queued or running backtest. */
import type { Command } from 'commander';
import { printTable } from '../../services/output/print-table.js';
import { cancelBacktest, runsTable } from '../../services/screening/backtest.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `cancel` to the `backtest` command. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('cancel')
    .description('Cancel one of your backtests: a queued one leaves the queue, a running one stops at its next rebalance date (an ended one: error)')
    .argument('<id>', 'run id, as printed by `stockscreen backtest` or `backtest list`')
    .addHelpText('after', examples(['stockscreen backtest cancel 8fab317e-…', 'stockscreen backtest list | awk -F\'\\t\' \'$2 == "queued" {print $1}\' | xargs -n1 stockscreen backtest cancel']))
    .action(
      action(ctx, async (session, cmd) => {
        const [id] = cmd.processedArgs as [string];
        const res = await cancelBacktest(session, id);
        printTable(session, res.body, runsTable([res.data]));
      }),
    );
}
