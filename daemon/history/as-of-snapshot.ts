/**
 * An as-of snapshot (issue 23): the same indicator registry the daily computation fills,
 * computed from what was known on one trading date — bars up to and including it, statements
 * disclosed by then, the halt record of that day — and built into the engine's columnar
 * Snapshot, so the unchanged engine screens the past. Stocks not yet listed on the date are
 * absent; stocks delisted later are present.
 *
 * Sliced: `checkpoint()` is awaited between stocks so the daemon's thread stays responsive.
 */
import { applyCrossSectionalScores, computeStockIndicators, type IndicatorValues, type StockSeries } from '../indicators/compute.js';
import { INDICATOR_IDS } from '../indicators/registry.js';
import { buildSnapshot, type Snapshot, type SnapshotRow } from '../screening/snapshot.js';
import { barRecords, designationOn, isListedOn, statementsKnownOn, type MarketHistory, type StockHistory } from './market-history.js';
import { pointIndicators, type AsOfDepth } from './point-indicators.js';

/** Trading days of history the indicators look at (the daily computation reads the same). */
export const AS_OF_HISTORY_DAYS = 300;

/** The version string of the as-of snapshot of `date` over data version `version`. */
export function asOfVersion(date: string, version: string, depth: AsOfDepth = 'full'): string {
  return `asof:${date}:${version}${depth === 'point' ? ':point' : ''}`;
}

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

/**
 * Every listed stock's indicator values on date index `day`, cross-sectional scores included.
 * 'point' computes only what the day's own bar and the statements give (point-indicators.ts).
 */
export async function indicatorsAsOf(
  history: MarketHistory, day: number, checkpoint: () => Promise<void>, depth: AsOfDepth = 'full', crossSection = true,
): Promise<Map<string, IndicatorValues>> {
  const date = history.dates[day] ?? '';
  const out = new Map<string, IndicatorValues>();
  for (const stock of history.stocks) {
    if (!isListedOn(history, stock, day)) continue;
    const index = history.index[stock.record.market];
    const values = depth === 'point'
      ? pointIndicators(seriesAsOf(history, stock, day, 1))
      : computeStockIndicators(seriesAsOf(history, stock, day), index.length > 0 ? index : undefined, date);
    out.set(stock.record.code, values);
    await checkpoint();
  }
  if (crossSection) applyCrossSectionalScores(out.values());
  return out;
}

/** Scores computed across all stocks (skipped when a snapshot holds none of them). */
const CROSS_SECTIONAL = new Set(['value_score', 'quality_score', 'growth_score', 'momentum_score', 'overall_score', 'magic_formula_rank']);

/**
 * The as-of snapshot of date index `day`, holding `fields` (default every indicator; a backtest
 * passes the few its screen reads, which keeps its rebalances cheap).
 */
export async function buildAsOfSnapshot(
  history: MarketHistory, day: number, checkpoint: () => Promise<void>, depth: AsOfDepth = 'full', fields: readonly string[] = INDICATOR_IDS,
): Promise<Snapshot> {
  const values = await indicatorsAsOf(history, day, checkpoint, depth, fields.some((f) => CROSS_SECTIONAL.has(f)));
  const rows: SnapshotRow[] = [];
  for (const [code, v] of values) {
    const s = history.byCode.get(code);
    if (!s) continue;
    const r = s.record;
    const designation = designationOn(s, history.dates[day] ?? '');
    rows.push({
      code, name: r.name, name_english: r.name_english, market: r.market, sector: r.sector, industry: r.industry, board: designation.board,
      flags: { administrative: designation.is_administrative, spac: r.is_spac, preferred: r.is_preferred, halted: s.halts.has(day) },
      values: v,
    });
  }
  return buildSnapshot(rows, fields, asOfVersion(history.dates[day] ?? '', history.version, depth));
}
