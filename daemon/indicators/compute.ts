/**
 * Entry points: every registry indicator for one stock, and for a whole market
 * (per-stock pass, then the cross-sectional scores). Pure and synchronous; a
 * caller that must stay responsive can run the per-stock pass in chunks with
 * `chunked` + `computeStockIndicators`, then call `applyCrossSectionalScores`.
 */
import type { DailyBar, FinancialQuarter, IndexBar, Market } from '../kernel/records.js';
import { applyCrossSectionalScores } from './cross-section.js';
import { createFinancialView } from './financials.js';
import { growthIndicators, positive, profitabilityIndicators, valuationIndicators } from './fundamentals.js';
import { emptyIndicatorValues, type IndicatorPatch, type IndicatorValues } from './registry.js';
import { altmanZ, piotroskiFScore } from './scores.js';
import { technicalIndicators } from './technical-values.js';

export type { IndicatorValues } from './registry.js';
export { applyCrossSectionalScores, applyCrossSectionalScoresAsync } from './cross-section.js';

/** One stock's inputs. */
export interface StockSeries {
  code: string;
  market: Market;
  /** Oldest first, trading days only. */
  bars: DailyBar[];
  /** Oldest first. */
  financials: FinancialQuarter[];
  shares_outstanding: number | null;
  /** For stocks halted today whose last bar is older. */
  last_close: number | null;
  /** The halt record's market cap, as the file gives it (preferred while halted). */
  market_cap?: number | null;
  halted: boolean;
}

/** A whole market's inputs as of one trading date. */
export interface MarketInput {
  /** YYYY-MM-DD */
  as_of: string;
  stocks: StockSeries[];
  /** Oldest first; may be empty. */
  index: Partial<Record<Market, IndexBar[]>>;
}

/** Options of computeMarketIndicators. */
export interface MarketComputeOptions {
  /** Called after each stock's per-stock pass with (done, total). */
  onProgress?: (done: number, total: number) => void;
}

/** What the price side reads of the last bar. */
export type LastBar = Pick<DailyBar, 'close_price' | 'shares_outstanding' | 'market_cap'>;

/** Bars dated after `asOf` are ignored (the inputs may run ahead of the computation date). */
function barsUpTo(bars: readonly DailyBar[], asOf: string): readonly DailyBar[] {
  let end = bars.length;
  while (end > 0 && (bars[end - 1]?.trade_date ?? '') > asOf) end--;
  return end === bars.length ? bars : bars.slice(0, end);
}

/** Listing shares, else the latest bar's, else the latest filing's; null unless > 0. */
function resolveShares(stock: Pick<StockSeries, 'shares_outstanding' | 'financials'>, lastBar: LastBar | undefined): number | null {
  const latestFiling = stock.financials[stock.financials.length - 1];
  return positive(stock.shares_outstanding) ?? positive(lastBar?.shares_outstanding) ?? positive(latestFiling?.shares_outstanding);
}

/** Effective close: the last bar's; when halted today, the stock's last close if given. */
function resolveClose(stock: Pick<StockSeries, 'halted' | 'last_close'>, lastBar: LastBar | undefined): number | null {
  if (stock.halted && stock.last_close != null && stock.last_close > 0) return stock.last_close;
  return lastBar?.close_price ?? positive(stock.last_close);
}

/** What a stock's price-side values are on its last bar: close, shares, market cap (as-of series reuse it). */
export function priceSide(
  stock: Pick<StockSeries, 'halted' | 'last_close' | 'shares_outstanding' | 'financials' | 'market_cap'>, lastBar: LastBar | undefined,
): { close: number | null; shares: number | null; marketCap: number | null } {
  const close = resolveClose(stock, lastBar);
  const shares = resolveShares(stock, lastBar);
  // Halted today: the day's own record (close, shares, market cap as the file gives them) beats an older bar.
  const reportedCap = (stock.halted ? positive(stock.market_cap) : null) ?? positive(lastBar?.market_cap);
  const marketCap = reportedCap ?? (close != null && shares != null ? close * shares : null);
  return { close, shares, marketCap };
}

/**
 * Every indicator of one stock except the cross-sectional scores (those stay
 * null). `index` is the stock's market index, oldest first.
 */
export function computeStockIndicators(stock: StockSeries, index: IndexBar[] | undefined, as_of: string): IndicatorValues {
  const bars = barsUpTo(stock.bars, as_of);
  const lastBar = bars[bars.length - 1];
  const { close, shares, marketCap } = priceSide(stock, lastBar);
  const technical = technicalIndicators(bars, index, { close, halted: stock.halted, asOf: as_of });
  const view = createFinancialView(stock.financials);
  const volume = technical.volume ?? null;
  const values = emptyIndicatorValues();
  // Each part in turn, a later one winning: plain loops, not object spreads (every stock of a market).
  const put = (patch: IndicatorPatch): void => {
    for (const id in patch) {
      const v = patch[id as keyof IndicatorPatch];
      values[id] = v != null && Number.isFinite(v) ? v : null;
    }
  };
  put(technical);
  put({ market_cap: marketCap, shares_outstanding: shares, turnover: volume != null && shares != null ? (volume / shares) * 100 : null });
  put(valuationIndicators(view, { close, marketCap, shares }));
  put(profitabilityIndicators(view));
  put(growthIndicators(view));
  put({ piotroski_f_score: piotroskiFScore(view), altman_z: altmanZ(view) });
  return values;
}

/**
 * Every indicator of every stock, keyed by stock code: the per-stock pass, then
 * the cross-sectional scores over all stocks.
 */
export function computeMarketIndicators(input: MarketInput, options: MarketComputeOptions = {}): Map<string, IndicatorValues> {
  const out = new Map<string, IndicatorValues>();
  const total = input.stocks.length;
  input.stocks.forEach((stock, i) => {
    out.set(stock.code, computeStockIndicators(stock, input.index[stock.market], input.as_of));
    options.onProgress?.(i + 1, total);
  });
  applyCrossSectionalScores(out.values());
  return out;
}

/** Splits `items` into consecutive slices of at most `size` (size ≥ 1). */
export function* chunked<T>(items: readonly T[], size: number): Generator<T[]> {
  const step = Math.max(1, Math.floor(size));
  for (let i = 0; i < items.length; i += step) yield items.slice(i, i + step);
}
