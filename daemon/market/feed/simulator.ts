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
 * therefore tick-sized and as frequent as the tick is small relative to the price. One stock's
 * state and trade are in simulated-stock.ts; this file steps them in turn.
 */
import type { MarketEvent, PriceEvent } from '../../kernel/events.js';
import { kstDate } from '../market-clock.js';
import { createRng, type Rng } from './random.js';
import { adopt, clamp, newStockState, trade, type StockState } from './simulated-stock.js';
import type { FeedStock } from './types.js';

/** Seconds of continuous trading in a KRX day (09:00–15:30): the unit of daily volatility. */
export { SESSION_SECONDS } from './simulated-stock.js';

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
  /**
   * The same step, `tradesPerSlice` trades at a time: the next slice is made when asked for, so the
   * caller delivers one before the next is computed and a whole market's step (thousands of
   * trades and order books) never holds the thread at once.
   */
  slices(nowMs: number, tradesPerSlice: number): Generator<MarketEvent[], void, undefined>;
  /** Adopt newer quotes of today (a restart, a new leader, ingested ticks); returns how many applied. */
  sync(quotes: readonly PriceEvent[], nowMs: number): number;
  /** Replace the stock list (new listings join, delisted leave, names and bases update). */
  setStocks(stocks: readonly FeedStock[]): void;
  /** Number of stocks simulated. */
  size(): number;
}

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

  const sim: Simulator = {
    step(now) {
      const out: MarketEvent[] = [];
      for (const slice of sim.slices(now, Number.POSITIVE_INFINITY)) out.push(...slice);
      return out;
    },
    *slices(now, tradesPerSlice) {
      const list = order;
      const n = list.length;
      const since = lastStep ?? now;
      lastStep = now;
      if (n === 0) return;
      credit += n * share;
      const count = Math.floor(credit + 1e-9);
      credit = Math.max(0, credit - count);
      // Several rounds over the stocks in one step: round r of R trades at since + (r + 1)/R of the elapsed time.
      const rounds = Math.ceil(count / n);
      const span = Math.max(0, now - since);
      const date = kstDate(now);
      const per = Math.max(1, tradesPerSlice);
      for (let from = 0; from < count; from += per) {
        const out: MarketEvent[] = [];
        for (let i = from; i < Math.min(count, from + per); i++) {
          // The stock list may have been replaced between two slices: a stock that left is skipped.
          const st = states.get(list[cursor % n]!);
          cursor = (cursor + 1) % n;
          const at = rounds <= 1 ? now : Math.round(since + (span * (Math.floor(i / n) + 1)) / rounds);
          if (st && !st.stock.halted) trade(st, at, rounds <= 1 ? date : kstDate(at), rng, withBooks, out);
        }
        yield out;
      }
      if (order !== list) cursor = order.length === 0 ? 0 : cursor % order.length;
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
        next.set(stock.code, st ?? newStockState(stock, options.seed, volatility));
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
