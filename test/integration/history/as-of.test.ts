/**
 * As-of screens against an independent recomputation: SMA, RSI and returns from
 * GET /stocks/{code}/history truncated at the date; PER and ROE from the statements of
 * GET /stocks/{code}/financials that were public by then (no disclosure dates in the sample:
 * the statutory deadline, 45 days after a quarter's end, 90 after the year's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Wilder's RSI(14) over `closes` (the engine reads the last 300 bars). */
function rsi14(closes: number[]): number | null {
  let gain = 0;
  let loss = 0;
  for (let i = 1; i < closes.length; i++) {
    const ch = closes[i]! - closes[i - 1]!;
    const g = Math.max(ch, 0);
    const l = Math.max(-ch, 0);
    if (i <= 14) {
      gain += g / 14;
      loss += l / 14;
    } else {
      gain = (gain * 13 + g) / 14;
      loss = (loss * 13 + l) / 14;
    }
  }
  if (closes.length < 15) return null;
  return loss === 0 ? 100 : 100 - 100 / (1 + gain / loss);
}

/** The statutory deadline of a December-year quarter. */
function deadline(year: number, q: number): string {
  const end = new Date(Date.UTC(year, q * 3, 0));
  end.setUTCDate(end.getUTCDate() + (q === 4 ? 90 : 45));
  return end.toISOString().slice(0, 10);
}

