/**
 * Performance statistics of a value series (pure): period returns (1W … 1Y, YTD),
 * annualised volatility, maximum drawdown, Sharpe ratio, and beta and excess return
 * against a benchmark index (KOSPI). Figures are percentages except Sharpe and beta.
 *
 * Definitions (daily returns r over the statistics window, the last year at most):
 * - volatility = sample standard deviation of r × √252;
 * - max drawdown = the largest fall of the cumulative return index from a prior peak;
 * - Sharpe = (mean r − risk_free / 252) / sd r × √252;
 * - beta = cov(r, m) / var(m) over days where the index has both closes;
 * - excess return = portfolio return − index return over the same window.
 *
 * A figure the history cannot define is null, never 0, and `unavailable` says why:
 * returns and drawdown need 2 trading days, volatility and Sharpe `MIN_STAT_DAYS` daily
 * returns, beta as many days with benchmark closes.
 */
import type { ValueSeries } from './value-series.js';

/** Trading days per year (annualisation). */
export const TRADING_DAYS_PER_YEAR = 252;

/** Daily returns needed before volatility, Sharpe and beta mean anything. */
export const MIN_STAT_DAYS = 20;

/** The return periods reported. */
export const PERIODS = ['1W', '1M', '3M', '6M', 'YTD', '1Y'] as const;
/** One return period. */
export type Period = (typeof PERIODS)[number];

/** A benchmark close per trading day. */
export type IndexCloses = ReadonlyMap<string, number>;

/** The statistics of a portfolio's history. */
export interface PerformanceStats {
  /** First and last day of the statistics window, and its number of daily returns. */
  window: { from: string | null; to: string | null; days: number };
  /** Time-weighted return over each period, percent; a period longer than the history covers it all. */
  returns: Record<Period, number | null>;
  volatility_percent: number | null;
  /** Largest peak-to-trough fall, as a positive percent. */
  max_drawdown_percent: number | null;
  sharpe_ratio: number | null;
  beta: number | null;
  benchmark_return_percent: number | null;
  excess_return_percent: number | null;
  /** Why each null figure above is null (`returns` for the period returns), e.g. "needs 20 trading days of history (has 3)". */
  unavailable: Partial<Record<UnavailableFigure, string>>;
}

/** The figures that can be unavailable. */
export type UnavailableFigure =
  | 'returns' | 'volatility_percent' | 'max_drawdown_percent' | 'sharpe_ratio' | 'beta' | 'benchmark_return_percent' | 'excess_return_percent';

/** Options of computePerformance. */
export interface PerformanceOptions {
  /** Daily returns needed for volatility, Sharpe and beta (default MIN_STAT_DAYS). */
  minDays?: number;
}

function shiftMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const target = new Date(Date.UTC(y, m - 1 + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, lastDay));
  return target.toISOString().slice(0, 10);
}

/** The calendar date a period starts from, counted back from `last` (YYYY-MM-DD). */
export function periodStart(period: Period, last: string): string {
  switch (period) {
    case '1W':
      return new Date(Date.parse(`${last}T00:00:00Z`) - 7 * 86_400_000).toISOString().slice(0, 10);
    case '1M':
      return shiftMonths(last, -1);
    case '3M':
      return shiftMonths(last, -3);
    case '6M':
      return shiftMonths(last, -6);
    case 'YTD':
      return `${Number(last.slice(0, 4)) - 1}-12-31`;
    case '1Y':
      return shiftMonths(last, -12);
  }
}

/** Index of the last day on or before `date` (0 when the series starts after it). */
export function anchorIndex(dates: readonly string[], date: string): number {
  let lo = 0;
  let hi = dates.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (dates[mid]! <= date) (found = mid), (lo = mid + 1);
    else hi = mid - 1;
  }
  return found;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Sample covariance (n − 1); NaN below two points. */
function covariance(xs: readonly number[], ys: readonly number[]): number {
  if (xs.length < 2) return Number.NaN;
  const mx = mean(xs);
  const my = mean(ys);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += (xs[i]! - mx) * (ys[i]! - my);
  return s / (xs.length - 1);
}

/** Largest fall from a running peak of `wealth[from..]`, as a fraction. */
function maxDrawdown(wealth: readonly number[], from: number): number {
  let peak = wealth[from] ?? 0;
  let worst = 0;
  for (let k = from; k < wealth.length; k++) {
    const w = wealth[k]!;
    if (w > peak) peak = w;
    else if (peak > 0) worst = Math.max(worst, (peak - w) / peak);
  }
  return worst;
}

