/**
 * GET /portfolio/performance: reads the daily closes of the holdings and the KOSPI
 * series, then combines the valuation, the value series and its statistics into one
 * report. An empty portfolio gives zero totals, empty lists and null statistics (with reasons).
 */
import type { Performance } from '../contract/portfolio.js';
import type { IndexRepo } from '../store/index-repo.js';
import type { PricesRepo } from '../store/prices-repo.js';
import { computePerformance } from './metrics.js';
import { allocations, rankHoldings, type HoldingView, type PortfolioTotals } from './valuation.js';
import { buildValueSeries, type PositionHistory } from './value-series.js';

/** Bars read per stock: a year of statistics (≈ 248 trading days) plus slack. */
export const HISTORY_BARS = 300;
/** The benchmark of beta and excess return. */
export const BENCHMARK = 'KOSPI' as const;

/** The performance report: the wire type of GET /portfolio/performance (daemon/contract/portfolio.ts). */
export type PerformanceReport = Performance;

/** Inputs of the report. */
export interface PerformanceInputs {
  view: { holdings: HoldingView[]; totals: PortfolioTotals };
  realized: number;
  prices: Pick<PricesRepo, 'history'>;
  index: Pick<IndexRepo, 'series'>;
  riskFreeRate: number;
  series: boolean;
}

/**
 * The holdings' daily closes since acquisition (the last HISTORY_BARS at most). A holding
 * bought after its stock's last close (today, before the day's bar is loaded) counts from
 * that last close, so the value series includes every holding.
 */
async function loadPositions(holdings: readonly HoldingView[], prices: Pick<PricesRepo, 'history'>): Promise<PositionHistory[]> {
  const earliest = new Map<string, string>();
  for (const h of holdings) {
    const e = earliest.get(h.code);
    if (e === undefined || h.acquired_at < e) earliest.set(h.code, h.acquired_at);
  }
  const barsSince = async (code: string, from: string) => {
    const since = await prices.history(code, { from, limit: HISTORY_BARS });
    return since.length > 0 ? since : prices.history(code, { limit: 1 });
  };
  const bars = new Map(await Promise.all([...earliest].map(async ([code, from]) => [code, await barsSince(code, from)] as const)));
  return holdings.map((h) => {
    const closes = (bars.get(h.code) ?? []).map((b) => ({ date: b.trade_date, close: b.close_price }));
    const lastClose = closes.at(-1)?.date;
    return { code: h.code, quantity: h.quantity, acquired_at: lastClose !== undefined && h.acquired_at > lastClose ? lastClose : h.acquired_at, closes };
  });
}

/** Build the report. */
export async function computePerformanceReport(input: PerformanceInputs): Promise<PerformanceReport> {
  const { holdings, totals } = input.view;
  const positions = await loadPositions(holdings, input.prices);
  const series = buildValueSeries(positions);
  const first = series.dates[0];
  const index = first ? await input.index.series(BENCHMARK, first) : [];
  const stats = computePerformance(series, new Map(index.map((b) => [b.trade_date, b.close])), input.riskFreeRate);
  const ranked = rankHoldings(holdings);
  const report: PerformanceReport = {
    as_of: series.dates.at(-1) ?? null,
    history_start: first ?? null,
    total_value: totals.market_value,
    total_cost: totals.cost,
    unrealized_pnl: totals.unrealized_pnl,
    unrealized_pnl_percent: totals.unrealized_pnl_percent,
    realized_pnl: input.realized,
    total_return_percent: totals.cost > 0 ? ((totals.unrealized_pnl + input.realized) / totals.cost) * 100 : 0,
    day_change: totals.day_change,
    day_change_percent: totals.day_change_percent,
    ...stats,
    benchmark: BENCHMARK,
    risk_free_rate: input.riskFreeRate,
    allocation: allocations(holdings),
    best: ranked.best,
    worst: ranked.worst,
  };
  if (input.series) {
    report.series = series.dates.map((date, k) => ({ date, value: series.values[k]!, return_index: series.wealth[k]! * 100 }));
  }
  return report;
}
