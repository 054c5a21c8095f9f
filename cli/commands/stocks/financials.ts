/** `stockscreen stocks financials <code>`: quarterly statements with derived ratios. */
import type { Command } from 'commander';
import { printMarketTable } from '../../services/output/print-table.js';
import { FINANCIALS_RIGHT, financialsTable } from '../../services/market/stock-rows.js';
import { getFinancials } from '../../services/market/stocks.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** Add `financials` to the `stocks` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('financials')
    .description('Quarterly statements, newest first (piped: a header row, then PERIOD REVENUE OPERATING_PROFIT NET_PROFIT TOTAL_ASSETS EQUITY OPERATING_MARGIN NET_MARGIN DEBT_RATIO in KRW and %)')
    .argument('<code>', '6-character KRX code, e.g. 005930')
    .option('--limit <n>', 'quarters (default 4)', intArg(1, 40))
    .addHelpText('after', examples(['stockscreen stocks financials 005930', 'stockscreen stocks financials 005930 --limit 8', 'stockscreen stocks financials 005930 --json | jq ".data[0]"']))
    .action(
      action(ctx, async (session, cmd) => {
        const [code] = cmd.processedArgs as [string];
        const { limit } = cmd.opts<{ limit?: number }>();
        const res = await getFinancials(session, code, limit);
        await printMarketTable(session, res.body, financialsTable(res.data, session.out.mode === 'tty'), FINANCIALS_RIGHT);
      }),
    );
}
