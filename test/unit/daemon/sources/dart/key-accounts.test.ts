/** Key-account items of one company as stored statements: consolidated first, receipt dates, Q4 from the annual report. */
import { describe, expect, it } from 'vitest';
import { companyStatements, groupByCompany, receiptDate, type CompanyItems, type KeyAccountItem } from '../../../../../daemon/sources/dart/key-accounts.js';
import { period } from '../../../../../daemon/sources/dart/periods.js';

const item = (reprt_code: string, rcept_no: string, fs_div: string, sj_div: string, account_nm: string, thstrm_amount: string, thstrm_add_amount?: string): KeyAccountItem =>
  ({ rcept_no, bsns_year: '2024', corp_code: '00126380', stock_code: '005930', reprt_code, fs_div, sj_div, account_nm, thstrm_amount, thstrm_add_amount });

describe('receiptDate', () => {
  it('is the first eight digits of a 14-digit rcept_no, when they are a real date', () => {
    expect(receiptDate('20241114002642')).toBe('2024-11-14');
    expect(receiptDate('20240231000001')).toBeNull();
    expect(receiptDate('2024111400264')).toBeNull();
    expect(receiptDate(undefined)).toBeNull();
  });
});

describe('companyStatements', () => {
  const grouped = new Map<string, CompanyItems>();
  groupByCompany([
    item('11014', '20241114002642', 'OFS', 'IS', '매출액', '1', '3'),
    item('11014', '20241114002642', 'CFS', 'IS', '매출액', '9,183,371,000,000', '26,233,258,000,000'),
    item('11014', '20241114002642', 'CFS', 'BS', '자산총계', '485,757,000,000,000'),
    // Another year's item in the same answer is not this period's
    { ...item('11014', '20231114000001', 'CFS', 'IS', '매출액', '5'), bsns_year: '2023' },
  ], period(2024, 3), grouped);
  groupByCompany([item('11011', '20250311001085', 'CFS', 'IS', '매출액', '30,000,000,000,000')], period(2024, 4), grouped);

  it('uses the consolidated items, comma amounts as numbers, each quarter dated by its receipt, Q4 = annual − Q3 year to date', () => {
    const { batch } = companyStatements('005930', '00126380', grouped.get('00126380'));
    const byQuarter = new Map(batch.financials.map((q) => [q.fiscal_quarter, q]));
    expect(byQuarter.get(3)).toMatchObject({ revenue: 9_183_371_000_000, total_assets: 485_757_000_000_000, disclosed_on: '2024-11-14' });
    expect(byQuarter.get(4)).toMatchObject({ revenue: 30_000_000_000_000 - 26_233_258_000_000, disclosed_on: '2025-03-11' });
    expect(batch.financial_reports).toHaveLength(3);
  });

  it('hashes what was answered: the same items the same hash, a changed amount another', () => {
    const a = companyStatements('005930', '00126380', grouped.get('00126380')).hash;
    expect(companyStatements('005930', '00126380', grouped.get('00126380')).hash).toBe(a);
    const changed = new Map([...grouped.get('00126380')!].map(([k, v]) => [k, v.map((i) => ({ ...i, thstrm_amount: i.account_nm === '자산총계' ? '1' : i.thstrm_amount }))]));
    expect(companyStatements('005930', '00126380', changed).hash).not.toBe(a);
  });

  it('a company with nothing filed is an empty unit, not an error', () => {
    const { batch } = companyStatements('000660', '00164779', undefined);
    expect(batch.financials).toEqual([]);
    expect(batch.rows_total).toBe(0);
  });
});
