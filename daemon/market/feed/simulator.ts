/**
 * The price simulator: a seeded random walk from each stock's
 * previous close, on the KRX tick grid, inside the ±30% daily limit, with day volume,
 * trading value, open/high/low and a 10-level order book. Pure: time comes in as
 * `step(nowMs)`, randomness from the seed; the feed runner decides when to step
 * (only while the market clock says open or closing auction).
 *
 * Model: each stock carries a continuous "fair value" that follows a log-normal walk
 * scaled by elapsed time (daily volatility 1.5–4%, per stock); the traded price is the
 * fair value rounded to the nearest tick and held inside the limits. Price changes are
 * therefore tick-sized and as frequent as the tick is small relative to the price.
 */
import type { MarketEvent, OrderBookEvent, PriceEvent } from '../../kernel/events.js';
import { kstDate } from '../market-clock.js';
import { priceLimits, roundToTick, type PriceLimits } from '../../kernel/tick-size.js';
import { buildOrderBook, type TradeSide } from './order-book.js';
import { createRng, type Rng } from './random.js';
import type { FeedStock } from './types.js';

/** Seconds of continuous trading in a KRX day (09:00–15:30): the unit of daily volatility. */
export const SESSION_SECONDS = 23_400;
/** Most trades per stock per step. */
export const MAX_SHARE = 1000;

/** Options of the simulator. */
export interface SimulatorOptions {
  stocks: readonly FeedStock[];
  seed: number;
  /**
   * Stock updates per step as a share of the stocks (round robin); default 1 (each stock
   * once per step). Above 1 each stock trades several times in one step, its trades
   * spread evenly over the time since the previous step. At most MAX_SHARE.
   */
  share?: number;
  /** Multiplies every stock's volatility (livelier demos); default 1. */
  volatility?: number;
  /** Emit an OrderBookEvent with every price event; default true. */
  orderBooks?: boolean;
}

/** A running simulation. */
export interface Simulator {
  /** Advance to `nowMs`: update the next share of stocks; a price (+ order book) event per trade. */
  step(nowMs: number): MarketEvent[];
  /** Adopt newer quotes of today (a restart, a new leader, ingested ticks); returns how many applied. */
  sync(quotes: readonly PriceEvent[], nowMs: number): number;
  /** Replace the stock list (new listings join, delisted leave, names and bases update). */
  setStocks(stocks: readonly FeedStock[]): void;
  /** Number of stocks simulated. */
  size(): number;
}

interface StockState {
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
const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/** Create a simulator. @throws RangeError when a stock's prev_close is not a positive number */
export function createSimulator(options: SimulatorOptions): Simulator {
  const share = clamp(options.share ?? 1, 1e-9, MAX_SHARE);
  const volatility = options.volatility ?? 1;
  const withBooks = options.orderBooks ?? true;
  const rng: Rng = createRng(options.seed);
  const states = new Map<string, StockState>();
  let order: string[] = [];
  let cursor = 0;
  let credit = 0;
  let lastStep: number | undefined;

  function newState(stock: FeedStock): StockState {
    // Per-stock parameters come from (seed, code): adding a listing does not reshuffle the others.
    const own = createRng(options.seed ^ hashCode(stock.code));
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

  function trade(st: StockState, now: number, date: string, out: MarketEvent[]): void {
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
    if (!withBooks) return;
    const depthQty = st.volumePerSecond * 30; // about half a minute of trading rests at each level
    const book = buildOrderBook(price, {
      limits: st.limits,
      lastSide: st.side,
      quantity: () => Math.max(1, Math.round(depthQty * (0.2 + 1.6 * rng.next()))),
    });
    const bookEvent: OrderBookEvent = { type: 'orderbook', code: stock.code, market: stock.market, sector: stock.sector, bids: book.bids, asks: book.asks, ts: now };
    out.push(bookEvent);
  }

  function adopt(st: StockState, q: PriceEvent, date: string): void {
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

  const sim: Simulator = {
    step(now) {
      const n = order.length;
      const since = lastStep ?? now;
      lastStep = now;
      if (n === 0) return [];
      credit += n * share;
      const count = Math.floor(credit + 1e-9);
      credit = Math.max(0, credit - count);
      const out: MarketEvent[] = [];
      // Several rounds over the stocks in one step: round r of R trades at since + (r + 1)/R of the elapsed time.
      const rounds = Math.ceil(count / n);
      const span = Math.max(0, now - since);
      const date = kstDate(now);
      for (let i = 0; i < count; i++) {
        const st = states.get(order[cursor]!)!;
        cursor = (cursor + 1) % n;
        const at = rounds <= 1 ? now : Math.round(since + (span * (Math.floor(i / n) + 1)) / rounds);
        if (!st.stock.halted) trade(st, at, rounds <= 1 ? date : kstDate(at), out);
      }
      return out;
    },
    sync(quotes, now) {
      const today = kstDate(now);
      let applied = 0;
      for (const q of quotes) {
        const st = states.get(q.code);
        if (!st || kstDate(q.ts) !== today || q.prev_close <= 0) continue;
        adopt(st, q, today);
        applied++;
      }
      return applied;
    },
    setStocks(stocks) {
      const next = new Map<string, StockState>();
      for (const stock of stocks) {
        const st = states.get(stock.code);
        if (st) st.stock = stock;
        next.set(stock.code, st ?? newState(stock));
      }
      const kept = order.filter((code) => next.has(code));
      const added = stocks.map((s) => s.code).filter((code) => !states.has(code));
      shuffle(added, rng);
      states.clear();
      for (const [code, st] of next) states.set(code, st);
      order = [...kept, ...added];
      cursor = order.length === 0 ? 0 : cursor % order.length;
    },
    size: () => order.length,
  };
  sim.setStocks(options.stocks);
  return sim;
}

function shuffle<T>(items: T[], rng: Rng): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
