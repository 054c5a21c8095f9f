/**
 * Backtests and disclosure dates over HTTP on a hand-built market, on each storage
 * backend: the equity curve matches a hand computation to the won (fees and tax included), a
 * halted stock is held at its last close, a delisted one is sold at its last price, a
 * statement is used only from its disclosure date, runs are their owner's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DailyBar, FinancialQuarter, HaltRecord } from '../../../daemon/kernel/records.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const DATES = ['2025-01-02', '2025-01-03', '2025-01-06', '2025-01-07', '2025-01-08', '2025-01-09', '2025-01-10', '2025-01-13'];
const CODES = ['00000A', '00000B', '00000C', '00000D', '00000E'];
const bar = (code: string, day: number, open: number, close: number): DailyBar => ({
  stock_code: code, trade_date: DATES[day]!, open_price: open, high_price: Math.max(open, close), low_price: Math.min(open, close),
  close_price: close, volume: 1000, trading_value: 1000 * close, market_cap: null, shares_outstanding: 1_000_000,
});
const quarter = (year: number, q: number, disclosed_on: string | null): FinancialQuarter => ({
  stock_code: '00000E', fiscal_year: year, fiscal_quarter: q, revenue: 1e9, operating_profit: 2e8, net_profit: 1e8, total_assets: 5e9, equity: 3e9,
  gross_profit: null, operating_cash_flow: null, total_liabilities: null, current_assets: null, current_liabilities: null, long_term_debt: null,
  cash: null, retained_earnings: null, shares_outstanding: null, dividends_per_share: null, disclosed_on,
});

function records() {
  const bars: DailyBar[] = [];
  const aClose = [100, 110, 120, 120, 130, 130, 140, 150];
  aClose.forEach((c, d) => bars.push(bar('00000A', d, d === 0 ? 100 : aClose[d - 1]!, c)));
  for (let d = 0; d < 8; d++) if (d !== 2) bars.push(bar('00000B', d, 200, 200));
  [50, 50, 50, 55, 60].forEach((c, d) => bars.push(bar('00000C', d, 50, c)));
  for (let d = 0; d < 8; d++) bars.push(bar('00000D', d, 1000, 1000));
  for (let d = 0; d < 8; d++) bars.push(bar('00000E', d, 1000, 1000));
  const halts: HaltRecord[] = [{ stock_code: '00000B', trade_date: DATES[2]!, last_close: 200, market_cap: null, shares_outstanding: 1_000_000 }];
  // E's 2024 Q3 statement became public only on 2025-01-08, long after its statutory deadline.
  const financials = [quarter(2023, 4, '2024-03-15'), quarter(2024, 1, '2024-05-14'), quarter(2024, 2, '2024-08-14'), quarter(2024, 3, '2025-01-08')];
  const index = DATES.map((d, i) => ({ market: 'KOSPI' as const, trade_date: d, open: null, high: null, low: null, close: 100 + i, volume: null, trading_value: null }));
  const stocks = CODES.map((code) => ({ code, name: `Stock ${code}`, market: 'KOSPI' as const, settle_month: 12 }));
  return { stocks, bars, halts, financials, index };
}

describe('backtests on a hand-built market', () => {
  let t: TestDaemon;
  let token: string;
  let userId: string;
  let other: string;
  const post = (json: unknown, tok = token) => t.request('/api/v1/screen/backtest', { method: 'POST', json, token: tok });

  beforeAll(async () => {
    t = await startTestDaemon('backtest');
    const ctx = t.daemon.context();
    await ctx.store.marketData.apply(records());
    const run = await ctx.store.marketData.computeIndicators();
    await ctx.screening.snapshot.refresh(run.version);
    ({ access_token: token, id: userId } = await t.login());
    other = (await t.login()).access_token;
  }, 60_000);
  afterAll(() => t.close());

  it('matches the hand-computed equity curve to the won, holding a halted stock and selling a delisted one', async () => {
    const res = await post({ query: { codes: ['00000A', '00000B', '00000C'], sort: 'code:asc' }, from: '2025-01-02', to: '2025-01-13', rebalance: 'monthly', top: 'all', fee_bps: 10, tax_bps: 20, capital: 10_000_000 });
    expect(res.status).toBe(200);
    const run = ((await res.json()) as any).data;
    expect(run.status).toBe('completed');
    // Bought at day 1's open: A 33,300 @100, B 16,650 @200, C 66,600 @50, each + 0.1% fee; 10 won left.
    // Day 2: B halted, valued at its last close 200. Day 4: C delisted, sold at 60 less 0.1% fee and 0.2% tax.
    const expected = [10_000_000, 10_323_010, 10_656_010, 10_989_010, 11_643_022, 11_643_022, 11_976_022, 12_309_022];
    expect(run.result.curve.map((p: any) => p.date)).toEqual(DATES);
    run.result.curve.forEach((p: any, i: number) => expect(p.equity).toBeCloseTo(expected[i]!, 2));
    expect(run.result.trades.find((x: any) => x.reason === 'delisted')).toMatchObject({ code: '00000C', date: DATES[4], shares: 66_600, price: 60 });
    expect(run.result.curve.at(-1).benchmark).toBeCloseTo(10_000_000 * 1.07, 2);
    expect(run.result.stats.total_return).toBeCloseTo(0.2309022, 7);
    expect(run.result.rebalances[0]).toMatchObject({ signal_date: DATES[0], trade_date: DATES[1], selected: 3 });
  });

  it('uses a statement only from its disclosure date', async () => {
    const eps = async (asOf: string) => ((await (await t.request('/api/v1/screen', { method: 'POST', token, json: { as_of: asOf, codes: ['00000E'], fields: ['eps'] } })).json()) as any).data[0].eps;
    expect(await eps('2025-01-07')).toBeNull();
    expect(await eps('2025-01-08')).toBeCloseTo(4e8 / 1_000_000, 6);
  });

  it('keeps runs per owner: listed for them, 404 for anyone else', async () => {
    const run = ((await (await post({ template: 'value', from: '2025-01-02', rebalance: 'monthly' })).json()) as any).data;
    const list = ((await (await t.request('/api/v1/screen/backtests', { token })).json()) as any).data;
    expect(list.map((r: any) => r.id)).toContain(run.id);
    expect((await t.request(`/api/v1/screen/backtests/${run.id}`, { token })).status).toBe(200);
    expect((await t.request(`/api/v1/screen/backtests/${run.id}`, { token: other })).status).toBe(404);
    const theirs = ((await (await t.request('/api/v1/screen/backtests', { token: other })).json()) as any).data;
    expect(theirs.map((r: any) => r.id)).not.toContain(run.id);
  });

  it('says so when the universe has no data instead of showing zeros', async () => {
    const run = ((await (await post({ query: { min_per: 1e9 }, from: '2025-01-02', rebalance: 'monthly' })).json()) as any).data;
    expect(run.result.stats).toBeNull();
    expect(run.result.message).toMatch(/selected no stock/);
  });

  it('rejects bad input with 400 details', async () => {
    const cases: [unknown, string][] = [
      [{ template: 'nope', from: '2025-01-02' }, 'template'],
      [{ template: 'value', query: {}, from: '2025-01-02' }, 'query'],
      [{ template: 'value', from: '2025-01-10', to: '2025-01-06' }, 'from'],
      [{ template: 'value', from: '2024-01-02' }, 'from'],
      [{ template: 'value', from: '2025-01-13' }, 'to'],
      [{ template: 'value', from: '2025-01-02', to: '2030-01-01' }, 'to'],
      [{ template: 'value', from: 'soon' }, 'from'],
      [{ template: 'value', from: '2025-01-02', rebalance: 'daily' }, 'rebalance'],
      [{ query: { as_of: '2025-01-03' }, from: '2025-01-02' }, 'query.as_of'],
    ];
    for (const [json, field] of cases) {
      const res = await post(json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(Object.keys(((await res.json()) as any).error.details), JSON.stringify(json)).toContain(field);
    }
  });
});
