/** `stockscreen stocks price <code>`: the latest price (live when the feed runs, else the last close). */
import type { Command } from 'commander';
import { priceRecord } from '../../services/market/stock-rows.js';
import { getPrice } from '../../services/market/stocks.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `price` to the `stocks` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('price')
    .description('Show the latest price (piped: one TSV row code, name, price, change, change_percent, open, high, low, volume, trading_value, as_of, source, halted)')
    .argument('<code>', '6-character KRX code, e.g. 005930')
    .addHelpText('after', examples(['stockscreen stocks price 005930', 'stockscreen stocks price 005930 --json | jq .data.price', 'stockscreen stocks price 005930 | cut -f3']))
    .action(
      action(ctx, async (session, cmd) => {
        const [code] = cmd.processedArgs as [string];
        const res = await getPrice(session, code);
        session.out.record(res.body, priceRecord(res.data, session.out.mode === 'tty'));
      }),
    );
}
