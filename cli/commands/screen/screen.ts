/** `stockscreen screen`: screen the market with filters, an expression, a preset or a template. */
import type { Command } from 'commander';
import { usageError } from '../../services/session/errors.js';
import { interruptSignal } from '../../services/session/interrupt.js';
import { runLiveScreen } from '../../services/realtime/live-screen.js';
import { printScreen, screenTarget } from '../../services/screening/screen-run.js';
import { withAsOf } from '../../services/screening/screen.js';
import { MAX_LIVE_SCREEN_DWELL_S } from '../../../daemon/contract/ws.js';
import { dateArg, durationArg, positiveIntArg, secondsArg } from '../flag-parsers.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';
import { addScreenOptions, screenFlags } from './screen-options.js';

/** Add `screen` to `parent` (its `fields` and `templates` subcommands are registered under the `screen` group). */
export function register(parent: Command, ctx: CliContext): void {
  const cmd = parent
    .command('screen')
    .description('Screen stocks on the latest indicators. On a terminal: a table with units; piped: a header row of field ids, then tab-separated raw values; totals and query time on stderr');
  addScreenOptions(cmd)
    .option('--preset <name|id>', 'run one of your saved presets (with --market/--sort/--limit/--page/--fields overrides)')
    .option('--template <id>', 'run a predefined screen (see `stockscreen screen templates`)')
    .option('--csv', 'every match (not one page) as CSV from the server, for spreadsheets')
    .option('--live', 'keep the screen live (WebSocket): stocks entering (편입) and leaving (이탈) as the market trades; --json: NDJSON events')
    .option('--count <n>', 'with --live: stop after n messages', positiveIntArg)
    .option('--duration <time>', 'with --live: stop after this long, e.g. 30s, 5m', durationArg(1, 7 * 86_400_000))
    .option('--dwell <time>', 'with --live: report a stock entering (leaving) only once it has stayed in (out) this long, so one hovering at a top-N cut is not reported at all; e.g. 30s, 5m (default 0: every change)', secondsArg(MAX_LIVE_SCREEN_DWELL_S))
    .option('--as-of <date>', 'screen the market as known on this date: bars up to it, statements disclosed by it (the last trading day on or before it is used)', dateArg)
    .addHelpText(
      'after',
      examples([
        "stockscreen screen --market KOSPI --where 'per < 10 and roe > 15' --sort roe:desc --limit 20",
        'stockscreen screen --filter pbr=..1.5 --filter roe=15.. --filter market_cap=1000억.. --exclude administrative,spac',
        "stockscreen screen --where 'pct_rank(roe) by sector >= 90 and per > 0' --fields roe,per",
        "stockscreen screen --column ey='1/per*100' --score roe=0.4,-per=0.3,return_3m=0.3 --sort score:desc --limit 20",
        "stockscreen screen --score=-pbr=1,roe=1 --score-by sector --where 'score >= 80' --market KOSPI",
        'stockscreen screen --template value --market KOSDAQ',
        'stockscreen screen --as-of 2025-06-30 --where \'per < 10 and roe > 15\' --limit 20',
        'stockscreen screen --preset my-value --fields per,pbr,rsi_14 --csv > value.csv',
        'stockscreen screen --live --sort change_percent:desc --limit 20',
        'stockscreen screen --live --sort change_percent:desc --limit 20 --dwell 30s',
        "stockscreen screen --live --template momentum --market KOSDAQ --json | jq -c 'select(.type == \"screen_update\")'",
        "stockscreen screen --live --where 'change_percent > 5 and volume > 1000000' --duration 10m > entries.ndjson",
        "stockscreen screen --fields rsi_14 --sort rsi_14:asc | awk -F'\\t' 'NR > 1 && $8 < 30'",
      ]),
    )
    .action(
      action(ctx, async (session, c) => {
        const opts = c.opts<{ preset?: string; template?: string; csv?: boolean; asOf?: string; live?: boolean; count?: number; duration?: number; dwell?: number }>();
        const flags = { ...screenFlags(c), preset: opts.preset, template: opts.template, csv: opts.csv };
        if (!opts.live && (opts.count !== undefined || opts.duration !== undefined || opts.dwell !== undefined)) throw usageError('--count, --duration and --dwell apply to --live only');
        if (opts.live) {
          if (opts.asOf !== undefined) throw usageError('--as-of and --live do not go together: a live screen follows today\'s market');
          const interrupt = interruptSignal(session.io);
          try {
            await runLiveScreen(session, flags, { count: opts.count, durationMs: opts.duration }, interrupt.signal, { dwellS: opts.dwell });
          } finally {
            interrupt.release();
          }
          return;
        }
        await printScreen(session, withAsOf(await screenTarget(session, flags), opts.asOf), flags.csv === true);
      }),
    );
}
