/**
 * One name, one number: the debt_ratio (and the other statement ratios) that
 * GET /stocks/{code}/financials shows beside a quarter and the debt_ratio indicator a screen
 * reads are the same definition — total liabilities (else total assets − equity) / equity × 100,
 * null when equity ≤ 0. Expected values are computed here from the loaded statements.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FinancialQuarter } from '../../../daemon/kernel/records.js';
import { waitForJob } from '../../helpers/jobs.js';
import { bar, stock } from '../../helpers/portfolio-harness.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };

/** The latest quarter of each stock: reported liabilities, negative equity, zero equity, liabilities not reported. */
const SHEETS: Record<string, Pick<FinancialQuarter, 'total_assets' | 'equity' | 'total_liabilities' | 'current_assets' | 'current_liabilities' | 'revenue' | 'operating_profit'>> = {
  '300010': { total_assets: 5e9, equity: 2e9, total_liabilities: 3e9, current_assets: 1.5e9, current_liabilities: 1e9, revenue: 1e9, operating_profit: 1e8 },
  '300020': { total_assets: 4e9, equity: -5e8, total_liabilities: 4.5e9, current_assets: 1e9, current_liabilities: 2e9, revenue: 8e8, operating_profit: -1e8 },
  '300030': { total_assets: 3e9, equity: 0, total_liabilities: 3e9, current_assets: 1e9, current_liabilities: 0, revenue: -1e7, operating_profit: 1e6 },
  '300040': { total_assets: 6e9, equity: 4e9, total_liabilities: null, current_assets: null, current_liabilities: null, revenue: 2e9, operating_profit: 3e8 },
};
const CODES = Object.keys(SHEETS);

/** Reference: liabilities as reported, else assets − equity; divided by equity only when equity is positive. */
function expectedDebtRatio(s: (typeof SHEETS)[string]): number | null {
  const liabilities = s.total_liabilities ?? (s.total_assets! - s.equity!);
  return s.equity! > 0 ? (liabilities / s.equity!) * 100 : null;
}

describe('statement ratios: the financials endpoint and the indicators agree', () => {
  let t: TestDaemon;
  let token: string;
  beforeAll(async () => {
    t = await startTestDaemon('statement-ratios', { workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password } as never);
    await t.daemon.context().store.marketData.apply({
      stocks: CODES.map((c) => stock(c, `Stock ${c}`, 'KOSPI', 'Tech', 1_000_000)),
      bars: CODES.flatMap((c) => ['2025-03-03', '2025-03-04'].map((d) => bar(c, d, 10_000))),
      halts: [], index: [],
      financials: CODES.map((c) => ({
        stock_code: c, fiscal_year: 2024, fiscal_quarter: 3, net_profit: 5e7, gross_profit: null, operating_cash_flow: null, long_term_debt: null,
        cash: null, retained_earnings: null, shares_outstanding: null, dividends_per_share: null, disclosed_on: '2024-11-14', ...SHEETS[c]!,
      })),
    });
    const admin = ((await (await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN })).json()) as { access_token: string }).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'compute-indicators' } });
    await waitForJob(t.daemon, ((await job.json()) as { data: { id: string } }).data.id);
    token = (await t.login()).access_token;
  }, 60_000);
  afterAll(() => t?.close());

  it('computes debt_ratio once: null for equity ≤ 0, the assets − equity fallback when liabilities are not reported', async () => {
    // When the quarters are read from the financials endpoint and the indicator from a screen
    const screened = await t.request('/api/v1/screen', { method: 'POST', token, json: { fields: ['debt_ratio', 'equity_ratio', 'current_ratio'], per_page: 10 } });
    const rows = ((await screened.json()) as { stocks: Record<string, number | string | null>[] }).stocks;
    expect(rows.map((r) => r.code).sort()).toEqual(CODES);
    for (const code of CODES) {
      const sheet = SHEETS[code]!;
      const quarter = ((await (await t.request(`/api/v1/stocks/${code}/financials`, { token })).json()) as { data: Record<string, number | null>[] }).data[0]!;
      const indicator = rows.find((r) => r.code === code)!;
      const debt = expectedDebtRatio(sheet);
      // Then both are the reference value
      for (const got of [quarter.debt_ratio, indicator.debt_ratio]) {
        if (debt === null) expect(got, code).toBeNull();
        else expect(got, code).toBeCloseTo(debt, 9);
      }
      // And so are the other ratios of the same names
      const equityRatio = (sheet.equity! / sheet.total_assets!) * 100;
      const currentRatio = sheet.current_liabilities ? (sheet.current_assets! / sheet.current_liabilities) * 100 : null;
      expect(quarter.equity_ratio, code).toBeCloseTo(equityRatio, 9);
      expect(indicator.equity_ratio, code).toBeCloseTo(equityRatio, 9);
      expect([quarter.current_ratio, indicator.current_ratio], code).toEqual([currentRatio, currentRatio]);
      // A quarter's margin is undefined without positive revenue, as the TTM indicator's is
      const margin = sheet.revenue! > 0 ? (sheet.operating_profit! / sheet.revenue!) * 100 : null;
      if (margin === null) expect(quarter.operating_margin, code).toBeNull();
      else expect(quarter.operating_margin, code).toBeCloseTo(margin, 9);
    }
  });
});
