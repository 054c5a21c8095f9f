/** `stockscreen backtest show <id>`: one of your runs — its progress, or its result. */
import { Option, type Command } from 'commander';
import { followBacktest, getBacktest, isActive, runsTable } from '../../services/screening/backtest.js';
import { printTable } from '../../services/output/print-table.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';
import { printResult, progressSink } from './backtest.js';

/** Add `show` to the `backtest` command. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('show')
    .description('Show one of your backtests: the summary and chart once completed, else its status and progress (piped: one TSV row as `backtest list`)')
    .argument('<id>', 'run id, as printed by `stockscreen backtest` or `backtest list`')
    .option('--follow', 'while queued or running, follow it with a progress bar, then print the result; exit 1 if it fails')
    .addOption(new Option('--csv <what>', 'print the equity curve or the trades as CSV (a completed run)').choices(['equity', 'trades']))
    .addHelpText('after', examples([
      'stockscreen backtest show 8fab317e-…',
      'stockscreen backtest show 8fab317e-… --follow',
      'stockscreen backtest show 8fab317e-… --csv trades > trades.csv',
      'stockscreen backtest show 8fab317e-… --json | jq .data.result.stats',
    ]))
    .action(
      action(ctx, async (session, cmd) => {
        const [id] = cmd.processedArgs as [string];
        // With globals: commander gives `--csv` after the subcommand to `backtest`, which has one too.
        const opts = cmd.optsWithGlobals<{ follow?: boolean; csv?: 'equity' | 'trades' }>();
        let res = await getBacktest(session, id);
        if (opts.follow && isActive(res.data)) res = await followBacktest(session, res, progressSink(session));
        if (res.data.status === 'completed' && res.data.result) return printResult(session, res, opts.csv);
        if (session.out.mode === 'json') return session.out.json(res.body);
        printTable(session, res.body, runsTable([res.data]));
      }),
    );
}
