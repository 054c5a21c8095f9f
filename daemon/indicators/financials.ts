/**
 * Access to a stock's quarterly statements by position relative to the latest
 * quarter: trailing-twelve-month (TTM) sums of flow items and point-in-time
 * balance-sheet items. Quarters are matched by fiscal year and quarter, so a
 * gap in the filings makes the affected values null instead of silently
 * summing non-consecutive quarters.
 */
import type { FinancialQuarter } from '../kernel/records.js';
import { totalLiabilities, type BalanceSheet } from './balance-sheet.js';

/** Items reported for the quarter alone (summed over four quarters for TTM). */
export type FlowField =
  | 'revenue'
  | 'operating_profit'
  | 'net_profit'
  | 'gross_profit'
  | 'operating_cash_flow'
  | 'dividends_per_share';

/** Items reported as of the quarter end. */
export type BalanceField =
  | 'total_assets'
  | 'equity'
  | 'total_liabilities'
  | 'current_assets'
  | 'current_liabilities'
  | 'long_term_debt'
  | 'cash'
  | 'retained_earnings'
  | 'shares_outstanding';

/** Read access to one stock's statements, relative to its latest quarter. */
export interface FinancialView {
  /** Whether any quarter is present. */
  readonly hasData: boolean;
  /** Sum of `field` over the four quarters ending `lag` quarters before the latest; null if any is missing. */
  ttm(field: FlowField, lag?: number): number | null;
  /**
   * Like ttm, but a quarter whose value is null counts as 0 (items such as
   * dividends are often reported only when paid); null when the four quarters
   * are not all present or none of them reports the item.
   */
  ttmSparse(field: FlowField, lag?: number): number | null;
  /** `field` of the quarter `lag` quarters before the latest (0 = latest), or null. */
  at(field: FlowField | BalanceField, lag?: number): number | null;
}

/** Sequential quarter number: consecutive quarters differ by exactly 1. */
export function quarterIndex(q: Pick<FinancialQuarter, 'fiscal_year' | 'fiscal_quarter'>): number {
  return q.fiscal_year * 4 + (q.fiscal_quarter - 1);
}

/** Builds a view over `quarters` (any order; a later duplicate of a quarter wins). */
export function createFinancialView(quarters: readonly FinancialQuarter[]): FinancialView {
  const byIndex = new Map<number, FinancialQuarter>();
  let latest = -Infinity;
  for (const q of quarters) {
    const idx = quarterIndex(q);
    byIndex.set(idx, q);
    if (idx > latest) latest = idx;
  }
  const quarterAt = (lag: number): FinancialQuarter | undefined => byIndex.get(latest - lag);
  const at = (field: FlowField | BalanceField, lag = 0): number | null => quarterAt(lag)?.[field] ?? null;
  const ttm = (field: FlowField, lag = 0): number | null => {
    let sum = 0;
    for (let k = lag; k < lag + 4; k++) {
      const v = at(field, k);
      if (v == null) return null;
      sum += v;
    }
    return sum;
  };
  const ttmSparse = (field: FlowField, lag = 0): number | null => {
    let sum = 0;
    let reported = 0;
    for (let k = lag; k < lag + 4; k++) {
      const q = quarterAt(k);
      if (q == null) return null;
      const v = q[field];
      if (v != null) {
        sum += v;
        reported++;
      }
    }
    return reported === 0 ? null : sum;
  };
  return { hasData: byIndex.size > 0, ttm, ttmSparse, at };
}

/** Mean of the latest value and the value four quarters earlier; the latest alone when the earlier one is missing. */
export function averageWithYearAgo(view: FinancialView, field: BalanceField): number | null {
  const now = view.at(field, 0);
  if (now == null) return null;
  const yearAgo = view.at(field, 4);
  return yearAgo == null ? now : (now + yearAgo) / 2;
}

/** Total liabilities of the quarter `lag` back, else total assets − equity when both are known. */
export function liabilities(view: FinancialView, lag = 0): number | null {
  return totalLiabilities(balanceSheetAt(view, lag));
}

/** The balance-sheet figures of the quarter `lag` back (what the statement ratios read). */
export function balanceSheetAt(view: FinancialView, lag = 0): BalanceSheet {
  return {
    total_liabilities: view.at('total_liabilities', lag), total_assets: view.at('total_assets', lag), equity: view.at('equity', lag),
    current_assets: view.at('current_assets', lag), current_liabilities: view.at('current_liabilities', lag),
  };
}