/** Benchmark close on or before `date`. */
function closeOnOrBefore(index: IndexCloses, dates: readonly string[], k: number): number | undefined {
  for (let i = k; i >= 0; i--) {
    const c = index.get(dates[i]!);
    if (c !== undefined) return c;
  }
  return undefined;
}

const NO_HISTORY = 'no trading day with a close since the holdings were acquired';

function emptyStats(): PerformanceStats {
  const why = NO_HISTORY;
  return {
    window: { from: null, to: null, days: 0 },
    returns: { '1W': null, '1M': null, '3M': null, '6M': null, YTD: null, '1Y': null },
    volatility_percent: null, max_drawdown_percent: null, sharpe_ratio: null, beta: null, benchmark_return_percent: null, excess_return_percent: null,
    unavailable: { returns: why, volatility_percent: why, max_drawdown_percent: why, sharpe_ratio: why, beta: why, benchmark_return_percent: why, excess_return_percent: why },
  };
}

const needs = (what: number, has: number, of = 'trading days of history') => `needs ${what} ${of}; has ${has}`;

/** Null the figures `stats` cannot define for lack of history, recording why. */
function withUnavailable(stats: PerformanceStats, returnsCount: number, pairs: number, minDays: number): PerformanceStats {
  const u = stats.unavailable;
  const days = returnsCount + 1;
  if (days < 2) {
    for (const p of PERIODS) stats.returns[p] = null;
    stats.max_drawdown_percent = null;
    stats.excess_return_percent = null;
    u.returns = u.max_drawdown_percent = u.excess_return_percent = needs(2, days);
  }
  if (returnsCount < minDays) {
    stats.volatility_percent = stats.sharpe_ratio = null;
    u.volatility_percent = u.sharpe_ratio = needs(minDays, returnsCount, 'daily returns');
  } else if (stats.sharpe_ratio === null) u.sharpe_ratio = 'undefined: the value did not move';
  if (pairs < minDays) {
    stats.beta = null;
    u.beta = needs(minDays, pairs, 'daily returns with KOSPI closes');
  }
  if (stats.benchmark_return_percent === null) u.benchmark_return_percent = u.excess_return_percent = 'no KOSPI closes over the window';
  return stats;
}

/**
 * Compute the statistics of `series` against the benchmark `index`; `riskFreeRate` is
 * annual, as a fraction (0.03 = 3%). An empty series gives nulls, each with its reason.
 */
export function computePerformance(series: ValueSeries, index: IndexCloses, riskFreeRate: number, options: PerformanceOptions = {}): PerformanceStats {
  const { dates, wealth, returns: daily } = series;
  const last = dates.length - 1;
  if (last < 0) return emptyStats();
  const lastDate = dates[last]!;
  const returns = {} as Record<Period, number | null>;
  for (const p of PERIODS) returns[p] = (wealth[last]! / wealth[anchorIndex(dates, periodStart(p, lastDate))]! - 1) * 100;

  const from = anchorIndex(dates, periodStart('1Y', lastDate));
  const r = daily.slice(from + 1);
  const sd = Math.sqrt(covariance(r, r));
  const pairs: [number, number][] = [];
  for (let k = from + 1; k <= last; k++) {
    const a = index.get(dates[k - 1]!);
    const b = index.get(dates[k]!);
    if (a !== undefined && b !== undefined) pairs.push([daily[k]!, b / a - 1]);
  }
  const m = pairs.map((p) => p[1]);
  const beta = covariance(pairs.map((p) => p[0]), m) / covariance(m, m);
  const start = closeOnOrBefore(index, dates, from);
  const end = closeOnOrBefore(index, dates, last);
  const benchmark = start !== undefined && end !== undefined ? (end / start - 1) * 100 : null;
  const portfolio = (wealth[last]! / wealth[from]! - 1) * 100;
  const stats: PerformanceStats = {
    window: { from: dates[from]!, to: lastDate, days: r.length },
    returns,
    volatility_percent: Number.isFinite(sd) ? sd * Math.sqrt(TRADING_DAYS_PER_YEAR) * 100 : null,
    max_drawdown_percent: maxDrawdown(wealth, from) * 100,
    sharpe_ratio: Number.isFinite(sd) && sd > 0 ? ((mean(r) - riskFreeRate / TRADING_DAYS_PER_YEAR) / sd) * Math.sqrt(TRADING_DAYS_PER_YEAR) : null,
    beta: Number.isFinite(beta) ? beta : null,
    benchmark_return_percent: benchmark,
    excess_return_percent: benchmark === null ? null : portfolio - benchmark,
    unavailable: {},
  };
  return withUnavailable(stats, r.length, pairs.length, options.minDays ?? MIN_STAT_DAYS);
}
