/**
 * A provider quote becomes a price event only if it passes the same market rules as an
 * ingested tick: a listed code, a price on the KRX tick grid and inside the day's ±30% limit,
 * and a cumulative volume that does not go back (an older answer arriving after a newer tick
 * is dropped rather than rewinding the quote). Anything else is a reason, counted, never a
 * price on the bus. Pure.
 */
import type { PriceEvent, QuoteSource } from '../../../kernel/events.js';
import { isOnTick, priceLimits } from '../../../kernel/tick-size.js';
import type { TradingSession } from '../../market-clock.js';
import { kstDate } from '../../market-clock.js';
import type { FeedStock } from '../../feed/types.js';
import type { KisQuote, KisRejectReason } from './protocol.js';

/** Allowed clock skew of a trade frame's own time. */
const MAX_FUTURE_SKEW_MS = 60_000;

/** What the conversion needs besides the quote. */
export interface ToEventContext {
  stock: FeedStock | null;
  /** The stock's live quote, if any. */
  prev: PriceEvent | null;
  now: number;
  source: Extract<QuoteSource, 'tick' | 'sweep'>;
  session: TradingSession;
}

/**
 * The price event of a quote, `null` when it changes nothing (a sweep row equal to the live
 * quote), or the reason it was refused.
 */
export function toPriceEvent(q: KisQuote, ctx: ToEventContext): PriceEvent | null | KisRejectReason {
  const { stock, now } = ctx;
  if (!stock) return 'unknown_code';
  const ts = q.ts !== null && q.ts <= now + MAX_FUTURE_SKEW_MS ? q.ts : now;
  const prev = ctx.prev && kstDate(ctx.prev.ts) === kstDate(ts) ? ctx.prev : null;
  const prevClose = prev ? prev.prev_close : stock.prev_close;
  if (!isOnTick(q.price)) return 'off_grid';
  const limits = priceLimits(prevClose);
  if (q.price > limits.upper || q.price < limits.lower) return 'outside_limit';
  if (prev && q.volume < prev.volume) return 'volume_back';
  if (prev && q.volume === prev.volume && q.price === prev.price && ctx.source === 'sweep') return null;
  const inLimits = (v: number | null) => (v !== null && isOnTick(v) && v <= limits.upper && v >= limits.lower ? v : null);
  const open = inLimits(q.open) ?? prev?.open ?? q.price;
  const high = Math.max(inLimits(q.high) ?? prev?.high ?? q.price, q.price);
  const low = Math.min(inLimits(q.low) ?? prev?.low ?? q.price, q.price);
  const change = q.price - prevClose;
  const tradingValue = q.tradingValue !== null && q.tradingValue >= 0
    ? q.tradingValue
    : prev ? prev.trading_value + (q.volume - prev.volume) * q.price : q.volume * q.price;
  return {
    type: 'price', code: stock.code, name: stock.name, market: stock.market, sector: stock.sector,
    price: q.price, change, change_percent: Math.round((change / prevClose) * 10_000) / 100, volume: q.volume,
    trading_value: tradingValue, open, high, low, prev_close: prevClose, ts,
    source: ctx.source, session: ctx.session,
  };
}
