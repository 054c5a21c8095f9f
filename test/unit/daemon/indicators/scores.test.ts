import { describe, expect, it } from 'vitest';
import { createFinancialView } from '../../../../daemon/indicators/financials.js';
import { altmanZ, piotroskiFScore, piotroskiTests } from '../../../../daemon/indicators/scores.js';
import { expectNear } from './expect-close.js';
import { companyA } from './financial-fixtures.js';

describe('piotroski F-score (Company A, 8 quarters)', () => {
  // TTM 2024 vs TTM 2023, balance 2024Q4 vs 2023Q4:
  // 1 ROA > 0: 40,000 / 1,100,000 > 0                         pass
  // 2 CFO > 0: 48,000                                          pass
  // 3 ΔROA: 0.0364 vs 20,000 / 1,000,000 = 0.02                 pass
  // 4 CFO 48,000 > net profit 40,000                           pass
  // 5 leverage: 250/1,100 = 0.227 vs 200/1,000 = 0.200 (up)    fail
  // 6 current ratio: 1.65 vs 1.50                              pass
  // 7 shares: 1,050 vs 1,000 (new shares issued)               fail
  // 8 gross margin: 160/480 = 0.333 vs 120/400 = 0.300         pass
  // 9 asset turnover: 480/1,100 = 0.436 vs 400/1,000 = 0.400   pass
  // → 7
  it('scores 7 with the leverage and dilution tests failing', () => {
    const view = createFinancialView(companyA());
    expect(piotroskiFScore(view)).toBe(7);
    const tests = piotroskiTests(view);
    expect(tests.leverageDown).toBe(false);
    expect(tests.noDilution).toBe(false);
    expect(tests.roaImproved).toBe(true);
  });

  it('counts tests with missing inputs as failed', () => {
    // Without cash-flow data tests 2 and 4 cannot pass: 7 − 2 = 5.
    const noCfo = companyA().map((q) => ({ ...q, operating_cash_flow: null }));
    expect(piotroskiFScore(createFinancialView(noCfo))).toBe(5);
    // With 2024 only, only tests 1, 2 and 4 are evaluable: 3.
    expect(piotroskiFScore(createFinancialView(companyA().slice(4)))).toBe(3);
  });

  it('is null without TTM net profit or total assets', () => {
    expect(piotroskiFScore(createFinancialView(companyA().slice(5)))).toBeNull();
    const noAssets = companyA().map((q) => ({ ...q, total_assets: null }));
    expect(piotroskiFScore(createFinancialView(noAssets))).toBeNull();
  });

  it('passes the leverage test when debt fell', () => {
    const lessDebt = companyA().map((q) => (q.fiscal_year === 2024 ? { ...q, long_term_debt: 100_000 } : q));
    expect(piotroskiFScore(createFinancialView(lessDebt))).toBe(8);
  });
});

describe("altman Z''", () => {
  it('weights working capital, retained earnings, EBIT and book leverage (Company A)', () => {
    // X1 = (330,000 − 200,000) / 1,100,000 = 0.118182   × 6.56 = 0.775273
    // X2 = 300,000 / 1,100,000 = 0.272727               × 3.26 = 0.889091
    // X3 = 60,000 / 1,100,000 = 0.054545                × 6.72 = 0.366545
    // X4 = 560,000 / 540,000 = 1.037037                 × 1.05 = 1.088889
    // Z'' = 3.119798
    expectNear(altmanZ(createFinancialView(companyA())), 3.119798, 1e-6);
  });

  it('is null when an input is missing', () => {
    const noRetained = companyA().map((q) => ({ ...q, retained_earnings: null }));
    expect(altmanZ(createFinancialView(noRetained))).toBeNull();
  });
});
