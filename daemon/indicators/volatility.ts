/**
 * Volatility indicators: true range and ATR (Wilder), Bollinger Bands,
 * annualised historical volatility, beta against the market index and the
 * maximum drawdown. Inputs are oldest first.
 */
import { atrChain, nanArray, seriesOf } from './chains.js';
import { nullSeries, rollingStdDev, sampleStdDev, sma, type Series } from './series.js';

/** Trading days per year used to annualise daily figures. */
export const TRADING_DAYS_PER_YEAR = 252;

/**
 * Average True Range (Wilder): the first value, on bar `period − 1`, is the mean
 * of the first `period` true ranges (the first being high − low); then
 * ATR = (previous × (period − 1) + TR) / period.
 */
export function atr(highs: readonly number[], lows: readonly number[], closes: readonly number[], period = 14): Series {
  const out = nanArray(closes.length);
  atrChain({ high: highs, low: lows, close: closes }, period, 0, 0, closes.length - 1, out);
  return seriesOf(out);
}

/** Bollinger Band series. */
export interface BollingerSeries {
  middle: Series;
  upper: Series;
  lower: Series;
  /** (close − lower) / (upper − lower); 1 at the upper band, 0 at the lower. */
  percentB: Series;
  /** (upper − lower) / middle × 100. */
  bandwidth: Series;
}

/** Bollinger Bands: SMA(period) ± multiplier × population standard deviation. */
export function bollinger(closes: readonly number[], period = 20, multiplier = 2): BollingerSeries {
  const middle = sma(closes, period);
  const sd = rollingStdDev(closes, period, middle);
  const n = closes.length;
  const upper = nullSeries(n);
  const lower = nullSeries(n);
  const percentB = nullSeries(n);
  const bandwidth = nullSeries(n);
  for (let i = 0; i < n; i++) {
    const m = middle[i];
    const s = sd[i];
    if (m == null || s == null) continue;
    const u = m + multiplier * s;
    const l = m - multiplier * s;
    upper[i] = u;
    lower[i] = l;
    if (u > l) percentB[i] = ((closes[i] ?? 0) - l) / (u - l);
    if (m !== 0) bandwidth[i] = ((u - l) / m) * 100;
  }
  return { middle, upper, lower, percentB, bandwidth };
}

/**
 * Annualised historical volatility of the last `period` daily log returns:
 * sample standard deviation × √252 × 100 (%). Needs period + 1 closes.
 */
export function historicalVolatility(closes: ArrayLike<number>, period = 20, end = closes.length): number | null {
  const n = end;
  if (n < period + 1) return null;
  const returns: number[] = [];
  for (let i = n - period; i < n; i++) {
    const prev = closes[i - 1] ?? 0;
    const cur = closes[i] ?? 0;
    if (prev <= 0 || cur <= 0) return null;
    returns.push(Math.log(cur / prev));
  }
  const sd = sampleStdDev(returns);
  return sd == null ? null : sd * Math.sqrt(TRADING_DAYS_PER_YEAR) * 100;
}

/**
 * Beta of the stock's daily simple returns against the index's over the last
 * `window` returns: cov(stock, index) / var(index). `indexCloses` is aligned
 * with `closes` (same trading date, null when the index has no bar that day);
 * a return counts only when both days have both closes. Null with fewer than
 * `minOverlap` such returns or a zero index variance. `end`: the bars before it only;
 * `scratch`: buffers of at least `window` values to reuse (one call per bar of a history).
 */
export function beta(
  closes: ArrayLike<number>,
  indexCloses: ArrayLike<number | null>,
  window = 250,
  minOverlap = 120,
  end = closes.length,
  scratch?: { xs: Float64Array; ys: Float64Array },
): number | null {
  const n = end;
  const xs = scratch?.xs ?? new Float64Array(window);
  const ys = scratch?.ys ?? new Float64Array(window);
  let k = 0;
  for (let i = Math.max(1, n - window); i < n; i++) {
    const c0 = closes[i - 1];
    const c1 = closes[i];
    const m0 = indexCloses[i - 1];
    const m1 = indexCloses[i];
    if (c0 == null || c1 == null || m0 == null || m1 == null || Number.isNaN(m0) || Number.isNaN(m1) || c0 <= 0 || m0 <= 0) continue;
    ys[k] = c1 / c0 - 1;
    xs[k++] = m1 / m0 - 1;
  }
  if (k < minOverlap) return null;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < k; i++) {
    mx += xs[i] ?? 0;
    my += ys[i] ?? 0;
  }
  mx /= k;
  my /= k;
  let cov = 0;
  let varX = 0;
  for (let i = 0; i < k; i++) {
    const dx = (xs[i] ?? 0) - mx;
    cov += dx * ((ys[i] ?? 0) - my);
    varX += dx * dx;
  }
  return varX === 0 ? null : cov / varX;
}

/**
 * Maximum drawdown over the last `window` closes, in percent (≤ 0): the worst
 * fall from a running peak within the window. Null with fewer than `window` closes.
 */
export function maxDrawdown(closes: ArrayLike<number>, window = TRADING_DAYS_PER_YEAR, end = closes.length): number | null {
  const n = end;
  if (n < window) return null;
  let peak = -Infinity;
  let worst = 0;
  for (let i = n - window; i < n; i++) {
    const c = closes[i] ?? 0;
    if (c > peak) peak = c;
    else if (peak > 0) worst = Math.min(worst, (c / peak - 1) * 100);
  }
  return worst;
}
