import { describe, expect, it } from 'vitest';
import { createFinancialView } from '../../../../daemon/indicators/financials.js';
import {
  growthIndicators,
  profitabilityIndicators,
  valuationIndicators,
} from '../../../../daemon/indicators/fundamentals.js';
import { expectNear } from './expect-close.js';
import { companyA, quarter } from './financial-fixtures.js';

// Company A priced at close 1,000 with 1,000 listed shares: market cap 1,000,000.
const PRICE = { close: 1_000, marketCap: 1_000_000, shares: 1_000 };

describe('TTM view', () => {
  it('sums the last four consecutive quarters and refuses gaps', () => {
    const view = createFinancialView(companyA());
    expect(view.ttm('revenue')).toBe(480_000); // 4 × 120,000
    expect(view.ttm('revenue', 4)).toBe(400_000); // 4 × 100,000 a year earlier
    const gap = companyA().filter((q) => !(q.fiscal_year === 2024 && q.fiscal_quarter === 2));
    expect(createFinancialView(gap).ttm('revenue')).toBeNull();
  });
});

describe('valuationIndicators (Company A)', () => {
  const v = valuationIndicators(createFinancialView(companyA()), PRICE);

  it('computes the price multiples by hand', () => {
    expectNear(v.per, 25, 1e-9); // 1,000,000 / 40,000
    expectNear(v.pbr, 1_000_000 / 560_000, 1e-9); // 1.785714
    expectNear(v.psr, 1_000_000 / 480_000, 1e-9); // 2.083333
    expectNear(v.por, 1_000_000 / 60_000, 1e-9); // 16.6667
    expectNear(v.earnings_yield, 4, 1e-9); // 40,000 / 1,000,000 × 100
  });

  it('computes per-share figures and the derived ratios', () => {
    expectNear(v.eps, 40, 1e-9); // 40,000 / 1,000
    expectNear(v.bps, 560, 1e-9); // 560,000 / 1,000
    expectNear(v.graham_ratio, 1.4085904, 1e-6); // 1000 / √(22.5 × 40 × 560) = 1000 / 709.93
    expectNear(v.peg, 0.25, 1e-9); // PER 25 / net profit growth 100%
    expectNear(v.dividend_yield, 2, 1e-9); // TTM DPS 20 / 1,000 × 100
    expectNear(v.enterprise_value, 1_200_000, 1e-9); // 1,000,000 + 250,000 − 50,000
    expectNear(v.ev_ebit, 20, 1e-9); // 1,200,000 / 60,000
  });

  it('leaves PER and PEG null for a loss-maker; earnings yield goes negative', () => {
    const loss = companyA().map((q) => (q.fiscal_year === 2024 ? { ...q, net_profit: -5_000 } : q));
    const lv = valuationIndicators(createFinancialView(loss), PRICE);
    expect(lv.per).toBeNull();
    expect(lv.peg).toBeNull();
    expect(lv.graham_ratio).toBeNull();
    expectNear(lv.earnings_yield, -2, 1e-9); // −20,000 / 1,000,000 × 100
  });

  it('is null per share with zero shares and for PBR with negative equity', () => {
    const zero = valuationIndicators(createFinancialView(companyA()), { ...PRICE, shares: 0 });
    expect(zero.eps).toBeNull();
    expect(zero.bps).toBeNull();
    const negative = companyA().map((q) => ({ ...q, equity: -10 }));
    expect(valuationIndicators(createFinancialView(negative), PRICE).pbr).toBeNull();
  });

  it('has a null dividend yield when no quarter reports a dividend', () => {
    const none = companyA().map((q) => ({ ...q, dividends_per_share: null }));
    expect(valuationIndicators(createFinancialView(none), PRICE).dividend_yield).toBeNull();
  });

  it('is all null without statements', () => {
    const empty = valuationIndicators(createFinancialView([]), PRICE);
    expect(Object.values(empty).every((x) => x === null)).toBe(true);
  });
});

