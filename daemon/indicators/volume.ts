/**
 * Volume indicators: on-balance volume, Chaikin Money Flow and relative volume.
 * Inputs are oldest first.
 */
import { nullSeries, type Series } from './series.js';

/**
 * On-balance volume: starts at 0 on the first bar, then adds the day's volume on
 * an up close, subtracts it on a down close, and carries it on an unchanged close.
 */
export function obv(closes: readonly number[], volumes: readonly number[]): Series {
  const out = nullSeries(closes.length);
  let total = 0;
  for (let i = 0; i < closes.length; i++) {
    if (i > 0) {
      const c = closes[i] ?? 0;
      const p = closes[i - 1] ?? 0;
      if (c > p) total += volumes[i] ?? 0;
      else if (c < p) total -= volumes[i] ?? 0;
    }
    out[i] = total;
  }
  return out;
}

/**
 * On-balance volume over a fixed window: OBV on the last bar minus OBV `period`
 * bars earlier, i.e. the day's volume added on each up close and subtracted on
 * each down close over the last `period` daily changes. A running total from the
 * first bar held depends on how much history happens to be loaded, so it would
 * not compare across stocks or loads; the window fixes that. Null with fewer than
 * period + 1 bars (never computed on a partial window).
 */
export function obvWindow(closes: ArrayLike<number>, volumes: ArrayLike<number>, period = 20, end = closes.length): number | null {
  const n = end;
  if (n < period + 1) return null;
  let total = 0;
  for (let i = n - period; i < n; i++) {
    const c = closes[i] ?? 0;
    const p = closes[i - 1] ?? 0;
    if (c > p) total += volumes[i] ?? 0;
    else if (c < p) total -= volumes[i] ?? 0;
  }
  return total;
}

/**
 * Chaikin Money Flow: Σ money-flow volume / Σ volume over `period` bars, where the
 * money-flow multiplier is ((close − low) − (high − close)) / (high − low), taken
 * as 0 on a bar with high = low. Null when the window's volume is 0.
 */
export function cmf(
  highs: readonly number[],
  lows: readonly number[],
  closes: readonly number[],
  volumes: readonly number[],
  period = 20,
): Series {
  const n = closes.length;
  const mfv: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const h = highs[i] ?? 0;
    const l = lows[i] ?? 0;
    const c = closes[i] ?? 0;
    const mult = h === l ? 0 : (c - l - (h - c)) / (h - l);
    mfv[i] = mult * (volumes[i] ?? 0);
  }
  const out = nullSeries(n);
  for (let i = period - 1; i < n; i++) {
    let flow = 0;
    let vol = 0;
    for (let j = i - period + 1; j <= i; j++) {
      flow += mfv[j] ?? 0;
      vol += volumes[j] ?? 0;
    }
    if (vol > 0) out[i] = flow / vol;
  }
  return out;
}

/**
 * Mean of the `period` values that precede the last one (the last value excluded).
 * Null with fewer than period + 1 values.
 */
export function meanBeforeLast(values: ArrayLike<number>, period: number, end = values.length): number | null {
  const n = end;
  if (n < period + 1) return null;
  let sum = 0;
  for (let i = n - 1 - period; i < n - 1; i++) sum += values[i] ?? 0;
  return sum / period;
}
