/**
 * The ratios of one quarter's statements, defined once: the debt_ratio indicator (and the other
 * statement ratios) and the ratios GET /stocks/{code}/financials shows beside each quarter read
 * these functions, so a name means the same number wherever it appears. Percent; null when the
 * ratio is undefined.
 */
import type { FinancialQuarter } from '../kernel/records.js';
import { safeDiv } from './series.js';

/** The balance-sheet figures of one quarter the ratios read. */
export type BalanceSheet = Pick<FinancialQuarter, 'total_liabilities' | 'total_assets' | 'equity' | 'current_assets' | 'current_liabilities'>;

const percentOf = (a: number | null | undefined, b: number | null | undefined): number | null => {
  const r = safeDiv(a, b);
  return r === null ? null : r * 100;
};
const positive = (x: number | null | undefined): number | null => (x != null && x > 0 ? x : null);

/** Total liabilities as reported, else total assets − equity when both are known. */
export function totalLiabilities(b: Pick<BalanceSheet, 'total_liabilities' | 'total_assets' | 'equity'>): number | null {
  if (b.total_liabilities != null) return b.total_liabilities;
  return b.total_assets == null || b.equity == null ? null : b.total_assets - b.equity;
}

/**
 * Debt ratio (부채비율): total liabilities / equity × 100. Null when equity ≤ 0: a company whose
 * liabilities exceed its assets would otherwise show a negative — "low" — debt ratio and rank as
 * the least indebted.
 */
export function debtRatio(b: Pick<BalanceSheet, 'total_liabilities' | 'total_assets' | 'equity'>): number | null {
  return percentOf(totalLiabilities(b), positive(b.equity));
}

/** Equity ratio (자기자본비율): equity / total assets × 100; null when total assets ≤ 0. */
export function equityRatio(b: Pick<BalanceSheet, 'equity' | 'total_assets'>): number | null {
  return percentOf(b.equity, positive(b.total_assets));
}

/** Current ratio (유동비율): current assets / current liabilities × 100; null when current liabilities ≤ 0. */
export function currentRatio(b: Pick<BalanceSheet, 'current_assets' | 'current_liabilities'>): number | null {
  return percentOf(b.current_assets, positive(b.current_liabilities));
}

/** A margin: profit / revenue × 100 over one period (a quarter, or TTM); null when revenue ≤ 0. */
export function marginPercent(profit: number | null | undefined, revenue: number | null | undefined): number | null {
  return percentOf(profit, positive(revenue));
}
