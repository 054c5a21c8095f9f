/** `stockscreen portfolio add <code> <quantity> <average_price>`: add a lot (merged into the stock's holding unless --separate-lot). */
import { Argument, type Command } from 'commander';
import { num } from '../../services/output/market-format.js';
import { addHolding } from '../../services/portfolio/portfolio.js';
import type { CliContext } from '../context.js';
import { codeArg, dateArg, numberArg, positiveIntArg } from '../flag-parsers.js';
import { action, examples } from '../shared.js';

const FIELDS = ['id', 'code', 'quantity', 'average_price', 'acquired_at', 'note', 'merged'] as const;

/** Add `add` to the `portfolio` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('add')
    .description(`Add a holding; an existing holding of the stock is merged (weighted average price) unless --separate-lot (piped: ${FIELDS.join(', ')})`)
    .addArgument(new Argument('<code>', 'stock code, e.g. 005930').argParser(codeArg))
    .addArgument(new Argument('<quantity>', 'number of shares').argParser(positiveIntArg))
    .addArgument(new Argument('<average_price>', 'average purchase price in KRW').argParser(numberArg))
    .option('--acquired-at <date>', 'acquisition date YYYY-MM-DD (default: today, Korea time)', dateArg)
    .option('--note <text>', 'a note')
    .option('--separate-lot', 'keep as a separate lot instead of merging')
    .addHelpText('after', examples(['stockscreen portfolio add 005930 10 71000', 'stockscreen portfolio add 000660 5 182500 --acquired-at 2025-01-15 --note "earnings dip"', 'stockscreen portfolio add 005930 3 69000 --separate-lot --json']))
    .action(
      action(ctx, async (session, cmd) => {
        const [code, quantity, averagePrice] = cmd.processedArgs as [string, number, number];
        const o = cmd.opts<{ acquiredAt?: string; note?: string; separateLot?: boolean }>();
        const res = await addHolding(session, { code, quantity, average_price: averagePrice, acquired_at: o.acquiredAt, note: o.note, separate_lot: o.separateLot });
        const h = res.data;
        session.out.record(res.body, { fields: FIELDS.map((f) => [f, f === 'average_price' && session.out.mode === 'tty' ? num(h.average_price) : h[f]]) });
        session.out.info(h.merged ? `merged into holding ${h.id}: now ${num(h.quantity)} shares at ${num(h.average_price)}` : `added holding ${h.id}`);
      }),
    );
}
