/**
 * "Point" as-of values: the indicators that need no price history beyond the day's
 * own bar — close, market cap, shares and everything computed from the statements — for screens
 * (backtests) that read nothing else. Computed the way indicators/compute.ts computes them (its
 * close, shares and market-cap rules), without building the ~100 price series per stock, so a
 * rebalance of a fundamental screen costs tens of microseconds a stock instead of milliseconds.
 */
import type { StockSeries } from '../indicators/compute.js';
import { createFinancialView } from '../indicators/financials.js';
import { growthIndicators, positive, profitabilityIndicators, valuationIndicators } from '../indicators/fundamentals.js';
import { getIndicator, type IndicatorValues } from '../indicators/registry.js';
import { altmanZ, piotroskiFScore } from '../indicators/scores.js';

/** How much history an as-of snapshot is computed from. */
export type AsOfDepth = 'full' | 'point';

/** Cross-sectional fields that read price-history fields (momentum) although their own min_history is small. */
const HISTORY_DEPENDENT = new Set(['overall_score', 'momentum_score']);

/** 'point' when none of `fields` needs more than the day's own bar, else 'full'. */
export function depthFor(fields: Iterable<string>): AsOfDepth {
  for (const f of fields) {
    if (HISTORY_DEPENDENT.has(f)) return 'full';
    const def = getIndicator(f);
    if (def && def.min_history > 1) return 'full';
  }
  return 'point';
}

/** The point values of one stock (its series needs only its last bar). */
export function pointIndicators(stock: StockSeries): IndicatorValues {
  const bar = stock.bars[stock.bars.length - 1];
  const latestFiling = stock.financials[stock.financials.length - 1];
  const close = stock.halted && stock.last_close != null && stock.last_close > 0 ? stock.last_close : (bar?.close_price ?? positive(stock.last_close));
  const shares = positive(stock.shares_outstanding) ?? positive(bar?.shares_outstanding) ?? positive(latestFiling?.shares_outstanding);
  const reportedCap = (stock.halted ? positive(stock.market_cap) : null) ?? positive(bar?.market_cap);
  const marketCap = reportedCap ?? (close != null && shares != null ? close * shares : null);
  const view = createFinancialView(stock.financials);
  const out: IndicatorValues = { close, market_cap: marketCap, shares_outstanding: shares, piotroski_f_score: piotroskiFScore(view), altman_z: altmanZ(view) };
  // Plain assignment, not object spreads: this runs for every stock at every rebalance.
  for (const patch of [valuationIndicators(view, { close, marketCap, shares }), profitabilityIndicators(view), growthIndicators(view)]) {
    for (const id in patch) out[id] = (patch as IndicatorValues)[id] ?? null;
  }
  for (const id in out) {
    const v = out[id];
    if (v != null && !Number.isFinite(v)) out[id] = null;
  }
  return out;
}
