import { describe, expect, it } from 'vitest';
import { deriveQuarters, emptyQuarter, type ReportedAmount } from '../../../../daemon/kernel/financial-reports.js';

const filed = (quarter: number, field: ReportedAmount['field'], kind: ReportedAmount['kind'], amount: number, ytd: number | null = null): ReportedAmount => ({
  stock_code: '005930', fiscal_year: 2025, fiscal_quarter: quarter, field, kind, amount, ytd,
});
const stored = (quarter: number, values: Partial<Record<ReportedAmount['field'], number>>) => ({ ...emptyQuarter('005930', 2025, quarter), ...values });

describe('deriveQuarters', () => {
  it('derives Q4 flows as annual − (Q1 + Q2 + Q3), preferring Q3\'s year-to-date figure', () => {
    // Revenue: Q3 gives its year to date (225): 310 − 225 = 85. Net profit: 38 − (8 + 9 + 11) = 10.
    const quarters = deriveQuarters([
      filed(1, 'net_profit', 'flow', 8), filed(2, 'net_profit', 'flow', 9), filed(3, 'net_profit', 'flow', 11), filed(4, 'net_profit', 'flow', 38),
      filed(3, 'revenue', 'flow', 80, 225), filed(4, 'revenue', 'flow', 310),
    ]);
    expect(quarters.map((q) => [q.fiscal_quarter, q.revenue, q.net_profit])).toEqual([[1, null, 8], [2, null, 9], [3, 80, 11], [4, 85, 10]]);
  });

  it('uses stored quarter-alone figures where a report is missing', () => {
    // Only the annual report is filed; Q1–Q3 come from storage (e.g. a statements CSV).
    const [q4] = deriveQuarters(
      [filed(4, 'operating_profit', 'flow', 50), filed(4, 'operating_cash_flow', 'ytd', 60)],
      [stored(1, { operating_profit: 10, operating_cash_flow: 12 }), stored(2, { operating_profit: 12, operating_cash_flow: 13 }), stored(3, { operating_profit: 14, operating_cash_flow: 15 })],
    );
    expect(q4).toMatchObject({ fiscal_quarter: 4, operating_profit: 14, operating_cash_flow: 20 });
  });

  it('de-cumulates cash flow against the previous report, filed or rebuilt from stored quarters', () => {
    const quarters = deriveQuarters(
      [filed(1, 'operating_cash_flow', 'ytd', 12), filed(3, 'operating_cash_flow', 'ytd', 40)],
      [stored(2, { operating_cash_flow: 13 })],
    );
    // Q3: 40 − (Q1 filed 12 + Q2 stored 13) = 15
    expect(quarters.map((q) => [q.fiscal_quarter, q.operating_cash_flow])).toEqual([[1, 12], [3, 15]]);
  });

  it('leaves a figure null when it cannot be derived, and keeps balance-sheet values as filed', () => {
    const [q4] = deriveQuarters([filed(4, 'revenue', 'flow', 310), filed(4, 'operating_cash_flow', 'ytd', 60), filed(4, 'total_assets', 'stock', 540)], [stored(1, { revenue: 70 })]);
    expect(q4).toMatchObject({ revenue: null, operating_cash_flow: null, total_assets: 540, dividends_per_share: null });
  });
});
