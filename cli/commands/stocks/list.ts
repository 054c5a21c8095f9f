/** `stockscreen stocks list`: stocks by market, sector or name, one page at a time. */
import type { Command } from 'commander';
import type { PageMeta } from '../../../daemon/contract/envelope.js';
import { pageNote, printMarketTable } from '../../services/output/print-table.js';
import { STOCK_LIST_RIGHT, stockListTable } from '../../services/market/stock-rows.js';
import { listStocks, type StockListOptions } from '../../services/market/stocks.js';
import { sectorArg } from '../../services/market/sectors.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** Add `list` to the `stocks` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('list')
    .description('List stocks (piped: a header row, then CODE NAME MARKET SECTOR CLOSE CHANGE_PERCENT MARKET_CAP VOLUME with raw numbers)')
    .option('--market <market>', 'KOSPI, KOSDAQ or ALL')
    .option('--sector <name>', 'only this sector, Korean or English name (see `stockscreen stocks sectors`)', sectorArg)
    .option('--q <text>', 'code or Korean/English name contains this text')
    .option('--sort <field[:asc|desc]>', 'code, name, market_cap, volume, change_percent, trading_value or close (default market_cap:desc)')
    .option('--limit <n>', 'stocks per page, at most 500', intArg(1, 500), 50)
    .option('--page <n>', 'page number, from 1', intArg(1, 1_000_000), 1)
    .addHelpText('after', examples(['stockscreen stocks list --market KOSPI --limit 20', 'stockscreen stocks list --q 삼성 --sort change_percent:desc', 'stockscreen stocks list --limit 500 | cut -f1,7']))
    .action(
      action(ctx, async (session, cmd) => {
        const res = await listStocks(session, cmd.opts<StockListOptions>());
        await printMarketTable(session, res.body, stockListTable(res.data, session.out.mode === 'tty'), STOCK_LIST_RIGHT);
        pageNote(session, (res.body as { meta?: Partial<PageMeta> }).meta, 'stocks');
      }),
    );
}
