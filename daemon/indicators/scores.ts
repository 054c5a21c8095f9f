/**
 * Per-stock accounting scores: Piotroski F-score and Altman Z''-score.
 * Quarterly statements are compared TTM against the TTM a year earlier, and
 * balance items at the latest quarter against four quarters earlier.
 */
import { liabilities, type FinancialView } from './financials.js';
import { safeDiv } from './series.js';

/** The nine Piotroski tests: true = passed, false = failed, null = inputs missing. */
export interface PiotroskiTests {
  roaPositive: boolean | null;
  cfoPositive: boolean | null;
  roaImproved: boolean | null;
  accrual: boolean | null;
  leverageDown: boolean | null;
  liquidityUp: boolean | null;
  noDilution: boolean | null;
  grossMarginUp: boolean | null;
  turnoverUp: boolean | null;
}

function greater(a: number | null, b: number | null): boolean | null {
  return a == null || b == null ? null : a > b;
}

/** x / y with y required > 0. */
function ratio(x: number | null, y: number | null): number | null {
  return y == null || y <= 0 ? null : safeDiv(x, y);
}

/**
 * Evaluates the nine tests. ROA and asset turnover use end-of-period total
 * assets; leverage is long-term debt / total assets (both years zero counts
 * as not increased, i.e. passed); dilution compares the filings' share counts.
 */
export function piotroskiTests(view: FinancialView): PiotroskiTests {
  const np0 = view.ttm('net_profit', 0);
  const np1 = view.ttm('net_profit', 4);
  const cfo0 = view.ttm('operating_cash_flow', 0);
  const ta0 = view.at('total_assets', 0);
  const ta1 = view.at('total_assets', 4);
  const rev0 = view.ttm('revenue', 0);
  const rev1 = view.ttm('revenue', 4);
  const lev0 = ratio(view.at('long_term_debt', 0), ta0);
  const lev1 = ratio(view.at('long_term_debt', 4), ta1);
  const shares0 = view.at('shares_outstanding', 0);
  const shares1 = view.at('shares_outstanding', 4);
  return {
    roaPositive: greater(ratio(np0, ta0), 0),
    cfoPositive: greater(cfo0, 0),
    roaImproved: greater(ratio(np0, ta0), ratio(np1, ta1)),
    accrual: greater(cfo0, np0),
    leverageDown: lev0 == null || lev1 == null ? null : lev0 < lev1 || (lev0 === 0 && lev1 === 0),
    liquidityUp: greater(
      ratio(view.at('current_assets', 0), view.at('current_liabilities', 0)),
      ratio(view.at('current_assets', 4), view.at('current_liabilities', 4)),
    ),
    noDilution: shares0 == null || shares1 == null ? null : shares0 <= shares1,
    grossMarginUp: greater(ratio(view.ttm('gross_profit', 0), rev0), ratio(view.ttm('gross_profit', 4), rev1)),
    turnoverUp: greater(ratio(rev0, ta0), ratio(rev1, ta1)),
  };
}

/**
 * Piotroski F-score 0–9: the number of tests passed. A test whose inputs are
 * missing counts as failed, so sparse filings lower the score rather than hide
 * the stock; null when TTM net profit or total assets is unavailable.
 */
export function piotroskiFScore(view: FinancialView): number | null {
  const assets = view.at('total_assets');
  if (view.ttm('net_profit') == null || assets == null || assets <= 0) return null;
  const tests = piotroskiTests(view);
  let score = 0;
  for (const passed of Object.values(tests)) if (passed === true) score++;
  return score;
}

/**
 * Altman Z''-score for non-manufacturers and emerging markets:
 * 6.56·X1 + 3.26·X2 + 6.72·X3 + 1.05·X4 with X1 = (current assets − current
 * liabilities) / TA, X2 = retained earnings / TA, X3 = TTM operating profit / TA,
 * X4 = equity / total liabilities. Null when any input is missing or TA,
 * liabilities ≤ 0.
 */
export function altmanZ(view: FinancialView): number | null {
  const ta = view.at('total_assets');
  const ca = view.at('current_assets');
  const cl = view.at('current_liabilities');
  const re = view.at('retained_earnings');
  const ebit = view.ttm('operating_profit');
  const equity = view.at('equity');
  const debt = liabilities(view);
  if (ta == null || ta <= 0 || ca == null || cl == null || re == null || ebit == null || equity == null) return null;
  if (debt == null || debt <= 0) return null;
  return 6.56 * ((ca - cl) / ta) + 3.26 * (re / ta) + 6.72 * (ebit / ta) + 1.05 * (equity / debt);
}
