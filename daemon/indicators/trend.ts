/**
 * Trend indicators: MACD, moving-average alignment and crosses, and Wilder's
 * directional movement system (+DI, −DI, ADX). Inputs are oldest first.
 */
import { ema, nullSeries, type Series } from './series.js';

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
  const fastEma = ema(closes, fast);
  const slowEma = ema(closes, slow);
  const line: Series = fastEma.map((f, i) => {
    const s = slowEma[i];
    return f == null || s == null ? null : f - s;
  });
  const signal = ema(line, signalPeriod);
  const histogram: Series = line.map((m, i) => {
    const s = signal[i];
    return m == null || s == null ? null : m - s;
  });
  return { fastEma, slowEma, macd: line, signal, histogram };
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
 * Null unless both averages exist on every day from n−lookback−1 to n−1.
 */
export function recentCrosses(fast: Series, slow: Series, lookback: number): CrossFlags {
  const n = Math.min(fast.length, slow.length);
  const from = n - lookback;
  if (from < 1) return { golden: null, dead: null };
  let golden = 0;
  let dead = 0;
  for (let t = from; t < n; t++) {
    const f0 = fast[t - 1];
    const s0 = slow[t - 1];
    const f1 = fast[t];
    const s1 = slow[t];
    if (f0 == null || s0 == null || f1 == null || s1 == null) return { golden: null, dead: null };
    if (f0 <= s0 && f1 > s1) golden = 1;
    if (f0 >= s0 && f1 < s1) dead = 1;
  }
  return { golden, dead };
}

/** +DI, −DI and ADX series (Wilder, period 14 by default). */
export interface DirectionalSeries {
  plusDi: Series;
  minusDi: Series;
  adx: Series;
}

/**
 * Wilder's directional movement system, in one pass. TR, +DM and −DM start on
 * the second bar; their Wilder sums (seeded with plain sums of `period` values)
 * first exist on bar `period` (0-based); ADX, the Wilder average of DX, first
 * exists on bar 2·period − 1. A zero true-range sum gives null DIs and a DX of 0.
 */
export function directionalMovement(
  highs: readonly number[],
  lows: readonly number[],
  closes: readonly number[],
  period = 14,
): DirectionalSeries {
  const n = closes.length;
  const plusDi = nullSeries(n);
  const minusDi = nullSeries(n);
  const adx = nullSeries(n);
  let tr = 0;
  let plus = 0;
  let minus = 0;
  let dxSum = 0;
  let dxCount = 0;
  let adxPrev: number | null = null;
  for (let i = 1; i < n; i++) {
    const h = highs[i] ?? 0;
    const l = lows[i] ?? 0;
    const pc = closes[i - 1] ?? 0;
    const t = Math.max(h - l, Math.abs(h - pc), Math.abs(l - pc));
    const up = h - (highs[i - 1] ?? 0);
    const down = (lows[i - 1] ?? 0) - l;
    const p = up > down && up > 0 ? up : 0;
    const m = down > up && down > 0 ? down : 0;
    if (i <= period) {
      tr += t;
      plus += p;
      minus += m;
      if (i < period) continue;
    } else {
      tr += t - tr / period;
      plus += p - plus / period;
      minus += m - minus / period;
    }
    let dx = 0;
    if (tr > 0) {
      const pdi = (100 * plus) / tr;
      const mdi = (100 * minus) / tr;
      plusDi[i] = pdi;
      minusDi[i] = mdi;
      if (pdi + mdi > 0) dx = (100 * Math.abs(pdi - mdi)) / (pdi + mdi);
    }
    if (adxPrev == null) {
      dxSum += dx;
      dxCount++;
      if (dxCount === period) adxPrev = dxSum / period;
    } else {
      adxPrev = (adxPrev * (period - 1) + dx) / period;
    }
    if (adxPrev != null) adx[i] = adxPrev;
  }
  return { plusDi, minusDi, adx };
}
