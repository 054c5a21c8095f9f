/** `stockscreen stocks show <code>`: the stock record and its key indicators. */
import type { Command } from 'commander';
import { fieldUnits } from '../../services/screening/screen.js';
import { stockRecord } from '../../services/market/stock-rows.js';
import { getStock } from '../../services/market/stocks.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `show` to the `stocks` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('show')
    .description('Show a stock and its latest key indicators (--all: every indicator). Piped: one TSV row in the order of the terminal view')
    .argument('<code>', '6-character KRX code, e.g. 005930')
    .option('--all', 'every indicator the stock has, not only the key ones')
    .addHelpText('after', examples(['stockscreen stocks show 005930', 'stockscreen stocks show 005930 --all', 'stockscreen stocks show 005930 --json | jq .data.indicators.per']))
    .action(
      action(ctx, async (session, cmd) => {
        const [code] = cmd.processedArgs as [string];
        const { all } = cmd.opts<{ all?: boolean }>();
        const res = await getStock(session, code);
        const human = session.out.mode === 'tty';
        const units = all ? (human ? await fieldUnits(session) : new Map<string, string>()) : undefined;
        session.out.record(res.body, stockRecord(res.data, human, units));
      }),
    );
}
