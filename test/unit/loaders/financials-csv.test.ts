import { describe, it, expect } from 'vitest';
import { financialsCsvLoader } from '../../../loaders/financials-csv.js';

describe('financials-csv', () => {
  it('reads the named fields, null for blank or absent ones', () => {
    const csv = 'code,fiscal_year,fiscal_quarter,revenue,net_profit,equity,dividends_per_share,unknown_col\n005930,2025,4,"93,837,000,000,000",,402000000000000,566,x\n';
    const result = financialsCsvLoader.parse(csv, 'fin.csv', {});
    expect(result.financials[0]).toMatchObject({
      stock_code: '005930', fiscal_year: 2025, fiscal_quarter: 4, revenue: 93_837_000_000_000, net_profit: null,
      equity: 402_000_000_000_000, dividends_per_share: 566, operating_profit: null, cash: null,
    });
  });

  it('rejects quarter 5 and non-numeric values', () => {
    const csv = 'code,fiscal_year,fiscal_quarter,revenue\n005930,2025,5,1\n005930,2025,1,abc\n005930,2025,2,3\n';
    const result = financialsCsvLoader.parse(csv, 'fin.csv', { maxBadRatio: 1 });
    expect(result.rejected.map((r) => [r.line, r.reason])).toEqual([[2, 'invalid fiscal quarter 5'], [3, 'non-numeric revenue "abc"']]);
    expect(result.financials).toHaveLength(1);
  });

  it('reads an optional disclosed_on date and rejects a malformed one', () => {
    const csv = 'code,fiscal_year,fiscal_quarter,net_profit,disclosed_on\n005930,2025,3,1,2025-11-14\n005930,2025,2,1,\n005930,2025,1,1,14/05/2025\n';
    const result = financialsCsvLoader.parse(csv, 'fin.csv', { maxBadRatio: 1 });
    expect(result.financials.map((f) => f.disclosed_on ?? null)).toEqual(['2025-11-14', null]);
    expect(result.rejected.map((r) => r.line)).toEqual([4]);
  });
});
