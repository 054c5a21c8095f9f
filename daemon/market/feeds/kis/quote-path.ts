/**
 * KIS quotes and order books into feed events: each batch is checked against the live quotes it
 * builds on, one batch at a time (so it reads what the previous batch wrote), then delivered
 * down the feed's tick path. Rejected rows are counted by reason.
 */
import type { MarketEvent, OrderBookEvent, PriceEvent } from '../../../kernel/events.js';
import { priceLimits } from '../../../kernel/tick-size.js';
import { kstDate, type TradingSession } from '../../market-clock.js';
import type { FeedStock } from '../../feed/types.js';
import type { KisRejectReason, parseBookRecord, parseMultiPriceRow } from './protocol.js';
import { toPriceEvent } from './to-event.js';

/** A parsed quote row, or why it was refused. */
export type KisQuote = ReturnType<typeof parseMultiPriceRow>;
/** A parsed order book record. */
export type KisBook = Exclude<ReturnType<typeof parseBookRecord>, string>;

/** Collaborators of the quote path. */
export interface KisQuotePathDeps {
  stocks(): Map<string, FeedStock>;
  current(codes: readonly string[]): Promise<Map<string, PriceEvent>>;
  deliver(events: MarketEvent[]): Promise<void>;
  rejected(reason: KisRejectReason): void;
  now(): number;
}

/** The quote path of one leadership. */
export interface KisQuotePath {
  /** Deliver the price events of `quotes` that change the live quotes; the number delivered. */
  apply(quotes: KisQuote[], source: 'tick' | 'sweep', session: TradingSession): Promise<number>;
  /** Deliver a checked order book (refused: outside the price limits, unordered or crossed). */
  deliverBook(book: KisBook): Promise<void>;
  /** Resolves once the batches queued so far are done. */
  drain(): Promise<unknown>;
}

/** Create the quote path. */
export function createKisQuotePath(deps: KisQuotePathDeps): KisQuotePath {
  const { rejected, now } = deps;
  let chain: Promise<unknown> = Promise.resolve();

  /** One path at a time: each batch reads the live quotes it builds on after the previous batch wrote its own. */
  function serial(work: () => Promise<void>): Promise<void> {
    const run = chain.then(work);
    chain = run.catch(() => undefined);
    return run;
  }

  async function priceEvents(good: Exclude<KisQuote, string>[], source: 'tick' | 'sweep', session: TradingSession): Promise<PriceEvent[]> {
    const stocks = deps.stocks();
    const current = await deps.current([...new Set(good.map((q) => q.code))]);
    const events: PriceEvent[] = [];
    const t = now();
    for (const q of good) {
      const e = toPriceEvent(q, { stock: stocks.get(q.code) ?? null, prev: current.get(q.code) ?? null, now: t, source, session });
      if (typeof e === 'string') rejected(e);
      else if (e) {
        events.push(e);
        current.set(e.code, e);
      }
    }
    return events;
  }

  function bookEvent(book: KisBook, stock: FeedStock, prev: PriceEvent | undefined): OrderBookEvent | KisRejectReason {
    const base = prev && kstDate(prev.ts) === kstDate(now()) ? prev.prev_close : stock.prev_close;
    const limits = priceLimits(base);
    const levels = [...book.bids, ...book.asks];
    if (levels.some((l) => l.price > limits.upper || l.price < limits.lower)) return 'outside_limit';
    const ordered = book.bids.every((l, i) => i === 0 || l.price < book.bids[i - 1]!.price) && book.asks.every((l, i) => i === 0 || l.price > book.asks[i - 1]!.price);
    const crossed = book.bids[0] && book.asks[0] && book.bids[0].price >= book.asks[0].price;
    if (!ordered || crossed) return 'bad_layout';
    return { type: 'orderbook', code: stock.code, market: stock.market, sector: stock.sector, bids: book.bids, asks: book.asks, ts: now() };
  }

  return {
    async apply(quotes, source, session) {
      let changes = 0;
      await serial(async () => {
        const good = quotes.filter((q): q is Exclude<typeof q, string> => typeof q !== 'string');
        for (const q of quotes) if (typeof q === 'string') rejected(q);
        if (!good.length) return;
        const events = await priceEvents(good, source, session);
        changes = events.length;
        if (events.length) await deps.deliver(events);
      });
      return changes;
    },
    async deliverBook(book) {
      const stock = deps.stocks().get(book.code);
      if (!stock) return rejected('unknown_code');
      await serial(async () => {
        const event = bookEvent(book, stock, (await deps.current([book.code])).get(book.code));
        if (typeof event === 'string') return rejected(event);
        await deps.deliver([event]);
      });
    },
    drain: () => chain,
  };
}
