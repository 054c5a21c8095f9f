/**
 * One simulated stock (simulator.ts runs many): its day's state, the trade that moves it one
 * step along its walk (price, volume, side, and its order book), a new KST day, and a newer quote
 * adopted from elsewhere. Randomness comes from the simulator's generator, in a fixed order, so a
 * seed replays the same trades.
 */
import type { MarketEvent, OrderBookEvent, PriceEvent } from '../../kernel/events.js';
import { priceLimits, roundToTick, type PriceLimits } from '../../kernel/tick-size.js';
import { buildOrderBook, type TradeSide } from './order-book.js';
import { createRng, type Rng } from './random.js';
import type { FeedStock } from './types.js';

/** Seconds of continuous trading in a KRX day (09:00–15:30): the unit of daily volatility. */
export const SESSION_SECONDS = 23_400;

/** A stock's simulation state. */
export interface StockState {
  stock: FeedStock;
  sigma: number;
  volumePerSecond: number;
  prevClose: number;
  limits: PriceLimits;
  logFair: number;
  price: number;
  /** 0 before the day's first trade (prices are > 0); numbers only, so V8 keeps the fields unboxed. */
  open: number;
  high: number;
  low: number;
  volume: number;
  tradingValue: number;
  side: TradeSide;
  /** KST date of the state's trading day, '' before the first trade. */
  date: string;
  /** ms epoch of the last trade, 0 before the first. */
  lastTs: number;
}

function hashCode(text: string): number {
  let h = 2_166_136_261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16_777_619);
  return h >>> 0;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;
export const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/** The state of a stock joining the simulation. @throws RangeError when its prev_close is not a positive number */
export function newStockState(stock: FeedStock, seed: number, volatility: number): StockState {
  // Per-stock parameters come from (seed, code): adding a listing does not reshuffle the others.
  const own = createRng(seed ^ hashCode(stock.code));
  const sigma = (0.015 + 0.025 * own.next()) * volatility;
  const dayValue = Math.exp(Math.log(5e8) + own.next() * Math.log(100)); // 0.5–50 bn KRW a day
  const avgVolume = stock.avg_volume && stock.avg_volume > 0 ? stock.avg_volume : Math.max(1_000, dayValue / stock.prev_close);
  const st: StockState = {
    stock, sigma, volumePerSecond: avgVolume / SESSION_SECONDS, prevClose: stock.prev_close, limits: priceLimits(stock.prev_close),
    logFair: 0, price: 0, open: 0, high: 0, low: 0, volume: 0, tradingValue: 0, side: 'bid', date: '', lastTs: 0,
  };
  resetDay(st, stock.prev_close, '');
  return st;
}

function resetDay(st: StockState, prevClose: number, date: string): void {
  st.prevClose = prevClose;
  st.limits = priceLimits(prevClose);
  st.price = clamp(prevClose, st.limits.lower, st.limits.upper);
  st.logFair = Math.log(st.price);
  st.open = 0;
  st.high = st.low = st.price;
  st.volume = st.tradingValue = 0;
  st.date = date;
}

/** A new KST day: the base is the loaded close when it covers the last day traded, else our own last price. */
function rollover(st: StockState, date: string): void {
  const closeKnown = st.date === '' || st.volume === 0 || (st.stock.close_date !== undefined && st.stock.close_date >= st.date);
  resetDay(st, closeKnown ? st.stock.prev_close : st.price, date);
}

/** One trade at `now` (KST day `date`): its price event, and its order book's when `withBook`, appended to `out`. */
export function trade(st: StockState, now: number, date: string, rng: Rng, withBook: boolean, out: MarketEvent[]): void {
  if (st.date !== date) rollover(st, date);
  const dt = st.lastTs === 0 ? 1 : clamp((now - st.lastTs) / 1000, 0.001, 600);
  const { lower, upper } = st.limits;
  st.logFair = clamp(st.logFair + st.sigma * Math.sqrt(dt / SESSION_SECONDS) * rng.normal(), Math.log(lower), Math.log(upper));
  const price = clamp(roundToTick(Math.exp(st.logFair), 'nearest'), lower, upper);
  st.side = price > st.price ? 'ask' : price < st.price ? 'bid' : rng.next() < 0.5 ? 'ask' : 'bid';
  const quantity = Math.max(1, Math.round(st.volumePerSecond * dt * rng.exponential()));
  st.price = price;
  if (st.open === 0) {
    // The day's first trade sets open, high and low (the previous close is not a trade of today).
    st.open = st.high = st.low = price;
  }
  st.high = Math.max(st.high, price);
  st.low = Math.min(st.low, price);
  st.volume += quantity;
  st.tradingValue += quantity * price;
  st.lastTs = now;
  const { stock } = st;
  const change = price - st.prevClose;
  const event: PriceEvent = {
    type: 'price', code: stock.code, name: stock.name, market: stock.market, sector: stock.sector,
    price, change, change_percent: round2((change / st.prevClose) * 100), volume: st.volume, trading_value: st.tradingValue,
    open: st.open, high: st.high, low: st.low, prev_close: st.prevClose, ts: now,
  };
  out.push(event);
  if (withBook) out.push(bookOf(st, now, rng));
}

/** The order book around the last trade. */
function bookOf(st: StockState, now: number, rng: Rng): OrderBookEvent {
  const depthQty = st.volumePerSecond * 30; // about half a minute of trading rests at each level
  const book = buildOrderBook(st.price, {
    limits: st.limits,
    lastSide: st.side,
    quantity: () => Math.max(1, Math.round(depthQty * (0.2 + 1.6 * rng.next()))),
  });
  const { stock } = st;
  return { type: 'orderbook', code: stock.code, market: stock.market, sector: stock.sector, bids: book.bids, asks: book.asks, ts: now };
}

/** Take over a quote of today (`date`) from elsewhere: the newer side's price, the larger day totals. */
export function adopt(st: StockState, q: PriceEvent, date: string): void {
  const sameDay = st.date === date;
  if (!sameDay || q.ts >= st.lastTs) {
    st.prevClose = q.prev_close;
    st.limits = priceLimits(q.prev_close);
    st.price = q.price;
    st.logFair = Math.log(q.price);
    st.open = q.open;
    st.lastTs = Math.max(q.ts, st.lastTs);
  }
  // Day totals only grow, whichever side is newer.
  st.high = sameDay ? Math.max(st.high, q.high) : q.high;
  st.low = sameDay ? Math.min(st.low, q.low) : q.low;
  st.volume = sameDay ? Math.max(st.volume, q.volume) : q.volume;
  st.tradingValue = sameDay ? Math.max(st.tradingValue, q.trading_value) : q.trading_value;
  st.date = date;
}
