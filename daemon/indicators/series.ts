/**
 * Numeric series primitives shared by the indicator modules.
 * Every input is ordered oldest first. Outputs have the same length as the
 * input and hold `null` wherever a value is undefined (not enough history,
 * division by zero); never NaN, never a partial window. A function of the latest
 * value that takes an `end` (here and in the other indicator modules) reads only the
 * values before it, so every bar of a history is evaluated in place, without copies.
 */

/** A series of optional numbers, aligned index-for-index with its input. */
export type Series = (number | null)[];

/** A series of `length` nulls. */
export function nullSeries(length: number): Series {
  return new Array<number | null>(length).fill(null);
}

/** The last element of a series, or null when it is empty. */
export function lastOf(series: readonly (number | null)[]): number | null {
  return series.length === 0 ? null : (series[series.length - 1] ?? null);
}

/** The element `back` positions before the last one (0 = last), or null. */
export function fromEnd(series: readonly (number | null)[], back: number): number | null {
  const i = series.length - 1 - back;
  return i < 0 ? null : (series[i] ?? null);
}

/** a / b, or null when either is null, b is 0 or the result is not finite. */
export function safeDiv(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a == null || b == null || b === 0) return null;
  const r = a / b;
  return Number.isFinite(r) ? r : null;
}

/** (a / b − 1) × 100, or null when undefined (b must be > 0). */
export function pctChange(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a == null || b == null || b <= 0) return null;
  return (a / b - 1) * 100;
}

/**
 * Simple moving average over `period` values, computed with a rolling sum.
 * A window containing a null yields null (no partial windows).
 */
export function sma(values: readonly (number | null)[], period: number): Series {
  const out = nullSeries(values.length);
  let sum = 0;
  let valid = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v != null) {
      sum += v;
      valid++;
    }
    if (i >= period) {
      const old = values[i - period];
      if (old != null) {
        sum -= old;
        valid--;
      }
    }
    if (i >= period - 1 && valid === period) out[i] = sum / period;
  }
  return out;
}

/**
 * Exponential moving average with α = 2 / (period + 1), seeded with the simple
 * average of the first `period` values (StockCharts convention). Leading nulls
 * are skipped; a null after the seed breaks the chain and restarts the seed.
 */
export function ema(values: readonly (number | null)[], period: number): Series {
  const out = nullSeries(values.length);
  const alpha = 2 / (period + 1);
  let prev: number | null = null;
  let seedSum = 0;
  let seedCount = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v == null) {
      prev = null;
      seedSum = 0;
      seedCount = 0;
      continue;
    }
    if (prev == null) {
      seedSum += v;
      seedCount++;
      if (seedCount === period) prev = seedSum / period;
      else continue;
    } else {
      prev = (v - prev) * alpha + prev;
    }
    out[i] = prev;
  }
  return out;
}

/**
 * Wilder's smoothing (RMA): the first value is the mean of `period` values
 * ending at index `start + period − 1`, then avg = (prev × (period − 1) + v) / period.
 */
export function wilderAverage(values: readonly number[], period: number, start = 0): Series {
  const out = nullSeries(values.length);
  const first = start + period - 1;
  if (first >= values.length) return out;
  let sum = 0;
  for (let i = start; i <= first; i++) sum += values[i] ?? 0;
  let avg = sum / period;
  out[first] = avg;
  for (let i = first + 1; i < values.length; i++) {
    avg = (avg * (period - 1) + (values[i] ?? 0)) / period;
    out[i] = avg;
  }
  return out;
}

/** Mean of the `window` values ending before `end` (default: the last ones), summed oldest first; null with fewer. */
export function windowMean(values: ArrayLike<number>, window: number, end = values.length): number | null {
  if (end < window) return null;
  let sum = 0;
  for (let i = end - window; i < end; i++) sum += values[i] ?? 0;
  return sum / window;
}

/**
 * sma() of values[from..to] (numbers, no nulls) into out[0..to − from], NaN before a full
 * window: the same rolling sum, into a reused buffer.
 */
export function smaInto(values: ArrayLike<number>, from: number, to: number, period: number, out: Float64Array): void {
  let sum = 0;
  for (let k = 0; k <= to - from; k++) {
    sum += values[from + k] as number;
    if (k >= period) sum -= values[from + k - period] as number;
    out[k] = k >= period - 1 ? sum / period : Number.NaN;
  }
}

/** Rolling maximum over `period` values (monotonic deque, O(n)). */
export function rollingMax(values: readonly number[], period: number): Series {
  return rollingExtreme(values, period, (a, b) => a >= b);
}

/** Rolling minimum over `period` values (monotonic deque, O(n)). */
export function rollingMin(values: readonly number[], period: number): Series {
  return rollingExtreme(values, period, (a, b) => a <= b);
}

function rollingExtreme(
  values: readonly number[],
  period: number,
  dominates: (a: number, b: number) => boolean,
): Series {
  const out = nullSeries(values.length);
  const deque: number[] = [];
  let head = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] ?? 0;
    while (deque.length > head && dominates(v, values[deque[deque.length - 1] ?? 0] ?? 0)) deque.pop();
    deque.push(i);
    if ((deque[head] ?? 0) <= i - period) head++;
    if (i >= period - 1) out[i] = values[deque[head] ?? 0] ?? null;
  }
  return out;
}

/** Population standard deviation of each `period` window (two-pass per window for accuracy). */
export function rollingStdDev(values: readonly number[], period: number, means?: Series): Series {
  const m = means ?? sma(values, period);
  const out = nullSeries(values.length);
  for (let i = period - 1; i < values.length; i++) {
    const mean = m[i];
    if (mean == null) continue;
    let ss = 0;
    for (let j = i - period + 1; j <= i; j++) {
      const d = (values[j] ?? 0) - mean;
      ss += d * d;
    }
    out[i] = Math.sqrt(ss / period);
  }
  return out;
}

/** Sample (n − 1) standard deviation of a list, or null with fewer than two values. */
export function sampleStdDev(values: readonly number[]): number | null {
  const n = values.length;
  if (n < 2) return null;
  let mean = 0;
  for (const v of values) mean += v;
  mean /= n;
  let ss = 0;
  for (const v of values) ss += (v - mean) * (v - mean);
  return Math.sqrt(ss / (n - 1));
}
