/** `stockscreen portfolio show`: holdings valued at current prices, with totals. */
import type { Command } from 'commander';
import { COLOR_LEGEND } from '../../services/output/market-format.js';
import { getPortfolio } from '../../services/portfolio/portfolio.js';
import { HOLDING_COLUMNS, holdingTsv } from '../../services/portfolio/portfolio-rows.js';
import { printTable } from '../../services/output/print-table.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `show` to the `portfolio` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('show')
    .description('Your holdings valued at current prices (live when the feed runs, else the last close), with totals')
    .addHelpText(
      'after',
      `\nOutput:\n  On a terminal: a table with a totals row. ${COLOR_LEGEND}\n  Piped: a header row, then one row per holding (totals: see --json):\n    ${HOLDING_COLUMNS.join(', ')}\n` +
        examples(['stockscreen portfolio show', 'stockscreen portfolio show --json | jq .data.totals', "stockscreen portfolio show | sort -t$'\\t' -k9 -g"]),
    )
    .action(
      action(ctx, async (session) => {
        const res = await getPortfolio(session);
        if (session.out.mode !== 'tty') return printTable(session, res.body, { headers: HOLDING_COLUMNS.map((c) => c.toUpperCase()), rows: res.data.holdings.map(holdingTsv) });
        const { renderPortfolio } = await import('../../ui/market-render.js');
        session.io.stdout.write(renderPortfolio(res.data, { color: session.out.color, columns: session.io.stdout.columns || 100 }));
      }),
    );
}
