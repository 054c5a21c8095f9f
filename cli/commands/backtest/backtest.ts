/** `stockscreen backtest`: how a screen would have done, rebalanced through time. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { equityChart, equityCsv, followBacktest, isActive, progressText, startBacktest, summaryTable, tradesCsv, type BacktestRun } from '../../services/screening/backtest.js';
import { usageError } from '../../services/session/errors.js';
import { printTable } from '../../services/output/print-table.js';
import { getPreset } from '../../services/screening/presets.js';
import { buildScreenBody, hasQueryFlags } from '../../services/screening/screen-flags.js';
import type { Session } from '../../services/session/session.js';
import type { ApiResponse } from '../../services/transport/api-client.js';
import type { CliContext } from '../context.js';
import { dateArg } from '../flag-parsers.js';
import { action, examples } from '../shared.js';
import { addScreenOptions, screenFlags } from '../screen/screen-options.js';

interface BacktestFlags {
  template?: string;
  preset?: string;
  from?: string;
  to?: string;
  rebalance: string;
  top: number | 'all';
  weighting: string;
  feeBps?: number;
  taxBps?: number;
  slippageBps?: number;
  benchmark: string;
  capital?: number;
  csv?: 'equity' | 'trades';
}

function topArg(value: string): number | 'all' {
  if (value === 'all') return 'all';
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 500) throw new InvalidArgumentError(`"${value}" is not an integer 1–500 or "all"`);
  return n;
}

function bpsArg(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1000) throw new InvalidArgumentError(`"${value}" is not a number of basis points 0–1000`);
  return n;
}

/** The request body of the flags. @throws CliError USAGE for conflicting screen sources */
async function requestBody(session: Session, cmd: Command, f: BacktestFlags): Promise<Record<string, unknown>> {
  const screen = screenFlags(cmd);
  const sources = [f.template !== undefined, f.preset !== undefined, hasQueryFlags(screen)].filter(Boolean).length;
  if (sources > 1) throw usageError('give one of --template, --preset or screen flags (--where, --filter, …)');
  const body: Record<string, unknown> = {
    from: f.from, rebalance: f.rebalance, top: f.top, weighting: f.weighting, benchmark: f.benchmark,
    ...(f.to ? { to: f.to } : {}), ...(f.feeBps !== undefined ? { fee_bps: f.feeBps } : {}), ...(f.taxBps !== undefined ? { tax_bps: f.taxBps } : {}),
    ...(f.slippageBps !== undefined ? { slippage_bps: f.slippageBps } : {}), ...(f.capital !== undefined ? { capital: f.capital } : {}),
  };
  if (f.template !== undefined) return { ...body, template: f.template, ...(screen.market ? { market: screen.market.toUpperCase() } : {}) };
  if (f.preset !== undefined) return { ...body, preset_id: (await getPreset(session, f.preset)).data.id };
  const query = buildScreenBody(screen);
  delete query.per_page;
  delete query.page;
  return { ...body, query };
}

/** Progress on stderr: a redrawn line on a terminal (queued, then the bar), a line per change otherwise. */
export function progressSink(session: Session): (run: BacktestRun) => void {
  const err = session.io.stderr;
  let last = '';
  return (run) => {
    const text = progressText(run);
    if (text === last) return;
    const padded = text.padEnd(last.length);
    last = text;
    err.write(err.isTTY ? `\r${padded}${isActive(run) ? '' : '\n'}` : `${text}\n`);
  };
}

/** A completed run: CSV, the API body (--json), or the summary table and chart. */
export function printResult(session: Session, res: ApiResponse<BacktestRun>, csv: BacktestFlags['csv']): void {
  const run = res.data;
  const r = run.result!;
  if (csv) return void session.io.stdout.write(csv === 'equity' ? equityCsv(r) : tradesCsv(r));
  if (session.out.mode === 'json') return session.out.json(res.body);
  if (r.message) session.out.info(r.message);
  printTable(session, run, summaryTable(r));
  if (session.out.mode === 'tty' && r.curve.length > 1) {
    const width = Math.max(20, Math.min(100, (session.io.stdout.columns ?? 80) - 4));
    session.out.line(['', 'equity █ vs benchmark · (same scale)', ...equityChart(r, width, 12).map((row) => `  ${row}`), `  ${r.from}${' '.repeat(Math.max(1, width - 20))}${r.to}`].join('\n'));
  }
}

/** Add `backtest` to `parent`. */
export function register(parent: Command, ctx: CliContext): void {
  const cmd = parent
    .command('backtest')
    .description('Backtest a screen: at each rebalance date screen the market as known then, trade the top N at the next open (fees, the 0.20% sell tax, halts and price limits included), and compare with the index. Runs of more than 6 rebalance dates wait in a queue for a worker (shown as queued, then a progress bar); `backtest list|show|cancel` manage your runs');
  addScreenOptions(cmd, false)
    .option('--template <id>', 'backtest a predefined screen (see `stockscreen screen templates`)')
    .option('--preset <name|id>', 'backtest one of your saved presets')
    .option('--from <date>', 'first rebalance date (required)', dateArg)
    .option('--to <date>', 'last day (default: the last loaded date)', dateArg)
    .addOption(new Option('--rebalance <period>', 'how often to rebalance').choices(['weekly', 'monthly', 'quarterly']).default('monthly'))
    .option('--top <n|all>', 'hold the first N by the screen\'s sort, or all members', topArg, 20)
    .addOption(new Option('--weighting <how>', 'split the money').choices(['equal', 'market_cap']).default('equal'))
    .option('--fee-bps <bps>', 'brokerage fee per side in basis points (default 1.5)', bpsArg)
    .option('--tax-bps <bps>', 'tax on sells in basis points (default 20: the KRX transaction tax)', bpsArg)
    .option('--slippage-bps <bps>', 'slippage per fill in basis points (default 0)', bpsArg)
    .addOption(new Option('--benchmark <index>', 'the index to compare with').choices(['KOSPI', 'KOSDAQ']).default('KOSPI'))
    .option('--capital <krw>', 'starting money in KRW (default 100,000,000)', (v) => Number(v))
    .addOption(new Option('--csv <what>', 'print the equity curve or the trades as CSV').choices(['equity', 'trades']))
    .addHelpText('after', examples([
      'stockscreen backtest --template value --from 2025-01-01 --rebalance monthly --top 20',
      "stockscreen backtest --where 'per < 10 and roe > 15' --sort roe:desc --from 2024-06-01 --rebalance quarterly --weighting market_cap",
      'stockscreen backtest --preset my-value --from 2025-01-01 --rebalance weekly --slippage-bps 10 --benchmark KOSDAQ',
      'stockscreen backtest --template value --from 2025-01-01 --csv equity > equity.csv',
      'stockscreen backtest --template value --from 2025-01-01 --json | jq .data.result.stats',
      'stockscreen backtest list                 # your runs: queued, running (done/total), completed, failed, cancelled',
      'stockscreen backtest show <id> --follow   # follow a run started elsewhere; cancel one with: stockscreen backtest cancel <id>',
    ]))
    .action(
      action(ctx, async (session, c) => {
        const flags = c.opts<BacktestFlags>();
        // Checked here, not by commander, so STOCKSCREEN_FROM counts too (env-options.ts).
        if (!flags.from) throw usageError('--from is required', 'e.g. --from 2025-01-01 (or STOCKSCREEN_FROM)');
        const run = await startBacktest(session, await requestBody(session, c, flags));
        const done = await followBacktest(session, run, progressSink(session));
        printResult(session, done, flags.csv);
      }),
    );
}
