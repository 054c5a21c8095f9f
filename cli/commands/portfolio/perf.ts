/** `stockscreen portfolio perf`: returns, risk and allocation, with a value chart on a terminal. */
import type { Command } from 'commander';
import { getPerformance } from '../../services/portfolio/portfolio.js';
import { PERFORMANCE_COLUMNS, performanceRecord } from '../../services/portfolio/portfolio-rows.js';
import { tsvLine } from '../../services/output/output.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `perf` to the `portfolio` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('perf')
    .description('Portfolio performance: value, P&L, returns (1W–1Y, YTD), volatility, drawdown, Sharpe, beta vs KOSPI, allocation')
    .option('--series', 'include the daily value series (piped: rows of date, value, return_index instead of the figures)')
    .addHelpText(
      'after',
      `\nOutput:\n  On a terminal: the figures, a chart of the daily value, allocation by sector, best and worst holdings.\n  Piped: a header row, then one row:\n    ${PERFORMANCE_COLUMNS.join(', ')}\n  Piped with --series: a header row DATE VALUE RETURN_INDEX, then one row a day\n` +
        examples(['stockscreen portfolio perf', 'stockscreen portfolio perf --json | jq .data.returns', 'stockscreen portfolio perf --series > value.tsv']),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const { series = false } = cmd.opts<{ series?: boolean }>();
        const tty = session.out.mode === 'tty';
        // The terminal view always draws the chart, so it always asks for the series.
        const res = await getPerformance(session, series || tty);
        if (tty) {
          const { renderPerformance } = await import('../../ui/market-render.js');
          session.io.stdout.write(renderPerformance(res.data, { color: session.out.color, columns: session.io.stdout.columns || 100 }));
        } else if (session.out.mode === 'plain') {
          // Piped rows come with their header row, as every piped table does.
          const rows = series ? (res.data.series ?? []).map((d) => [d.date, d.value, d.return_index]) : [performanceRecord(res.data).fields.map(([, value]) => value)];
          const header = series ? ['DATE', 'VALUE', 'RETURN_INDEX'] : PERFORMANCE_COLUMNS.map((c) => c.toUpperCase());
          for (const row of [header, ...rows]) session.io.stdout.write(tsvLine(row) + '\n');
        } else session.out.record(res.body, performanceRecord(res.data));
      }),
    );
}
