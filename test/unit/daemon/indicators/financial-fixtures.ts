/** Hand-built quarterly statements for the fundamentals and score tests. */
import type { FinancialQuarter } from '../../../../daemon/kernel/records.js';

/** A quarter with every optional field null unless given. */
export function quarter(fiscal_year: number, fiscal_quarter: number, fields: Partial<FinancialQuarter> = {}): FinancialQuarter {
  return {
    stock_code: '000001',
    fiscal_year,
    fiscal_quarter,
    revenue: null,
    operating_profit: null,
    net_profit: null,
    total_assets: null,
    equity: null,
    gross_profit: null,
    operating_cash_flow: null,
    total_liabilities: null,
    current_assets: null,
    current_liabilities: null,
    long_term_debt: null,
    cash: null,
    retained_earnings: null,
    shares_outstanding: null,
    dividends_per_share: null,
    ...fields,
  };
}

/**
 * "Company A", 2023Q1–2024Q4 (oldest first). Every 2023 quarter: revenue 100,000,
 * gross profit 30,000, operating profit 8,000, net profit 5,000, CFO 6,000.
 * Every 2024 quarter: revenue 120,000, gross profit 40,000, operating profit 15,000,
 * net profit 10,000, CFO 12,000. Balance sheet (same within a year):
 *   2023: assets 1,000,000, equity 500,000, liabilities 500,000, long-term debt 200,000,
 *         current assets 300,000, current liabilities 200,000, shares 1,000
 *   2024: assets 1,100,000, equity 560,000, liabilities 540,000, long-term debt 250,000,
 *         current assets 330,000, current liabilities 200,000, shares 1,050,
 *         cash 50,000, retained earnings 300,000; a 20 KRW dividend in 2024Q2 only.
 */
export function companyA(): FinancialQuarter[] {
  const out: FinancialQuarter[] = [];
  for (let q = 1; q <= 4; q++) {
    out.push(
      quarter(2023, q, {
        revenue: 100_000,
        gross_profit: 30_000,
        operating_profit: 8_000,
        net_profit: 5_000,
        operating_cash_flow: 6_000,
        total_assets: 1_000_000,
        equity: 500_000,
        total_liabilities: 500_000,
        long_term_debt: 200_000,
        current_assets: 300_000,
        current_liabilities: 200_000,
        shares_outstanding: 1_000,
      }),
    );
  }
  for (let q = 1; q <= 4; q++) {
    out.push(
      quarter(2024, q, {
        revenue: 120_000,
        gross_profit: 40_000,
        operating_profit: 15_000,
        net_profit: 10_000,
        operating_cash_flow: 12_000,
        total_assets: 1_100_000,
        equity: 560_000,
        total_liabilities: 540_000,
        long_term_debt: 250_000,
        current_assets: 330_000,
        current_liabilities: 200_000,
        shares_outstanding: 1_050,
        cash: 50_000,
        retained_earnings: 300_000,
        dividends_per_share: q === 2 ? 20 : null,
      }),
    );
  }
  return out;
}
