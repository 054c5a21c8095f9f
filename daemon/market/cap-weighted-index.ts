/**
 * A market index computed from its constituents when no official series was loaded:
 * base 1,000 on the first day, then each day's level moves by the change in total
 * market cap of the stocks that traded on both days (a chain-linked cap-weighted index,
 * so listings and delistings do not jump the level).
 */
import type { DailyBar, IndexBar, Market, StockRecord } from '../kernel/records.js';

/** Base level on the first day. */
export const INDEX_BASE = 1000;

function capOf(bar: DailyBar, shares: number | null): number | null {
  if (bar.market_cap && bar.market_cap > 0) return bar.market_cap;
  return shares && shares > 0 ? bar.close_price * shares : null;
}

/** Builds a chain-linked index one trading day at a time, so a caller can read a few days, add them, and yield. */
export interface CapWeightedIndexBuilder {
  /**
   * Add one day's bars (any market; other markets' and unknown stocks' bars are ignored).
   * Days must come in ascending order. Returns the day's index bar, or null when no
   * constituent had a market cap that day.
   */
  addDay(date: string, bars: Iterable<DailyBar>): IndexBar | null;
}

/** Start the chain-linked cap-weighted series of `market` at INDEX_BASE. */
export function createCapWeightedIndexBuilder(market: Market, stocks: readonly StockRecord[]): CapWeightedIndexBuilder {
  const shares = new Map<string, number | null>();
  for (const s of stocks) if (s.market === market) shares.set(s.code, s.shares_outstanding);
  let level = INDEX_BASE;
  let prev: Map<string, number> | undefined;
  return {
    addDay(date, bars) {
      const today = new Map<string, number>();
      let volume = 0;
      let value = 0;
      for (const bar of bars) {
        if (!shares.has(bar.stock_code)) continue;
        const cap = capOf(bar, shares.get(bar.stock_code) ?? null);
        if (cap === null) continue;
        today.set(bar.stock_code, cap);
        volume += bar.volume;
        value += bar.trading_value;
      }
      if (today.size === 0) return null;
      if (prev) {
        let before = 0;
        let after = 0;
        for (const [code, cap] of today) {
          const was = prev.get(code);
          if (was === undefined) continue;
          before += was;
          after += cap;
        }
        if (before > 0) level *= after / before;
      }
      prev = today;
      return { market, trade_date: date, open: null, high: null, low: null, close: round2(level), volume, trading_value: value };
    },
  };
}

/** Compute the chain-linked cap-weighted series of `market`, oldest first (all bars at once; see the builder for a chunked run). */
export function computeCapWeightedIndex(market: Market, stocks: readonly StockRecord[], barsByCode: Map<string, DailyBar[]>): IndexBar[] {
  const byDate = new Map<string, DailyBar[]>();
  for (const bars of barsByCode.values()) {
    for (const bar of bars) {
      let day = byDate.get(bar.trade_date);
      if (!day) byDate.set(bar.trade_date, (day = []));
      day.push(bar);
    }
  }
  const builder = createCapWeightedIndexBuilder(market, stocks);
  const out: IndexBar[] = [];
  for (const date of [...byDate.keys()].sort()) {
    const bar = builder.addDay(date, byDate.get(date) ?? []);
    if (bar) out.push(bar);
  }
  return out;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