describe('profitabilityIndicators (Company A)', () => {
  const p = profitabilityIndicators(createFinancialView(companyA()));

  it('computes returns on average equity and assets', () => {
    expectNear(p.roe, (40_000 / 530_000) * 100, 1e-9); // avg equity (560,000 + 500,000)/2 → 7.5472%
    expectNear(p.roa, (40_000 / 1_050_000) * 100, 1e-9); // avg assets → 3.8095%
    expectNear(p.asset_turnover, 480_000 / 1_050_000, 1e-9); // 0.457143
  });

  it('computes TTM margins and balance-sheet ratios', () => {
    expectNear(p.operating_margin, 12.5, 1e-9); // 60,000 / 480,000
    expectNear(p.net_margin, (40_000 / 480_000) * 100, 1e-9); // 8.3333
    expectNear(p.gross_margin, (160_000 / 480_000) * 100, 1e-9); // 33.3333
    expectNear(p.debt_ratio, (540_000 / 560_000) * 100, 1e-9); // 96.43 (부채비율)
    expectNear(p.equity_ratio, (560_000 / 1_100_000) * 100, 1e-9); // 50.91
    expectNear(p.current_ratio, 165, 1e-9); // 330,000 / 200,000 × 100
    expectNear(p.return_on_capital, (60_000 / 900_000) * 100, 1e-9); // capital = 1,100,000 − 200,000
  });

  it('uses the latest equity alone when only four quarters exist', () => {
    const recent = profitabilityIndicators(createFinancialView(companyA().slice(4)));
    expectNear(recent.roe, (40_000 / 560_000) * 100, 1e-9);
  });

  it('returns null margins on zero revenue and null ROE/debt ratio on negative equity', () => {
    const zeroRevenue = companyA().map((q) => ({ ...q, revenue: 0 }));
    expect(profitabilityIndicators(createFinancialView(zeroRevenue)).operating_margin).toBeNull();
    const negative = companyA().map((q) => ({ ...q, equity: -100_000 }));
    const n = profitabilityIndicators(createFinancialView(negative));
    expect(n.roe).toBeNull();
    expect(n.debt_ratio).toBeNull();
  });

  it('derives liabilities as assets − equity when they are not reported', () => {
    const noLiabilities = companyA().map((q) => ({ ...q, total_liabilities: null }));
    // 1,100,000 − 560,000 = 540,000 → same 96.43%
    expectNear(profitabilityIndicators(createFinancialView(noLiabilities)).debt_ratio, (540_000 / 560_000) * 100, 1e-9);
  });
});

describe('growthIndicators', () => {
  it('compares TTM with the TTM a year earlier (Company A)', () => {
    const g = growthIndicators(createFinancialView(companyA()));
    expectNear(g.revenue_growth_yoy, 20, 1e-9); // 480,000 / 400,000 − 1
    expectNear(g.operating_profit_growth_yoy, 87.5, 1e-9); // 60,000 / 32,000 − 1
    expectNear(g.net_profit_growth_yoy, 100, 1e-9); // 40,000 / 20,000 − 1
    expectNear(g.revenue_growth_qoq, 0, 1e-9); // 120,000 vs 120,000
    expect(g.turnaround).toBe(0); // year-ago quarter was already profitable
  });

  it('is null when the base is a loss and needs eight quarters for YoY', () => {
    const lossBase = companyA().map((q) => (q.fiscal_year === 2023 ? { ...q, net_profit: -1_000, operating_profit: -2_000 } : q));
    const g = growthIndicators(createFinancialView(lossBase));
    expect(g.net_profit_growth_yoy).toBeNull();
    expect(g.turnaround).toBe(1); // 2024Q4 +15,000 vs 2023Q4 −2,000: 흑자전환
    expect(growthIndicators(createFinancialView(companyA().slice(1))).revenue_growth_yoy).toBeNull();
  });

  it('has a null turnaround without the year-ago quarter', () => {
    expect(growthIndicators(createFinancialView([quarter(2024, 4, { operating_profit: 5 })])).turnaround).toBeNull();
  });
});
