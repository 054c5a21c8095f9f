/**
 * OpenDART fnlttSinglAcntAll (단일회사 전체 재무제표) account mapping: which
 * account becomes which FinancialQuarter field. An item matches by
 * `account_id` (IFRS/DART taxonomy; `ifrs_` is the pre-2019 prefix of
 * `ifrs-full_`) first, else by `account_nm` with spaces removed; only items of
 * the listed statements (`sj_div`) are considered, so ProfitLoss in the cash
 * flow statement or RetainedEarnings in the equity statement are ignored.
 *
 * | field               | account_id                                    | account_nm fallbacks            | sj_div  | kind |
 * |---------------------|-----------------------------------------------|---------------------------------|---------|------|
 * | revenue             | ifrs-full_Revenue                             | 매출액, 수익(매출액), 영업수익, 매출 | IS, CIS | flow |
 * | gross_profit        | ifrs-full_GrossProfit                         | 매출총이익                        | IS, CIS | flow |
 * | operating_profit    | dart_OperatingIncomeLoss                      | 영업이익, 영업이익(손실)            | IS, CIS | flow |
 * | net_profit          | ifrs-full_ProfitLoss                          | 당기/분기/반기순이익(손실)          | IS, CIS | flow |
 * | operating_cash_flow | ifrs-full_CashFlowsFromUsedInOperatingActivities | 영업활동현금흐름, 영업활동으로인한현금흐름 | CF | ytd |
 * | total_assets        | ifrs-full_Assets                              | 자산총계                          | BS      | stock |
 * | total_liabilities   | ifrs-full_Liabilities                         | 부채총계                          | BS      | stock |
 * | equity              | ifrs-full_Equity                              | 자본총계                          | BS      | stock |
 * | current_assets      | ifrs-full_CurrentAssets                       | 유동자산                          | BS      | stock |
 * | current_liabilities | ifrs-full_CurrentLiabilities                  | 유동부채                          | BS      | stock |
 * | long_term_debt      | ifrs-full_LongtermBorrowings                  | 장기차입금                        | BS      | stock |
 * | cash                | ifrs-full_CashAndCashEquivalents              | 현금및현금성자산                   | BS      | stock |
 * | retained_earnings   | ifrs-full_RetainedEarnings                    | 이익잉여금, 이익잉여금(결손금)       | BS      | stock |
 *
 * Kinds: `flow` — quarterly reports carry the three-month amount in
 * thstrm_amount (thstrm_add_amount is year-to-date), the annual report the
 * full year; `ytd` — cash-flow statements are year-to-date in every report;
 * `stock` — balance-sheet values at the period end. shares_outstanding and
 * dividends_per_share are not in this API (stockTotqySttus / alotMatter) and stay null.
 */
import type { FinancialValueField } from './financials-csv.js';

/** How a mapped account's amounts relate to the quarter. */
export type AccountKind = 'flow' | 'ytd' | 'stock';

/** One mapping rule. */
export interface AccountRule {
  field: FinancialValueField;
  ids: readonly string[];
  names: readonly string[];
  statements: readonly string[];
  kind: AccountKind;
}

const PL = ['IS', 'CIS'] as const;

/** The mapping table (see the file comment). */
export const DART_ACCOUNT_RULES: readonly AccountRule[] = [
  { field: 'revenue', ids: ['ifrs-full_Revenue'], names: ['매출액', '수익(매출액)', '영업수익', '매출'], statements: PL, kind: 'flow' },
  { field: 'gross_profit', ids: ['ifrs-full_GrossProfit'], names: ['매출총이익'], statements: PL, kind: 'flow' },
  { field: 'operating_profit', ids: ['dart_OperatingIncomeLoss'], names: ['영업이익', '영업이익(손실)'], statements: PL, kind: 'flow' },
  {
    field: 'net_profit', ids: ['ifrs-full_ProfitLoss'],
    names: ['당기순이익', '당기순이익(손실)', '분기순이익', '분기순이익(손실)', '반기순이익', '반기순이익(손실)'], statements: PL, kind: 'flow',
  },
  {
    field: 'operating_cash_flow', ids: ['ifrs-full_CashFlowsFromUsedInOperatingActivities'],
    names: ['영업활동현금흐름', '영업활동으로인한현금흐름'], statements: ['CF'], kind: 'ytd',
  },
  { field: 'total_assets', ids: ['ifrs-full_Assets'], names: ['자산총계'], statements: ['BS'], kind: 'stock' },
  { field: 'total_liabilities', ids: ['ifrs-full_Liabilities'], names: ['부채총계'], statements: ['BS'], kind: 'stock' },
  { field: 'equity', ids: ['ifrs-full_Equity'], names: ['자본총계'], statements: ['BS'], kind: 'stock' },
  { field: 'current_assets', ids: ['ifrs-full_CurrentAssets'], names: ['유동자산'], statements: ['BS'], kind: 'stock' },
  { field: 'current_liabilities', ids: ['ifrs-full_CurrentLiabilities'], names: ['유동부채'], statements: ['BS'], kind: 'stock' },
  { field: 'long_term_debt', ids: ['ifrs-full_LongtermBorrowings'], names: ['장기차입금'], statements: ['BS'], kind: 'stock' },
  { field: 'cash', ids: ['ifrs-full_CashAndCashEquivalents'], names: ['현금및현금성자산'], statements: ['BS'], kind: 'stock' },
  { field: 'retained_earnings', ids: ['ifrs-full_RetainedEarnings'], names: ['이익잉여금', '이익잉여금(결손금)'], statements: ['BS'], kind: 'stock' },
];

/** reprt_code → the fiscal quarter the report closes (11011 is the annual report). */
export const REPORT_QUARTER: Readonly<Record<string, number>> = { '11013': 1, '11012': 2, '11014': 3, '11011': 4 };

/** A rule and whether it matched by id (preferred) or by name. */
export interface AccountMatch {
  rule: AccountRule;
  byId: boolean;
}

/** The rule an item matches, or null. */
export function matchAccount(sjDiv: string, accountId: string, accountName: string): AccountMatch | null {
  const id = accountId.replace(/^ifrs_/, 'ifrs-full_');
  const name = accountName.replace(/\s/g, '');
  let byName: AccountRule | null = null;
  for (const rule of DART_ACCOUNT_RULES) {
    if (!rule.statements.includes(sjDiv)) continue;
    if (rule.ids.includes(id)) return { rule, byId: true };
    if (byName === null && rule.names.includes(name)) byName = rule;
  }
  return byName ? { rule: byName, byId: false } : null;
}
