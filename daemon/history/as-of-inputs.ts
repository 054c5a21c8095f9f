/**
 * The per-date as-of computation, kept as the reference the series are tested
 * against and as the source of the cells the series take from the daily code (halt days, days
 * without a bar): one stock's inputs as known on a date, and every stock's indicators on a date
 * computed by indicators/compute.ts over the last 300 bars — ≈1.2 ms of CPU a stock.
 */
import { applyCrossSectionalScoresAsync, computeStockIndicators, type IndicatorValues, type StockSeries } from '../indicators/compute.js';
import { WINDOW } from '../indicators/kernel.js';
import { barRecords, isListedOn, statementsKnownOn, type MarketHistory, type StockHistory } from './market-history.js';
import { pointIndicators, type AsOfDepth } from './point-indicators.js';

/** Trading days of history the indicators look at (the daily computation reads the same). */
export const AS_OF_HISTORY_DAYS = WINDOW;

/** One stock's inputs as known on date index `day`. */
export function seriesAsOf(history: MarketHistory, stock: StockHistory, day: number, window = AS_OF_HISTORY_DAYS): StockSeries {
  const date = history.dates[day] ?? '';
  const bars = barRecords(history, stock, day, window);
  const halt = stock.halts.get(day);
  const lastBar = bars[bars.length - 1];
  return {
    code: stock.record.code,
    market: stock.record.market,
    bars,
    financials: statementsKnownOn(stock, date),
    // The day's own figures first: today's listing count would be a look-ahead.
    shares_outstanding: halt?.shares_outstanding ?? lastBar?.shares_outstanding ?? stock.record.shares_outstanding,
    last_close: halt?.last_close ?? null,
    market_cap: halt?.market_cap ?? null,
    halted: halt !== undefined,
  };
}

/** One stock's indicator values on date index `day` (no cross-sectional scores); `date` is history.dates[day]. */
export function stockIndicatorsAsOf(history: MarketHistory, stock: StockHistory, day: number, depth: AsOfDepth, date = history.dates[day] ?? ''): IndicatorValues {
  if (depth === 'point') return pointIndicators(seriesAsOf(history, stock, day, 1));
  const index = history.index[stock.record.market];
  return computeStockIndicators(seriesAsOf(history, stock, day), index.length > 0 ? index : undefined, date);
}

/**
 * Every listed stock's indicator values on date index `day`, computed per date (cross-sectional
 * scores included). 'point' computes only what the day's own bar and the statements give.
 */
export async function indicatorsAsOf(
  history: MarketHistory, day: number, checkpoint: () => Promise<void>, depth: AsOfDepth = 'full', crossSection = true,
): Promise<Map<string, IndicatorValues>> {
  const date = history.dates[day] ?? '';
  const out = new Map<string, IndicatorValues>();
  for (const stock of history.stocks) {
    if (!isListedOn(history, stock, day)) continue;
    out.set(stock.record.code, stockIndicatorsAsOf(history, stock, day, depth, date));
    await checkpoint();
  }
  // Score by score (each ranks every stock): the whole pass at once is ≈0.1 s on a full market.
  if (crossSection) await applyCrossSectionalScoresAsync(out.values(), checkpoint);
  return out;
}
