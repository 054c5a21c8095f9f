/**
 * Stock endpoints over HTTP on a small sample market:
 * list search, filters, paging and sort; history by day, week and month with
 * from/to/limit; financials with limit; 400s with field details. Expected values
 * are derived here from the full lists and the daily bars, not from the code under test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

interface Item {
  code: string;
  name: string;
  name_english: string | null;
  market: string;
  sector: string | null;
  close: number | null;
  change_percent: number | null;
  market_cap: number | null;
  volume: number | null;
}

interface Bar {
  trade_date: string;
  open_price: number;
  high_price: number;
  low_price: number;
  close_price: number;
  volume: number;
  trading_value: number;
}

/** Monday of the ISO week of a date. */
function mondayOf(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

/** Groups daily bars by `key` into OHLCV bars dated by the group's last trading day. */
function group(bars: readonly Bar[], key: (date: string) => string): Bar[] {
  const groups = new Map<string, Bar[]>();
  for (const b of bars) groups.set(key(b.trade_date), [...(groups.get(key(b.trade_date)) ?? []), b]);
  return [...groups.values()].map((g) => ({
    trade_date: g.at(-1)!.trade_date,
    open_price: g[0]!.open_price,
    high_price: Math.max(...g.map((b) => b.high_price)),
    low_price: Math.min(...g.map((b) => b.low_price)),
    close_price: g.at(-1)!.close_price,
    volume: g.reduce((s, b) => s + b.volume, 0),
    trading_value: g.reduce((s, b) => s + b.trading_value, 0),
  }));
}

const ohlcv = (b: Bar) => ({
  trade_date: b.trade_date, open_price: b.open_price, high_price: b.high_price, low_price: b.low_price,
  close_price: b.close_price, volume: b.volume, trading_value: b.trading_value,
});

describe('stock endpoints over a sample market', () => {
  let t: TestDaemon;
  let token: string;
  let all: Item[];
  const get = async (path: string) => {
    const res = await t.request(`/api/v1${path}`, { token });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    t = await startTestDaemon('stocks-endpoints', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1' });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    const admin = ((await login.json()) as any).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 5, stocks: 60, days: 130 } });
    await waitForJob(t.daemon, ((await job.json()) as any).data.id);
    token = (await t.login()).access_token;
    all = (await get('/stocks?limit=500&sort=code')).body.data;
  }, 120_000);
  afterAll(() => t.close());

  describe('GET /stocks', () => {
    it('lists every stock with the list columns', () => {
      expect(all).toHaveLength(60);
      expect(Object.keys(all[0]!).sort()).toEqual(['change_percent', 'close', 'code', 'market', 'market_cap', 'name', 'name_english', 'sector', 'volume']);
    });

    it('finds stocks by code, Korean name and English name substring (q)', async () => {
      const target = all.find((s) => s.name_english && s.name.length >= 3)!;
      const cases = [
        target.code.slice(1, 5),
        [...target.name].slice(1, 3).join(''),
        target.name_english!.slice(1, 5).toUpperCase(), // case-insensitive
      ];
      for (const q of cases) {
        // Given the stocks whose code, name or English name contains q
        const needle = q.toLowerCase();
        const expected = all.filter((s) => [s.code, s.name, s.name_english ?? ''].some((v) => v.toLowerCase().includes(needle))).map((s) => s.code);
        // When listing with q
        const { status, body } = await get(`/stocks?q=${encodeURIComponent(q)}&limit=500&sort=code`);
        // Then exactly those come back, the target among them
        expect(status).toBe(200);
        expect(body.data.map((s: Item) => s.code), q).toEqual(expected);
        expect(body.data.map((s: Item) => s.code)).toContain(target.code);
        expect(body.meta.total).toBe(expected.length);
      }
      const none = await get('/stocks?q=zzzz-no-such-name');
      expect(none.body.data).toEqual([]);
      expect(none.body.meta).toMatchObject({ total: 0, total_pages: 0 });
    });

    it('filters by sector and by market', async () => {
      const sector = all[0]!.sector!;
      const { body } = await get(`/stocks?sector=${encodeURIComponent(sector)}&limit=500&sort=code`);
      expect(body.data.map((s: Item) => s.code)).toEqual(all.filter((s) => s.sector === sector).map((s) => s.code));
      const kosdaq = await get('/stocks?market=KOSDAQ&limit=500');
      expect(kosdaq.body.meta.total).toBe(all.filter((s) => s.market === 'KOSDAQ').length);
      expect(kosdaq.body.data.every((s: Item) => s.market === 'KOSDAQ')).toBe(true);
    });

    it('pages with page/limit and reports total, page, per_page and total_pages', async () => {
      // Given pages of 7 under the code order
      const second = await get('/stocks?sort=code&limit=7&page=2');
      expect(second.body.data.map((s: Item) => s.code)).toEqual(all.slice(7, 14).map((s) => s.code));
      expect(second.body.meta).toMatchObject({ total: 60, page: 2, per_page: 7, total_pages: 9 });
      // The last page is partial and a page past the end is empty
      const last = await get('/stocks?sort=code&limit=7&page=9');
      expect(last.body.data.map((s: Item) => s.code)).toEqual(all.slice(56).map((s) => s.code));
      const past = await get('/stocks?sort=code&limit=7&page=10');
      expect(past.body.data).toEqual([]);
      expect(past.body.meta).toMatchObject({ total: 60, page: 10 });
      // Defaults: 50 per page, page 1
      expect((await get('/stocks')).body.meta).toMatchObject({ total: 60, page: 1, per_page: 50, total_pages: 2 });
    });

    it('sorts by market cap (default, largest first), by a column in either order, and by name', async () => {
      const caps = (await get('/stocks?limit=500')).body.data.map((s: Item) => s.market_cap);
      expect(caps).toEqual([...caps].sort((a: number, b: number) => b - a));
      const up = (await get('/stocks?limit=500&sort=change_percent&order=asc')).body.data.map((s: Item) => s.change_percent);
      expect(up).toEqual([...up].sort((a: number, b: number) => a - b));
      const names = (await get('/stocks?limit=500&sort=name')).body.data.map((s: Item) => s.name);
      expect(names).toEqual([...all.map((s) => s.name)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    });

    it('rejects bad parameters with 400 and the field in details', async () => {
      for (const [query, field] of [
        ['limit=501', 'limit'], ['limit=0', 'limit'], ['page=0', 'page'], ['sort=bogus', 'sort'], ['market=NYSE', 'market'], ['order=up', 'order'],
      ] as const) {
        const { status, body } = await get(`/stocks?${query}`);
        expect(status, query).toBe(400);
        expect(body.error.code).toBe('INVALID_REQUEST');
        expect(Object.keys(body.error.details), query).toContain(field);
      }
    });
  });

  describe('GET /stocks/{code}/history', () => {
    let code: string;
    let daily: Bar[];
    beforeAll(async () => {
      code = all[0]!.code;
      daily = (await get(`/stocks/${code}/history`)).body.data;
    });

    it('returns daily bars oldest first, within from/to inclusive, and the last `limit` bars', async () => {
      expect(daily.length).toBeGreaterThan(100);
      const dates = daily.map((b) => b.trade_date);
      expect(dates).toEqual([...dates].sort());
      const from = dates[10]!;
      const to = dates[20]!;
      const ranged = (await get(`/stocks/${code}/history?from=${from}&to=${to}`)).body.data;
      expect(ranged.map((b: Bar) => b.trade_date)).toEqual(dates.slice(10, 21));
      const limited = (await get(`/stocks/${code}/history?limit=5`)).body;
      expect(limited.data.map((b: Bar) => b.trade_date)).toEqual(dates.slice(-5));
      expect(limited.meta).toMatchObject({ code, interval: 'day', count: 5 });
    });

    it('aggregates weeks: first open, highest high, lowest low, last close, summed volume and value', async () => {
      const { body } = await get(`/stocks/${code}/history?interval=week`);
      expect(body.data.map(ohlcv)).toEqual(group(daily, mondayOf));
      expect(body.meta.interval).toBe('week');
      // from/to cut the bars before aggregating; limit keeps the last weeks
      const from = daily[3]!.trade_date;
      const to = daily[40]!.trade_date;
      const ranged = (await get(`/stocks/${code}/history?interval=week&from=${from}&to=${to}`)).body.data;
      expect(ranged.map(ohlcv)).toEqual(group(daily.slice(3, 41), mondayOf));
      const lastThree = (await get(`/stocks/${code}/history?interval=week&limit=3`)).body.data;
      expect(lastThree.map(ohlcv)).toEqual(group(daily, mondayOf).slice(-3));
    });

    it('aggregates months the same way', async () => {
      const { body } = await get(`/stocks/${code}/history?interval=month`);
      const expected = group(daily, (d) => d.slice(0, 7));
      expect(expected.length).toBeGreaterThanOrEqual(6);
      expect(body.data.map(ohlcv)).toEqual(expected);
      const lastTwo = (await get(`/stocks/${code}/history?interval=month&limit=2`)).body.data;
      expect(lastTwo.map(ohlcv)).toEqual(expected.slice(-2));
    });

    it('rejects from > to, a bad interval and bad dates with 400 and the field in details', async () => {
      for (const [query, field] of [
        ['from=2026-03-20&to=2026-03-01', 'from'],
        ['interval=year', 'interval'],
        ['from=2026-02-30', 'from'],
        ['to=20260301', 'to'],
        ['from=2026-13-01', 'from'],
        ['limit=0', 'limit'],
      ] as const) {
        const { status, body } = await get(`/stocks/${code}/history?${query}`);
        expect(status, query).toBe(400);
        expect(body.error.code).toBe('INVALID_REQUEST');
        expect(Object.keys(body.error.details), `${query} → ${JSON.stringify(body.error.details)}`).toContain(field);
      }
      expect((await get('/stocks/999999/history')).status).toBe(404);
    });
  });

  describe('GET /stocks/{code}/financials', () => {
    it('returns the newest 4 quarters by default and `limit` quarters newest first, with ratios', async () => {
      // Given a stock with eight quarters loaded
      let code = '';
      let eight: any[] = [];
      for (const s of all) {
        eight = (await get(`/stocks/${s.code}/financials?limit=8`)).body.data;
        if (eight.length === 8) {
          code = s.code;
          break;
        }
      }
      expect(eight).toHaveLength(8);
      const keys = eight.map((q) => q.fiscal_year * 10 + q.fiscal_quarter);
      expect(keys).toEqual([...keys].sort((a, b) => b - a));
      // Then the default is the first four, and limit=2 the first two
      const byDefault = await get(`/stocks/${code}/financials`);
      expect(byDefault.body.data).toEqual(eight.slice(0, 4));
      expect(byDefault.body.meta).toMatchObject({ code, quarters: 4 });
      expect((await get(`/stocks/${code}/financials?limit=2`)).body.data).toEqual(eight.slice(0, 2));
      const latest = eight[0];
      expect(latest.operating_margin).toBeCloseTo((latest.operating_profit / latest.revenue) * 100, 9);
      expect(latest.equity_ratio).toBeCloseTo((latest.equity / latest.total_assets) * 100, 9);
    });

    it('rejects a limit outside 1–40', async () => {
      const code = all[0]!.code;
      for (const limit of ['0', '41', 'x']) {
        const { status, body } = await get(`/stocks/${code}/financials?limit=${limit}`);
        expect(status, limit).toBe(400);
        expect(Object.keys(body.error.details)).toContain('limit');
      }
    });
  });
});
