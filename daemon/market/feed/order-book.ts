/**
 * A 10-level order book on the KRX tick grid around a traded price. Each level
 * is one valid price (the tick changes across band edges: below 2,000 the step is 1 won,
 * from 2,000 it is 5) and no level lies outside the day's price limits — so at the upper
 * limit there are no asks, and at the lower limit no bids, as on KRX.
 */
import type { OrderBookLevel } from '../../kernel/events.js';
import { tickSize, type PriceLimits } from '../../kernel/tick-size.js';

/** Levels per side (KRX publishes 10 price levels). */
export const BOOK_DEPTH = 10;

/** The next valid price above `price` (prices are integer KRW on the grid). */
export function tickUp(price: number): number {
  return price + tickSize(price);
}

/** The next valid price below `price`, or 0 when there is none. */
export function tickDown(price: number): number {
  if (price <= 1) return 0;
  // The step below a band edge belongs to the lower band: 2,000 → 1,999, 2,005 → 2,000.
  const below = price - 1;
  return below - (below % tickSize(below));
}

/** Which side the last trade hit: 'ask' for a buyer-initiated trade (the price ticked up). */
export type TradeSide = 'bid' | 'ask';

/** Options of `buildOrderBook`. */
export interface OrderBookOptions {
  limits: PriceLimits;
  /** Quantity at a level: `level` 0 is the best price of `side`. */
  quantity(side: 'bid' | 'ask', level: number): number;
  lastSide?: TradeSide;
  depth?: number;
}

/**
 * Build bids (best first, descending) and asks (best first, ascending) around `price`:
 * the trade price is the best ask after a buyer-initiated trade, otherwise the best bid.
 * Every bid is below every ask.
 */
export function buildOrderBook(price: number, options: OrderBookOptions): { bids: OrderBookLevel[]; asks: OrderBookLevel[] } {
  const { limits, quantity } = options;
  const depth = options.depth ?? BOOK_DEPTH;
  let bestBid: number;
  let bestAsk: number;
  if (price >= limits.upper) {
    bestBid = limits.upper;
    bestAsk = Number.POSITIVE_INFINITY; // locked at the upper limit (상한가): nobody sells
  } else if (price <= limits.lower) {
    bestBid = 0; // locked at the lower limit (하한가): nobody buys
    bestAsk = limits.lower;
  } else if (options.lastSide === 'ask') {
    bestAsk = price;
    bestBid = tickDown(price);
  } else {
    bestBid = price;
    bestAsk = tickUp(price);
  }
  const bids: OrderBookLevel[] = [];
  for (let p = bestBid; p >= limits.lower && p >= 1 && bids.length < depth; p = tickDown(p)) {
    bids.push({ price: p, quantity: quantity('bid', bids.length) });
  }
  const asks: OrderBookLevel[] = [];
  for (let p = bestAsk; p <= limits.upper && asks.length < depth; p = tickUp(p)) {
    asks.push({ price: p, quantity: quantity('ask', asks.length) });
  }
  return { bids, asks };
}
