/**
 * Oscillators: RSI (Wilder), slow stochastic, Williams %R, CCI, MFI and the
 * psychological line. Inputs are oldest first; outputs are aligned series.
 */
import { nanArray, rsiChain, seriesOf } from './chains.js';
import { nullSeries, rollingMax, rollingMin, sma, type Series } from './series.js';

/**
 * Relative Strength Index with Wilder smoothing. The first value sits on bar
 * `period` (it needs `period` price changes). RSI is 100 when the average loss is
 * 0 and the average gain positive; null when both are 0 (RS undefined).
 */
export function rsi(closes: readonly number[], period = 14): Series {
  const out = nanArray(closes.length);
  rsiChain({ high: closes, low: closes, close: closes }, period, 0, 0, closes.length - 1, out);
  return seriesOf(out);
}

/** Position of the close within the `period` high-low range, in percent (fast %K). */
export function fastStochastic(
  highs: readonly number[],
  lows: readonly number[],
  closes: readonly number[],
  period = 14,
): Series {
  const hh = rollingMax(highs, period);
  const ll = rollingMin(lows, period);
  return closes.map((c, i) => {
    const h = hh[i];
    const l = ll[i];
    if (h == null || l == null || h === l) return null;
    return ((c - l) / (h - l)) * 100;
  });
}

/** Slow stochastic %K and %D. */
export interface StochasticSeries {
  k: Series;
  d: Series;
}

/**
 * Slow stochastic (period, kSmoothing, dSmoothing), e.g. 14,3,3: slow %K is the
 * kSmoothing-day SMA of fast %K; slow %D is the dSmoothing-day SMA of slow %K.
 */
export function slowStochastic(
  highs: readonly number[],
  lows: readonly number[],
  closes: readonly number[],
  period = 14,
  kSmoothing = 3,
  dSmoothing = 3,
): StochasticSeries {
  const k = sma(fastStochastic(highs, lows, closes, period), kSmoothing);
  return { k, d: sma(k, dSmoothing) };
}

/** Williams %R: (highest high − close) / (highest high − lowest low) × −100, range −100..0. */
export function williamsR(
  highs: readonly number[],
  lows: readonly number[],
  closes: readonly number[],
  period = 14,
): Series {
  const hh = rollingMax(highs, period);
  const ll = rollingMin(lows, period);
  return closes.map((c, i) => {
    const h = hh[i];
    const l = ll[i];
    if (h == null || l == null || h === l) return null;
    return ((h - c) / (h - l)) * -100;
  });
}

/** Typical price (high + low + close) / 3 per bar. */
export function typicalPrices(highs: readonly number[], lows: readonly number[], closes: readonly number[]): number[] {
  return closes.map((c, i) => ((highs[i] ?? 0) + (lows[i] ?? 0) + c) / 3);
}

/**
 * Commodity Channel Index: (TP − SMA(TP)) / (0.015 × mean absolute deviation of TP
 * from that SMA) over `period` bars; null when the mean deviation is 0.
 */
export function cci(highs: readonly number[], lows: readonly number[], closes: readonly number[], period = 20): Series {
  const tp = typicalPrices(highs, lows, closes);
  const mean = sma(tp, period);
  const out = nullSeries(tp.length);
  for (let i = period - 1; i < tp.length; i++) {
    const m = mean[i];
    if (m == null) continue;
    let dev = 0;
    for (let j = i - period + 1; j <= i; j++) dev += Math.abs((tp[j] ?? 0) - m);
    dev /= period;
    if (dev > 0) out[i] = ((tp[i] ?? 0) - m) / (0.015 * dev);
  }
  return out;
}

/**
 * Money Flow Index: raw money flow TP × volume counted positive when TP rose and
 * negative when it fell, summed over `period` bars (first value on bar `period`).
 * 100 when there was no negative flow; null when there was no flow at all.
 */
export function mfi(
  highs: readonly number[],
  lows: readonly number[],
  closes: readonly number[],
  volumes: readonly number[],
  period = 14,
): Series {
  const tp = typicalPrices(highs, lows, closes);
  const n = tp.length;
  const out = nullSeries(n);
  // Signed raw flow per bar: > 0 positive flow, < 0 negative flow, 0 none.
  const flow: number[] = new Array<number>(n).fill(0);
  for (let i = 1; i < n; i++) {
    const t = tp[i] ?? 0;
    const p = tp[i - 1] ?? 0;
    const raw = t * (volumes[i] ?? 0);
    flow[i] = t > p ? raw : t < p ? -raw : 0;
  }
  for (let i = period; i < n; i++) {
    let pos = 0;
    let neg = 0;
    for (let j = i - period + 1; j <= i; j++) {
      const f = flow[j] ?? 0;
      if (f > 0) pos += f;
      else neg -= f;
    }
    if (neg === 0) out[i] = pos > 0 ? 100 : null;
    else out[i] = 100 - 100 / (1 + pos / neg);
  }
  return out;
}

/** Psychological line: percentage of up closes (close > previous close) over the last `period` changes. */
export function psychologicalLine(closes: readonly number[], period = 10): Series {
  const out = nullSeries(closes.length);
  let ups = 0;
  const isUp = (i: number): number => ((closes[i] ?? 0) > (closes[i - 1] ?? 0) ? 1 : 0);
  for (let i = 1; i < closes.length; i++) {
    ups += isUp(i);
    if (i > period) ups -= isUp(i - period);
    if (i >= period) out[i] = (ups / period) * 100;
  }
  return out;
}
