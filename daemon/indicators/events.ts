/**
 * Event flags (1/0) for the latest bar: 20-day breakout, new 52-week high, and
 * closes at the KRX daily price limits. Inputs are oldest first.
 */

/** KRX daily price limit: ±30% of the base price (the previous close) since 2015-06-15. */
export const PRICE_LIMIT_RATE = 0.3;

/**
 * KRX tick-size table for KOSPI and KOSDAQ stocks since 2023-01-25:
 * [upper bound (exclusive), tick in KRW].
 */
export const TICK_SIZE_TABLE: readonly (readonly [number, number])[] = [
  [2_000, 1],
  [5_000, 5],
  [20_000, 10],
  [50_000, 50],
  [200_000, 100],
  [500_000, 500],
  [Infinity, 1_000],
];

/** The KRX tick size (호가가격단위) for a price. */
export function tickSize(price: number): number {
  for (const [bound, tick] of TICK_SIZE_TABLE) if (price < bound) return tick;
  return 1_000;
}

/** Upper and lower limit prices for a day with the given base price. */
export interface PriceLimits {
  upper: number;
  lower: number;
}

/**
 * Daily price limits: base × 1.3 rounded down to its tick (상한가) and base × 0.7
 * rounded up to its tick (하한가), so the band never exceeds 30%.
 */
export function priceLimits(base: number): PriceLimits {
  // base × 13 / 10 (not base × 1.3) keeps 10000 → 13000 exact; 13 and 7 encode ±PRICE_LIMIT_RATE.
  const rawUpper = (base * 13) / 10;
  const rawLower = (base * 7) / 10;
  const upTick = tickSize(rawUpper);
  const downTick = tickSize(rawLower);
  return {
    upper: Math.floor(roundTiny(rawUpper / upTick)) * upTick,
    lower: Math.ceil(roundTiny(rawLower / downTick)) * downTick,
  };
}

/** Snap values within 1e-9 of an integer onto it before floor/ceil. */
function roundTiny(x: number): number {
  const r = Math.round(x);
  return Math.abs(x - r) < 1e-9 ? r : x;
}

/** Limit-up and limit-down flags of the latest bar. */
export interface LimitFlags {
  limitUp: number | null;
  limitDown: number | null;
}

/** Whether the last close sits at the upper or lower price limit from the previous close. */
export function limitFlags(closes: ArrayLike<number>, end = closes.length): LimitFlags {
  const n = end;
  const prev = closes[n - 2];
  const close = closes[n - 1];
  if (prev == null || close == null || prev <= 0) return { limitUp: null, limitDown: null };
  const { upper, lower } = priceLimits(prev);
  return { limitUp: close >= upper ? 1 : 0, limitDown: close <= lower ? 1 : 0 };
}

/**
 * 1 when the last close is above the highest high of the `period` bars before it,
 * else 0; null with fewer than period + 1 bars.
 */
export function breakout(highs: ArrayLike<number>, closes: ArrayLike<number>, period = 20, end = closes.length): number | null {
  const n = end;
  if (n < period + 1 || highs.length !== closes.length) return null;
  let hh = -Infinity;
  for (let i = n - 1 - period; i < n - 1; i++) hh = Math.max(hh, highs[i] ?? -Infinity);
  return (closes[n - 1] ?? 0) > hh ? 1 : 0;
}

/**
 * 1 when the last high is at least the highest high of the `lookback` bars before
 * it (a new 52-week high with the default 251), else 0; null with fewer than
 * lookback + 1 bars.
 */
export function newHigh(highs: ArrayLike<number>, lookback = 251, end = highs.length): number | null {
  const n = end;
  if (n < lookback + 1) return null;
  let hh = -Infinity;
  for (let i = n - 1 - lookback; i < n - 1; i++) hh = Math.max(hh, highs[i] ?? -Infinity);
  return (highs[n - 1] ?? 0) >= hh ? 1 : 0;
}
