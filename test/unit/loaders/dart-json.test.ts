import { describe, it, expect } from 'vitest';
import { dartJsonLoader } from '../../../loaders/dart-json.js';

const B = 1_000_000_000; // amounts below in billions of won
type Item = Record<string, string>;
const item = (reprt: string, sj: string, id: string, nm: string, amount: number, add?: number): Item => ({
  rcept_no: '20250515000001', reprt_code: reprt, bsns_year: '2025', corp_code: '00126380', sj_div: sj,
  account_id: id, account_nm: nm, thstrm_amount: String(amount * B), ...(add === undefined ? {} : { thstrm_add_amount: String(add * B) }),
});
const NO_ID = '-표준계정코드 미사용-';

function report(reprt: string, v: { rev: number; revAdd?: number; op: number; net: number; ocf: number; assets: number }): Item[] {
  return [
    item(reprt, 'BS', 'ifrs-full_Assets', '자산총계', v.assets),
    item(reprt, 'BS', 'ifrs-full_Liabilities', '부채총계', v.assets - 300),
    item(reprt, 'BS', 'ifrs-full_Equity', '자본총계', 300),
    item(reprt, 'IS', 'ifrs-full_Revenue', '매출액', v.rev, v.revAdd),
    item(reprt, 'IS', NO_ID, '영업이익(손실)', v.op), // no standard id: matched by name
    item(reprt, 'IS', 'ifrs-full_ProfitLoss', '분기순이익', v.net),
    item(reprt, 'CIS', 'ifrs-full_ProfitLoss', '분기순이익', v.net + 1_000), // IS wins over CIS
    item(reprt, 'CF', 'ifrs-full_ProfitLoss', '당기순이익', 777), // not the P&L: ignored
    item(reprt, 'CF', 'ifrs-full_CashFlowsFromUsedInOperatingActivities', '영업활동현금흐름', v.ocf),
    item(reprt, 'IS', 'ifrs-full_CostOfSales', '매출원가', 1), // not used by the service
  ];
}

// One year's four reports. Quarterly revenue is the 3-month amount with the
// year-to-date in thstrm_add_amount; cash flow is year-to-date everywhere.
const year = [
  { status: '000', message: '정상', list: report('11013', { rev: 70, revAdd: 70, op: 10, net: 8, ocf: 12, assets: 500 }) },
  { status: '000', message: '정상', list: report('11012', { rev: 75, revAdd: 145, op: 12, net: 9, ocf: 25, assets: 510 }) },
  { status: '000', message: '정상', list: report('11014', { rev: 80, revAdd: 225, op: 14, net: 11, ocf: 40, assets: 520 }) },
  { status: '000', message: '정상', list: report('11011', { rev: 310, op: 50, net: 38, ocf: 60, assets: 540 }) },
];

describe('dart-json', () => {
  const result = dartJsonLoader.parse(JSON.stringify(year), '/dart/005930_2025.json', {});
  const q = (n: number) => result.financials.find((f) => f.fiscal_quarter === n);

  it('maps accounts by id, falls back to names, and keeps quarterly flows as reported', () => {
    expect(result.financials.map((f) => [f.stock_code, f.fiscal_year, f.fiscal_quarter])).toEqual([
      ['005930', 2025, 1], ['005930', 2025, 2], ['005930', 2025, 3], ['005930', 2025, 4],
    ]);
    expect(q(2)).toMatchObject({ revenue: 75 * B, operating_profit: 12 * B, net_profit: 9 * B, total_assets: 510 * B, equity: 300 * B, total_liabilities: 210 * B });
  });

  it('derives Q4 flows as annual minus the first three quarters', () => {
    // revenue: 310 − 225 (Q3 year-to-date) = 85; operating profit: 50 − (10 + 12 + 14) = 14; net: 38 − (8 + 9 + 11) = 10
    expect(q(4)).toMatchObject({ revenue: 85 * B, operating_profit: 14 * B, net_profit: 10 * B, total_assets: 540 * B });
  });

  it('turns year-to-date cash flow into quarterly amounts', () => {
    // 12, 25 − 12 = 13, 40 − 25 = 15, 60 − 40 = 20
    expect([1, 2, 3, 4].map((n) => q(n)?.operating_cash_flow)).toEqual([12 * B, 13 * B, 15 * B, 20 * B]);
  });

  it('counts unused accounts as skipped and leaves fields the API lacks null', () => {
    expect(result.rows_total).toBe(40);
    // Per report: CF ProfitLoss and CostOfSales are not used; the CIS net profit repeats the IS one.
    expect(result.skipped).toEqual(expect.arrayContaining([
      { reason: 'account not used by the service', count: 8 },
      { reason: 'account given twice in one report (the first, or the one with the standard account id, is used)', count: 4 },
    ]));
    expect(result.skipped).toHaveLength(2);
    expect(result.rows_ok).toBe(40 - 12);
    expect(q(1)).toMatchObject({ dividends_per_share: null, shares_outstanding: null, gross_profit: null });
  });

  it('cannot derive Q4 flows from an annual report alone', () => {
    const annual = dartJsonLoader.parse(JSON.stringify(year[3]), 'x.json', { code: '000660' });
    expect(annual.financials).toHaveLength(1);
    expect(annual.financials[0]).toMatchObject({ stock_code: '000660', fiscal_quarter: 4, revenue: null, total_assets: 540 * B });
  });

  it('keeps every amount as filed, with the position of its item, for storage to derive quarters across files', () => {
    // 7 mapped accounts per report × 4 reports; the annual revenue is the full year.
    expect(result.financial_reports).toHaveLength(28);
    expect(result.lines.financial_reports).toHaveLength(28);
    const annualRevenue = result.financial_reports.findIndex((a) => a.fiscal_quarter === 4 && a.field === 'revenue');
    expect(result.financial_reports[annualRevenue]).toEqual({
      stock_code: '005930', fiscal_year: 2025, fiscal_quarter: 4, field: 'revenue', kind: 'flow', amount: 310 * B, ytd: null,
    });
    expect(result.lines.financial_reports[annualRevenue]).toBe(34); // 4th report (items 31–40), 4th item
    const q3Cash = result.financial_reports.find((a) => a.fiscal_quarter === 3 && a.field === 'operating_cash_flow');
    expect(q3Cash).toMatchObject({ kind: 'ytd', amount: 40 * B });
    // Each derived quarter points at its report's first item.
    expect(result.lines.financials).toEqual([1, 11, 21, 31]);
  });

  it('treats status 013 (no data) as empty and other statuses as errors', () => {
    expect(dartJsonLoader.parse('{"status":"013","message":"조회된 데이타가 없습니다."}', '005930.json', {}).financials).toEqual([]);
    expect(() => dartJsonLoader.parse('{"status":"020","message":"요청 제한을 초과하였습니다."}', '005930.json', {})).toThrow(/status 020/);
  });
});