describe('as-of screens', () => {
  let t: TestDaemon;
  let token: string;
  let dates: string[];
  const screen = (json: unknown, path = '/api/v1/screen') => t.request(path, { method: 'POST', json, token });
  const get = async (path: string) => ((await (await t.request(path, { token })).json()) as any).data;

  beforeAll(async () => {
    t = await startTestDaemon('asof', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1' });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    const admin = ((await login.json()) as any).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 5, stocks: 40, days: 220 } });
    await waitForJob(t.daemon, ((await job.json()) as any).data.id);
    token = (await t.login()).access_token;
    const stocks = await get('/api/v1/stocks?limit=1');
    dates = (await get(`/api/v1/stocks/${stocks[0].code}/history`)).map((b: any) => b.trade_date);
  }, 120_000);
  afterAll(() => t.close());

  it('computes SMA, RSI, returns, PER and ROE from what was known on the date', async () => {
    const asOf = dates[150]!;
    const res = await screen({ as_of: asOf, fields: ['sma_20', 'rsi_14', 'return_1m', 'per', 'roe'], per_page: 500 });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.meta.as_of).toBe(asOf);
    expect(body.meta.snapshot_version).toContain(`asof:${asOf}`);
    let checkedPer = 0;
    for (const s of body.data.slice(0, 12)) {
      const bars = (await get(`/api/v1/stocks/${s.code}/history?to=${asOf}`)) as any[];
      const closes = bars.map((b) => b.close_price);
      expect(bars.at(-1).trade_date).toBe(asOf);
      expect(s.sma_20).toBeCloseTo(mean(closes.slice(-20)), 6);
      expect(s.rsi_14).toBeCloseTo(rsi14(closes.slice(-300))!, 6);
      expect(s.return_1m).toBeCloseTo((closes.at(-1) / closes.at(-22) - 1) * 100, 6);
      const known = ((await get(`/api/v1/stocks/${s.code}/financials?limit=40`)) as any[])
        .filter((q) => deadline(q.fiscal_year, q.fiscal_quarter) <= asOf)
        .sort((a, b) => b.fiscal_year - a.fiscal_year || b.fiscal_quarter - a.fiscal_quarter);
      const ttm = known.slice(0, 4).reduce((a, q) => a + q.net_profit, 0);
      const last = bars.at(-1);
      const cap = last.market_cap ?? last.close_price * (last.shares_outstanding ?? NaN);
      if (known.length >= 4 && ttm > 0 && Number.isFinite(cap)) {
        expect(s.per).toBeCloseTo(cap / ttm, 6);
        checkedPer++;
      }
      if (known.length >= 5 && known[0].equity > 0) {
        const equity = (known[0].equity + known[4].equity) / 2;
        expect(s.roe).toBeCloseTo((ttm / equity) * 100, 6);
      }
    }
    expect(checkedPer).toBeGreaterThan(0);
  });

  it('gives the same fundamental values from the point snapshot backtests use as from the full one', async () => {
    const { asOf } = t.daemon.context().screening;
    const at = await asOf.resolve(dates[150]!);
    const full = await asOf.snapshotOf(at);
    const point = await asOf.snapshotOf(at, 'point');
    expect(point.codes).toEqual(full.codes);
    for (const field of ['close', 'market_cap', 'per', 'pbr', 'roe', 'eps', 'debt_ratio', 'piotroski_f_score', 'value_score', 'quality_score', 'growth_score', 'magic_formula_rank']) {
      const a = full.columns.get(field)!;
      const b = point.columns.get(field)!;
      expect(b.count, field).toBe(a.count);
      for (let i = 0; i < full.size; i++) if (!Number.isNaN(a.values[i]!)) expect(b.values[i], `${field} ${full.codes[i]}`).toBeCloseTo(a.values[i]!, 9);
    }
  });

  it('never uses a statement before its deadline: the newest public quarter appears only from its deadline', async () => {
    const code = ((await get('/api/v1/stocks?limit=1')) as any[])[0].code;
    const quarters = (await get(`/api/v1/stocks/${code}/financials?limit=40`)) as any[];
    // The newest quarter whose deadline falls inside the loaded dates (a later one is never public here).
    const k = quarters.findIndex((q) => deadline(q.fiscal_year, q.fiscal_quarter) <= dates.at(-1)!);
    expect(k).toBeGreaterThanOrEqual(0);
    expect(quarters.length).toBeGreaterThanOrEqual(k + 5);
    const due = deadline(quarters[k].fiscal_year, quarters[k].fiscal_quarter);
    const before = dates.filter((d) => d < due).at(-1)!;
    const after = dates.find((d) => d >= due)!;
    const epsAt = async (asOf: string) => ((await (await screen({ as_of: asOf, codes: [code], fields: ['eps'] })).json()) as any).data[0].eps;
    const sharesAt = async (asOf: string) => ((await get(`/api/v1/stocks/${code}/history?to=${asOf}`)) as any[]).at(-1).shares_outstanding;
    const ttm = (from: number) => quarters.slice(from, from + 4).reduce((a, q) => a + q.net_profit, 0);
    expect(await epsAt(before)).toBeCloseTo(ttm(k + 1) / (await sharesAt(before)), 6);
    expect(await epsAt(after)).toBeCloseTo(ttm(k) / (await sharesAt(after)), 6);
  });

  it('uses the last trading day on or before a weekend date, and templates, presets and CSV take as_of too', async () => {
    const friday = dates.find((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 5 && d > dates[30]!)!;
    const saturday = new Date(Date.parse(`${friday}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const body = (await (await screen({ as_of: saturday, limit: 5 })).json()) as any;
    expect(body.meta.as_of).toBe(friday);
    const template = await screen({ as_of: friday, limit: 5 }, '/api/v1/screen/templates/momentum');
    expect(template.status).toBe(200);
    expect(((await template.json()) as any).meta.as_of).toBe(friday);
    const preset = (await (await t.request('/api/v1/screen/presets', { method: 'POST', token, json: { name: 'big', query: { min_market_cap: 0 } } })).json()) as any;
    const run = await t.request(`/api/v1/screen/presets/${preset.data.id}/run`, { method: 'POST', token, json: { as_of: friday } });
    expect(((await run.json()) as any).meta.as_of).toBe(friday);
    const csv = await t.request('/api/v1/screen?format=csv', { method: 'POST', token, json: { as_of: friday, fields: ['sma_20'] } });
    expect(csv.status).toBe(200);
    expect(await csv.text()).toContain('sma_20');
  });

  it('answers without as_of exactly as before (no as_of in meta)', async () => {
    const body = (await (await screen({ limit: 3 })).json()) as any;
    expect(body.meta.as_of).toBeUndefined();
    expect(body.meta.snapshot_version).not.toContain('asof:');
  });

  it('rejects a malformed date, one before the first loaded date and one after the last with 400 details', async () => {
    for (const [asOf, pattern] of [['2025-13-01', /date/], ['yesterday', /date/], ['1999-01-04', /first loaded date/], ['2099-01-02', /last loaded date/]] as const) {
      const res = await screen({ as_of: asOf });
      expect(res.status).toBe(400);
      const body = (await res.json()) as any;
      expect(body.error.code).toBe('INVALID_REQUEST');
      expect(String(body.error.details.as_of)).toMatch(pattern);
    }
  });
});
