/**
 * Trend indicators: MACD, moving-average alignment and crosses, and Wilder's
 * directional movement system (+DI, −DI, ADX). Inputs are oldest first.
 */
import { DMI_PERIOD, dmiChain, macdChain, nanArray, seriesOf } from './chains.js';
import type { Series } from './series.js';

/** MACD line, signal line and histogram (and the two EMAs), each aligned with the input closes. */
export interface MacdSeries {
  fastEma: Series;
  slowEma: Series;
  macd: Series;
  signal: Series;
  histogram: Series;
}

/**
 * MACD: EMA(fast) − EMA(slow) of closes; signal = EMA(signalPeriod) of the MACD line
 * (seeded with the simple average of its first `signalPeriod` values).
 */
export function macd(closes: readonly number[], fast = 12, slow = 26, signalPeriod = 9): MacdSeries {
  const n = closes.length;
  const out = { fastEma: nanArray(n), slowEma: nanArray(n), macd: nanArray(n), signal: nanArray(n), histogram: nanArray(n) };
  macdChain({ high: closes, low: closes, close: closes }, { fast, slow, signal: signalPeriod }, 0, 0, n - 1, out);
  return {
    fastEma: seriesOf(out.fastEma), slowEma: seriesOf(out.slowEma), macd: seriesOf(out.macd),
    signal: seriesOf(out.signal), histogram: seriesOf(out.histogram),
  };
}

/**
 * Moving-average alignment: 1 when the averages are strictly decreasing from the
 * shortest to the longest (정배열), −1 when strictly increasing (역배열), else 0;
 * null when any average is missing. Pass the averages shortest period first.
 */
export function maAlignment(averages: readonly (number | null)[]): number | null {
  if (averages.length < 2 || averages.some((a) => a == null)) return null;
  const a = averages as readonly number[];
  let up = true;
  let down = true;
  for (let i = 1; i < a.length; i++) {
    const prev = a[i - 1] ?? 0;
    const cur = a[i] ?? 0;
    if (!(prev > cur)) up = false;
    if (!(prev < cur)) down = false;
  }
  return up ? 1 : down ? -1 : 0;
}

/** Whether a fast average crossed above (golden) or below (dead) a slow one recently. */
export interface CrossFlags {
  golden: number | null;
  dead: number | null;
}

/**
 * Cross flags over the last `lookback` bars: a golden cross on day t means
 * fast[t−1] ≤ slow[t−1] and fast[t] > slow[t]; a dead cross is the mirror.
 * Null unless both averages exist (not null, not NaN) on every day from n−lookback−1 to n−1;
 * `n` defaults to the shorter length.
 */
export function recentCrosses(
  fast: ArrayLike<number | null>, slow: ArrayLike<number | null>, lookback: number, n = Math.min(fast.length, slow.length),
): CrossFlags {
  const from = n - lookback;
  if (from < 1) return { golden: null, dead: null };
  let golden = 0;
  let dead = 0;
  for (let t = from; t < n; t++) {
    const f0 = fast[t - 1];
    const s0 = slow[t - 1];
    const f1 = fast[t];
    const s1 = slow[t];
    if (missing(f0) || missing(s0) || missing(f1) || missing(s1)) return { golden: null, dead: null };
    if (f0 <= s0 && f1 > s1) golden = 1;
    if (f0 >= s0 && f1 < s1) dead = 1;
  }
  return { golden, dead };
}

const missing = (v: number | null | undefined): v is null | undefined => v == null || Number.isNaN(v);

/** +DI, −DI and ADX series (Wilder, period 14 by default). */
export interface DirectionalSeries {
  plusDi: Series;
  minusDi: Series;
  adx: Series;
}

/**
 * Wilder's directional movement system, in one pass (chains.ts dmiChain). TR, +DM
 * and −DM start on the second bar; their Wilder sums (seeded with plain sums of
 * `period` values) first exist on bar `period` (0-based); ADX, the Wilder average
 * of DX, first exists on bar 2·period − 1. A zero true-range sum gives null DIs and
 * a DX of 0. The period is Wilder's 14 only (the type says so): see dmiChain.
 */
export function directionalMovement(
  highs: readonly number[],
  lows: readonly number[],
  closes: readonly number[],
  period: typeof DMI_PERIOD = DMI_PERIOD,
): DirectionalSeries {
  const n = closes.length;
  const out = { plusDi: nanArray(n), minusDi: nanArray(n), adx: nanArray(n) };
  dmiChain({ high: highs, low: lows, close: closes }, 0, 0, n - 1, out);
  return { plusDi: seriesOf(out.plusDi), minusDi: seriesOf(out.minusDi), adx: seriesOf(out.adx) };
}
