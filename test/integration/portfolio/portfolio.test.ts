/**
 * Portfolio endpoints over a real sqlite with a small hand-made market (see the figures
 * in the comments), two users, and an injected live quote source.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registerPortfolioRoutes } from '../../../daemon/http/routes/portfolio.js';
import { createManualClock } from '../../../daemon/infra/clock.js';
import { createPortfolioService, type LiveQuoteFn } from '../../../daemon/portfolio/portfolio-service.js';
import { createHoldingsRepo } from '../../../daemon/store/holdings-repo.js';
import { createTransactionsRepo } from '../../../daemon/store/transactions-repo.js';
import { bar, kospi, loadMarket, openTestStore, serveRoutes, stock, type TestServer, type TestStore } from '../../helpers/portfolio-harness.js';

const D = ['2024-12-27', '2024-12-30', '2025-01-02', '2025-01-03', '2025-01-06'] as const;
const A = [100, 110, 99, 99, 99];
const B = [900, 950, 1010, 1110, 1068];
const C = [1000, 1000, 1000, 1000, 1000];
const INDEX = [2500, 2550, 2499, 2523.99, 2498.7501]; // daily +2%, −2%, +1%, −1%

let store: TestStore;
let server: TestServer;
const live = new Map<string, Awaited<ReturnType<LiveQuoteFn>> | 'error'>();

beforeAll(async () => {
  store = await openTestStore('portfolio');
  await loadMarket(store, {
    stocks: [stock('000001', 'Alpha', 'KOSPI', 'Tech', 100_000_000_000), stock('000002', 'Beta', 'KOSDAQ', 'Bio', 10_000_000), stock('000003', 'Gamma', 'KOSPI', 'Tech')],
    bars: D.flatMap((d, i) => [bar('000001', d, A[i]!), bar('000002', d, B[i]!), bar('000003', d, C[i]!)]),
    index: D.map((d, i) => kospi(d, INDEX[i]!)),
  });
  const portfolio = createPortfolioService({
    db: store.db, holdings: createHoldingsRepo(store.db), transactions: createTransactionsRepo(store.db),
    stocks: store.stocks, prices: store.prices, index: store.index, riskFreeRate: 0.03,
    clock: createManualClock(Date.parse('2025-01-06T03:00:00Z')), // 12:00 KST, 2025-01-06
    liveQuote: async (code) => {
      const q = live.get(code);
      if (q === 'error') throw new Error('redis down');
      return q ?? null;
    },
  });
  server = await serveRoutes(store, [(api) => registerPortfolioRoutes(api, { portfolio })]);
});
afterAll(async () => {
  await server?.close();
  await store?.close();
});
beforeEach(() => live.clear());

const post = (path: string, token: string, json: unknown) => server.request(path, { method: 'POST', token, json });

describe('holdings', () => {
  it('creates, merges at the weighted average, keeps separate lots, updates and deletes', async () => {
    const { token } = await store.user();
    const first = await post('/api/v1/portfolio/holdings', token, { code: '000003', quantity: 10, average_price: 1000, acquired_at: '2025-01-02', note: 'core' });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ code: '000003', quantity: 10, average_price: 1000, acquired_at: '2025-01-02', note: 'core', merged: false });

    // 10 @ 1,000 + 30 @ 1,200 → 40 @ 46,000 / 40 = 1,150; acquired_at defaults to today (01-06) and the earlier date stays
    const merged = await post('/api/v1/portfolio/holdings', token, { code: '000003', quantity: 30, average_price: 1200 });
    expect(merged.status).toBe(201);
    expect(merged.body.data).toMatchObject({ id: first.body.data.id, quantity: 40, average_price: 1150, acquired_at: '2025-01-02', note: 'core', merged: true });

    const lot = await post('/api/v1/portfolio/holdings', token, { code: '000003', quantity: 5, average_price: 900, separate_lot: true });
    expect(lot.status).toBe(201);
    expect(lot.body.data).toMatchObject({ quantity: 5, acquired_at: '2025-01-06', merged: false });
    expect(lot.body.data.id).not.toBe(first.body.data.id);

    const put = await server.request(`/api/v1/portfolio/holdings/${lot.body.data.id}`, { method: 'PUT', token, json: { note: 'trading' } });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ quantity: 5, average_price: 900, note: 'trading' });

    const del = await server.request(`/api/v1/portfolio/holdings/${lot.body.data.id}`, { method: 'DELETE', token });
    expect(del.status).toBe(204);
    expect((await server.request(`/api/v1/portfolio/holdings/${lot.body.data.id}`, { token })).status).toBe(404);
    const list = await server.request('/api/v1/portfolio', { token });
    expect(list.body.data.holdings.map((h: any) => [h.code, h.quantity])).toEqual([['000003', 40]]);
  });

  it('rejects bad input with field-level details', async () => {
    const { token } = await store.user();
    const cases: [unknown, string][] = [
      [{ code: '000001', quantity: 0, average_price: 100 }, 'quantity'],
      [{ code: '000001', quantity: 1.5, average_price: 100 }, 'quantity'],
      [{ code: '000001', quantity: 1, average_price: 0 }, 'average_price'],
      [{ code: 'abc', quantity: 1, average_price: 100 }, 'code'],
      [{ code: '999999', quantity: 1, average_price: 100 }, 'code'],
      [{ quantity: 1, average_price: 100 }, 'code'],
      [{ code: '000001', quantity: 1, average_price: 100, acquired_at: '2025-13-01' }, 'acquired_at'],
      [{ code: '000001', quantity: 1, average_price: 100, colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const res = await post('/api/v1/portfolio/holdings', token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(Object.keys(res.body.error.details), JSON.stringify(body)).toContain(field);
    }
    const h = await post('/api/v1/portfolio/holdings', token, { code: '000001', quantity: 1, average_price: 100 });
    expect((await server.request(`/api/v1/portfolio/holdings/${h.body.data.id}`, { method: 'PUT', token, json: {} })).status).toBe(400);
    expect((await server.request(`/api/v1/portfolio/holdings/${h.body.data.id}`, { method: 'PUT', token, json: { quantity: -1 } })).body.error.details).toHaveProperty('quantity');
    expect((await server.request('/api/v1/portfolio/holdings/not-a-uuid', { token })).status).toBe(400);
    expect((await server.request('/api/v1/portfolio')).status).toBe(401);
  });

  it("answers 404 for another user's holding and never shows it", async () => {
    const owner = await store.user();
    const other = await store.user();
    const h = await post('/api/v1/portfolio/holdings', owner.token, { code: '000001', quantity: 7, average_price: 100, note: 'secret' });
    const path = `/api/v1/portfolio/holdings/${h.body.data.id}`;
    for (const [method, json] of [['GET', undefined], ['PUT', { quantity: 1 }], ['DELETE', undefined]] as const) {
      const res = await server.request(path, { method, token: other.token, json });
      expect(res.status, method).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain('secret');
    }
    expect((await server.request('/api/v1/portfolio', { token: other.token })).body.data.holdings).toEqual([]);
    // The other user cannot sell the owner's shares either: they hold none.
    expect((await post('/api/v1/portfolio/transactions', other.token, { code: '000001', side: 'sell', quantity: 1, price: 100, traded_at: '2025-01-06' })).status).toBe(400);
    const mine = await server.request(path, { token: owner.token });
    expect(mine.body.data).toMatchObject({ quantity: 7, note: 'secret' });
  });
});

describe('transactions (average-cost method)', () => {
  it('merges buys, realises P&L on sales and rejects selling more than is held', async () => {
    const { token } = await store.user();
    await post('/api/v1/portfolio/holdings', token, { code: '000003', quantity: 40, average_price: 1150, acquired_at: '2025-01-02' });
    await post('/api/v1/portfolio/holdings', token, { code: '000003', quantity: 10, average_price: 1290, acquired_at: '2024-12-30', separate_lot: true });

    // Buy into the oldest lot: (40 × 1,150 + 10 × 1,300 + fee 100) / 50 = 59,100 / 50 = 1,182
    const buy = await post('/api/v1/portfolio/transactions', token, { code: '000003', side: 'buy', quantity: 10, price: 1300, fee: 100, traded_at: '2025-01-03' });
    expect(buy.status).toBe(201);
    expect(buy.body.data.holding).toMatchObject({ quantity: 50, average_price: 1182 });
    expect(buy.body.data.transaction).toMatchObject({ side: 'buy', average_cost: 1182, realized_pnl: null });

    // Pool: (50 × 1,182 + 10 × 1,290) / 60 = 72,000 / 60 = 1,200; sell 20 @ 1,500, fee 300 → 300 × 20 − 300 = 5,700
    const sell = await post('/api/v1/portfolio/transactions', token, { code: '000003', side: 'sell', quantity: 20, price: 1500, fee: 300, traded_at: '2025-01-06T10:00:00+09:00' });
    expect(sell.status).toBe(201);
    expect(sell.body.data.transaction).toMatchObject({ average_cost: 1200, realized_pnl: 5700 });
    expect(sell.body.data.holding).toMatchObject({ quantity: 40, average_price: 1200, acquired_at: '2024-12-30' });
    const after = (await server.request('/api/v1/portfolio', { token })).body.data.holdings;
    expect(after.map((h: any) => [h.code, h.quantity, h.average_price])).toEqual([['000003', 40, 1200]]);

    const tooMany = await post('/api/v1/portfolio/transactions', token, { code: '000003', side: 'sell', quantity: 41, price: 1500, traded_at: '2025-01-06' });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details.quantity).toMatch(/40 shares/);

    // Sell the rest at a loss: (1,100 − 1,200) × 40 = −4,000; realised total 5,700 − 4,000 = 1,700
    const rest = await post('/api/v1/portfolio/transactions', token, { code: '000003', side: 'sell', quantity: 40, price: 1100, traded_at: '2025-01-06' });
    expect(rest.body.data).toMatchObject({ holding: null, transaction: { realized_pnl: -4000 } });
    expect((await server.request('/api/v1/portfolio', { token })).body.data.holdings).toEqual([]);
    const history = await server.request('/api/v1/portfolio/transactions?limit=2', { token });
    expect(history.body.data.map((t: any) => t.realized_pnl)).toEqual([-4000, 5700]);
    expect(history.body.meta).toMatchObject({ total: 3, page: 1, per_page: 2, total_pages: 2 });
    expect((await server.request('/api/v1/portfolio/performance', { token })).body.data.realized_pnl).toBe(1700);
  });

  it('validates the transaction body', async () => {
    const { token } = await store.user();
    const base = { code: '000001', side: 'buy', quantity: 1, price: 100, traded_at: '2025-01-06' };
    for (const [patch, field] of [[{ side: 'hold' }, 'side'], [{ traded_at: 'yesterday' }, 'traded_at'], [{ fee: -1 }, 'fee'], [{ price: 0 }, 'price'], [{ code: '999999' }, 'code']] as const) {
      const res = await post('/api/v1/portfolio/transactions', token, { ...base, ...patch });
      expect(res.status, field).toBe(400);
      expect(res.body.error.details).toHaveProperty(field);
    }
  });
});

describe('valuation and performance', () => {
  /*
   * A: 12 @ 95 from 2024-12-27, then sell 2 @ 105, fee 5 → realised (105 − 95) × 2 − 5 = 15; 10 @ 95 left
   * B:  1 @ 1,000 from 2025-01-02
   * Last closes: A 99 (prev 99), B 1,068 (prev 1,110).
   * Value 990 + 1,068 = 2,058; cost 950 + 1,000 = 1,950; unrealised 108 (5.5385%)
   * Total return (108 + 15) / 1,950 = 6.3077%; day change −42 / 2,100 = −2%.
   * Daily series and statistics as in test/unit/daemon/portfolio/metrics.test.ts:
   * values 1,000, 1,100, 2,000, 2,100, 2,058; time-weighted returns +10%, −10%, +5%, −2%.
   */
  async function seed() {
    const user = await store.user();
    await post('/api/v1/portfolio/holdings', user.token, { code: '000001', quantity: 12, average_price: 95, acquired_at: '2024-12-27' });
    await post('/api/v1/portfolio/holdings', user.token, { code: '000002', quantity: 1, average_price: 1000, acquired_at: '2025-01-02' });
    await post('/api/v1/portfolio/transactions', user.token, { code: '000001', side: 'sell', quantity: 2, price: 105, fee: 5, traded_at: '2025-01-06' });
    return user;
  }

  it('values holdings at the last close, with day change and weights', async () => {
    const { token } = await seed();
    const { holdings, totals } = (await server.request('/api/v1/portfolio', { token })).body.data;
    expect(holdings.map((h: any) => [h.code, h.name, h.sector, h.market, h.current_price, h.price_source, h.market_value, h.day_change])).toEqual([
      ['000001', 'Alpha', 'Tech', 'KOSPI', 99, 'close', 990, 0],
      ['000002', 'Beta', 'Bio', 'KOSDAQ', 1068, 'close', 1068, -42],
    ]);
    // weights 990 / 2,058 = 48.105%, 1,068 / 2,058 = 51.895%
    expect(holdings[0].weight).toBeCloseTo(48.105, 3);
    expect(holdings[1].weight).toBeCloseTo(51.895, 3);
    expect(totals).toMatchObject({ holdings: 2, market_value: 2058, cost: 1950, unrealized_pnl: 108, day_change: -42 });
    expect(totals.day_change_percent).toBeCloseTo(-2, 10);
  });

  it('uses the live quote when the feed has one, and the close when it fails', async () => {
    const { token } = await seed();
    live.set('000002', { price: 1100, change: -10, change_percent: -0.9, ts: Date.parse('2025-01-06T02:00:00Z') });
    live.set('000001', 'error');
    const { holdings, totals } = (await server.request('/api/v1/portfolio', { token })).body.data;
    expect(holdings[1]).toMatchObject({ current_price: 1100, price_source: 'live', market_value: 1100, day_change: -10, price_as_of: '2025-01-06T02:00:00.000Z' });
    expect(holdings[0]).toMatchObject({ current_price: 99, price_source: 'close' });
    expect(totals.market_value).toBe(990 + 1100);
  });

  it('reports returns, risk statistics vs KOSPI, allocation and the daily series', async () => {
    const { token } = await seed();
    const res = await server.request('/api/v1/portfolio/performance?series=true', { token });
    expect(res.status).toBe(200);
    const p = res.body.data;
    expect(p).toMatchObject({ total_value: 2058, total_cost: 1950, unrealized_pnl: 108, realized_pnl: 15, day_change: -42, benchmark: 'KOSPI', risk_free_rate: 0.03, as_of: '2025-01-06', history_start: '2024-12-27' });
    expect(p.total_return_percent).toBeCloseTo(6.3077, 4);
    expect(p.unrealized_pnl_percent).toBeCloseTo(5.5385, 4);
    expect(p.day_change_percent).toBeCloseTo(-2, 10);
    expect(p.returns['1W']).toBeCloseTo(-7.39, 6); // 1.01871 / 1.1 − 1
    expect(p.returns['1M']).toBeCloseTo(1.871, 6); // 1.1 × 0.9 × 1.05 × 0.98 − 1
    // Four daily returns: too few for volatility, Sharpe and beta (null with the reason; the figures are checked in the unit test)
    expect([p.volatility_percent, p.sharpe_ratio, p.beta]).toEqual([null, null, null]);
    expect(p.unavailable).toMatchObject({ volatility_percent: 'needs 20 daily returns; has 4', beta: 'needs 20 daily returns with KOSPI closes; has 4' });
    expect(p.max_drawdown_percent).toBeCloseTo(10, 6);
    expect(p.excess_return_percent).toBeCloseTo(1.920996, 5);
    expect(p.allocation.by_stock.map((s: any) => s.key)).toEqual(['000002', '000001']);
    expect(p.allocation.by_market_cap.map((s: any) => s.key)).toEqual(['small', 'mid']); // 1e7 × 1,068 ; 1e11 × 99 = 9.9조
    expect(p.best[0].code).toBe('000002'); // +6.8% vs A +4.21%
    expect(p.worst[0].code).toBe('000001');
    expect(p.series.map((s: any) => [s.date, s.value])).toEqual(D.map((d, i) => [d, [1000, 1100, 2000, 2100, 2058][i]]));
    expect(p.series.at(-1).return_index).toBeCloseTo(101.871, 9);
    expect((await server.request('/api/v1/portfolio/performance', { token })).body.data).not.toHaveProperty('series');
  });

  it('includes a holding bought after the last close in the value series, with null statistics and their reasons', async () => {
    // Given a holding bought after the last trading day in the database (today, before today's bar is loaded)
    const { token } = await store.user();
    await post('/api/v1/portfolio/holdings', token, { code: '000002', quantity: 2, average_price: 1000, acquired_at: '2025-01-07' });
    // When the performance is asked for
    const p = (await server.request('/api/v1/portfolio/performance?series=true', { token })).body.data;
    // Then the value series holds it at the last close, and no figure pretends to be 0
    expect(p.series.map((s: any) => [s.date, s.value])).toEqual([['2025-01-06', 2 * 1068]]);
    expect(p.history_start).toBe('2025-01-06');
    expect(Object.values(p.returns)).toEqual([null, null, null, null, null, null]);
    expect([p.volatility_percent, p.sharpe_ratio, p.beta, p.max_drawdown_percent]).toEqual([null, null, null, null]);
    expect(p.unavailable).toMatchObject({ returns: 'needs 2 trading days of history; has 1', sharpe_ratio: 'needs 20 daily returns; has 0' });
  });

  it('answers zero totals, empty lists and null statistics for an empty portfolio', async () => {
    const { token } = await store.user();
    const res = await server.request('/api/v1/portfolio/performance?series=true', { token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      total_value: 0, total_cost: 0, unrealized_pnl: 0, realized_pnl: 0, total_return_percent: 0, day_change: 0,
      returns: { '1W': null, '1M': null, '3M': null, '6M': null, YTD: null, '1Y': null }, volatility_percent: null, max_drawdown_percent: null, sharpe_ratio: null, beta: null,
      allocation: { by_stock: [], by_sector: [], by_market: [], by_market_cap: [] }, best: [], worst: [], series: [],
    });
    expect((await server.request('/api/v1/portfolio', { token })).body.data).toEqual({ holdings: [], totals: { holdings: 0, market_value: 0, cost: 0, unrealized_pnl: 0, unrealized_pnl_percent: 0, day_change: 0, day_change_percent: 0 } });
  });
});
