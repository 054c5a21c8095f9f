/** `stockscreen stocks history <code>`: OHLCV bars, with a price chart on a terminal. */
import { Option, type Command } from 'commander';
import { chartModel } from '../../services/output/chart.js';
import { printMarketTable, printTable } from '../../services/output/print-table.js';
import { HISTORY_RIGHT, historyTable } from '../../services/market/stock-rows.js';
import { HISTORY_INTERVALS } from '../../../daemon/contract/stocks.js';
import { getHistory, type HistoryQuery } from '../../services/market/stocks.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** Bars listed under the chart on a terminal (all of them when piped or with --json). */
const TTY_ROWS = 10;

/** Add `history` to the `stocks` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('history')
    .description(`Price history, oldest first. On a terminal: a chart of closes and the last ${TTY_ROWS} bars; piped: a header row, then DATE OPEN HIGH LOW CLOSE VOLUME TRADING_VALUE for every bar`)
    .argument('<code>', '6-character KRX code, e.g. 005930')
    .option('--from <YYYY-MM-DD>', 'first day')
    .option('--to <YYYY-MM-DD>', 'last day')
    .addOption(new Option('--interval <interval>', 'bar size').choices(HISTORY_INTERVALS).default('day'))
    .option('--limit <n>', 'only the most recent n bars', intArg(1, 5000))
    .addHelpText('after', examples(['stockscreen stocks history 005930', 'stockscreen stocks history 005930 --interval week --limit 52', 'stockscreen stocks history 005930 --from 2026-01-01 | cut -f1,5']))
    .action(
      action(ctx, async (session, cmd) => {
        const [code] = cmd.processedArgs as [string];
        const res = await getHistory(session, code, cmd.opts<HistoryQuery>());
        const human = session.out.mode === 'tty';
        if (!human) return printTable(session, res.body, historyTable(res.data, false));
        const columns = session.io.stdout.columns || 100;
        const model = chartModel(res.data.map((b) => ({ date: b.trade_date, value: b.close_price })), Math.max(10, columns - 16), 10);
        if (model) {
          const { renderPriceChart } = await import('../../ui/stock-views.js');
          session.io.stdout.write(renderPriceChart(model, { color: session.out.color, columns }) + '\n\n');
        }
        await printMarketTable(session, res.body, historyTable(res.data.slice(-TTY_ROWS), true), HISTORY_RIGHT);
        if (res.data.length > TTY_ROWS) session.out.info(`last ${TTY_ROWS} of ${res.data.length} bars (pipe or --json for all)`);
      }),
    );
}
