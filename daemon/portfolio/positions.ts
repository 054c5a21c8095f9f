/**
 * Position arithmetic (pure): merging a purchase into a lot at the weighted average
 * price, pooling several lots of one stock, and selling under the average-cost method
 * (the shares left keep the pool's average cost; the sale realises the difference).
 */
import { invalidRequest } from '../errors.js';

/** The cost-relevant part of a holding. */
export interface Lot {
  quantity: number;
  average_price: number;
  /** YYYY-MM-DD */
  acquired_at: string;
}

/** A purchase or sale of `quantity` shares at `price`, with an optional fee (KRW). */
export interface Trade {
  quantity: number;
  price: number;
  fee?: number;
  /** YYYY-MM-DD */
  date: string;
}

/** Outcome of a sale. */
export interface SaleResult {
  /** The position left, or null when everything was sold. */
  remaining: Lot | null;
  /** (price − average cost) × quantity − fee. */
  realized_pnl: number;
  /** The average cost the sale was measured against. */
  average_cost: number;
}

/** Earlier of two YYYY-MM-DD dates. */
function earlier(a: string, b: string): string {
  return a <= b ? a : b;
}

/**
 * Add a purchase to a lot: quantities add, the average price is the quantity-weighted
 * mean of both prices with the purchase fee capitalised into the cost, and the lot keeps
 * the earlier acquisition date.
 */
export function mergeLot(lot: Lot, buy: Trade): Lot {
  const quantity = lot.quantity + buy.quantity;
  const cost = lot.quantity * lot.average_price + buy.quantity * buy.price + (buy.fee ?? 0);
  return { quantity, average_price: cost / quantity, acquired_at: earlier(lot.acquired_at, buy.date) };
}

/**
 * Pool several lots of one stock into one position at their average cost (what the
 * average-cost method sells from). @throws Error on an empty list (a programming error)
 */
export function poolLots(lots: readonly Lot[]): Lot {
  if (lots.length === 0) throw new Error('poolLots: no lots');
  let quantity = 0;
  let cost = 0;
  let acquired = lots[0]!.acquired_at;
  for (const l of lots) {
    quantity += l.quantity;
    cost += l.quantity * l.average_price;
    acquired = earlier(acquired, l.acquired_at);
  }
  return { quantity, average_price: cost / quantity, acquired_at: acquired };
}

/**
 * Sell from a pooled position at its average cost.
 * @throws AppError INVALID_REQUEST when selling more than is held (`details.quantity`)
 */
export function sellFrom(pool: Lot | null, sale: Trade, code: string): SaleResult {
  const held = pool?.quantity ?? 0;
  if (!pool || sale.quantity > held) {
    throw invalidRequest('Cannot sell more shares than are held', { quantity: `exceeds the ${held} shares of ${code} held` });
  }
  const realized = (sale.price - pool.average_price) * sale.quantity - (sale.fee ?? 0);
  const left = pool.quantity - sale.quantity;
  return {
    remaining: left > 0 ? { ...pool, quantity: left } : null,
    realized_pnl: realized,
    average_cost: pool.average_price,
  };
}
