/** `stockscreen screen`: screen the market with filters, an expression, a preset or a template. */
import type { Command } from 'commander';
import { printScreen, screenTarget } from '../../services/screening/screen-run.js';
import { withAsOf } from '../../services/screening/screen.js';
import { dateArg } from '../flag-parsers.js';
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
        "stockscreen screen --fields rsi_14 --sort rsi_14:asc | awk -F'\\t' 'NR > 1 && $8 < 30'",
      ]),
    )
    .action(
      action(ctx, async (session, c) => {
        const flags = { ...screenFlags(c), ...c.opts<{ preset?: string; template?: string; csv?: boolean; asOf?: string }>() };
        await printScreen(session, withAsOf(await screenTarget(session, flags), flags.asOf), flags.csv === true);
      }),
    );
}
