/** A seeded random market for the live-screen tests: rows, a snapshot, and ticks that move prices. */
import type { PriceEvent } from '../../../../daemon/kernel/events.js';
import { buildSnapshot, type Snapshot, type SnapshotRow } from '../../../../daemon/screening/engine/snapshot.js';
import { seededRandom } from '../../../../loadtest/bench/alerts.js';

export const LIVE_FIELDS = ['close', 'change', 'change_percent', 'volume', 'trading_value', 'market_cap', 'per', 'pbr', 'dividend_yield', 'roe', 'rsi_14', 'shares_outstanding', 'turnover'] as const;

/** Deterministic PRNG (mulberry32): the alert bench's, so both replay the same draws for a seed. */
export const rng = seededRandom;

/** `n` stocks with random closes, caps and ratios (some nulls). */
export function randomRows(n: number, seed: number): SnapshotRow[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const close = 1000 + Math.floor(r() * 100) * 100;
    const shares = 1e6 + Math.floor(r() * 1e7);
    const cap = close * shares;
    return {
      code: String(100000 + i * 10),
      name: `종목${String(i).padStart(3, '0')}`,
      name_english: null,
      market: i % 3 === 0 ? 'KOSDAQ' : 'KOSPI',
      sector: i % 5 === 0 ? '반도체' : '기타',
      industry: null,
      board: null,
      flags: { administrative: false, spac: false, preferred: i % 17 === 0, halted: false },
      values: {
        close, change: 0, change_percent: 0, volume: 0, trading_value: 0, market_cap: cap, shares_outstanding: shares,
        per: r() < 0.1 ? null : cap / (1e6 + r() * 1e9), pbr: cap / (1e8 + r() * 1e10), dividend_yield: r() < 0.3 ? null : r() * 5,
        roe: r() * 30 - 5, rsi_14: r() * 100, turnover: 0,
      },
    };
  });
}

/** The snapshot of `rows`. */
export function snapshotOf(rows: SnapshotRow[], version = 'v1'): Snapshot {
  return buildSnapshot(rows, LIVE_FIELDS, version);
}

/** A tick of `row` at `price` (previous close = its snapshot close). */
export function tickOf(row: SnapshotRow, price: number, volume: number, ts = 1): PriceEvent {
  const prev = row.values.close as number;
  return {
    type: 'price', code: row.code, name: row.name, market: row.market, sector: row.sector, price,
    change: price - prev, change_percent: ((price - prev) / prev) * 100, volume, trading_value: price * volume,
    open: prev, high: Math.max(prev, price), low: Math.min(prev, price), prev_close: prev, ts,
  };
}
