import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

describe('market-data jobs', () => {
  let t: TestDaemon;
  let admin: string;
  let user: string;
  let importDir: string;
  const post = (json: unknown, token = admin) => t.request('/api/v1/admin/jobs', { method: 'POST', token, json });

  beforeAll(async () => {
    importDir = await mkdtemp(join(tmpdir(), 'jobs-import-'));
    t = await startTestDaemon('jobs', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1', import_dirs: [importDir] });
    const res = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await res.json()) as any).access_token;
    user = (await t.login()).access_token;
  });
  afterAll(async () => {
    await t.close();
    await rm(importDir, { recursive: true, force: true });
  });

  it('loads a small sample market, reports progress and computes indicators', async () => {
    const res = await post({ type: 'load-sample', seed: 7, stocks: 60, days: 260 });
    expect(res.status).toBe(202);
    const { data: job } = (await res.json()) as any;
    expect(job).toMatchObject({ type: 'load-sample' });
    const result: any = await waitForJob(t.daemon, job.id);
    expect(result.indicators.stocks).toBe(60);
    expect(result.rows_ok).toBeGreaterThan(60 * 250);
    const shown = (await (await t.request(`/api/v1/admin/jobs/${job.id}`, { token: admin })).json()) as any;
    expect(shown.data.state).toBe('completed');
    expect(shown.data.progress).toMatchObject({ phase: 'done' });
    expect(shown.data.result.indicators.version).toBe(result.indicators.version);
    // The screening snapshot was swapped in: the stock list serves the new stocks with indicator values.
    const list = (await (await t.request('/api/v1/stocks?limit=500', { token: user })).json()) as any;
    expect(list.meta.total).toBe(60);
    expect(list.data.every((s: any) => s.close > 0 && s.market_cap > 0)).toBe(true);
    const code = list.data[0].code;
    const detail = (await (await t.request(`/api/v1/stocks/${code}`, { token: user })).json()) as any;
    expect(detail.data.indicators.sma_200).toBeGreaterThan(0);
    expect(detail.data.indicators.rsi_14).toBeGreaterThanOrEqual(0);
    const fin = (await (await t.request(`/api/v1/stocks/${code}/financials`, { token: user })).json()) as any;
    expect(fin.data).toHaveLength(4);
    const [newest, older] = fin.data;
    expect(newest.fiscal_year * 4 + newest.fiscal_quarter).toBeGreaterThan(older.fiscal_year * 4 + older.fiscal_quarter);
    expect(newest.operating_margin).toBeCloseTo((newest.operating_profit / newest.revenue) * 100, 8);
    const weekly = (await (await t.request(`/api/v1/stocks/${code}/history?interval=week&limit=4`, { token: user })).json()) as any;
    expect(weekly.data).toHaveLength(4);
  });

  it('refuses a path outside the import directories at once with a readable reason, enqueueing nothing', async () => {
    const res = await post({ type: 'load-files', paths: ['/nonexistent/quotes.csv'] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.details).toEqual({ 'paths.0': 'not found or not inside an import directory (import_dirs)' });
  });

  it('rejects a file with more than 5% bad rows whole, leaving the database as it was', async () => {
    const file = join(importDir, 'bad-history.csv');
    const rows = ['Date,Open,High,Low,Close,Volume'];
    for (let i = 0; i < 10; i++) rows.push(`2026-03-${String(9 + i).padStart(2, '0')},100,90,80,95,1000`); // high < open: bad
    await writeFile(file, rows.join('\n'));
    const before = await t.daemon.context().store.prices.countBars();
    // (over the sample market loaded above: replacing it is part of the same, refused, transaction)
    const res = await post({ type: 'load-files', paths: [{ path: file, format: 'ohlcv', code: '005930' }], replace_sample: true });
    const { data: job } = (await res.json()) as any;
    // Every reason is in the failure, one `file:line: reason` per line under the verdict
    await expect(waitForJob(t.daemon, job.id)).rejects.toThrow(/bad-history\.csv: 10 of 10 rows invalid[^\n]*\n  \S*bad-history\.csv:2: high 90 below/);
    const shown = (await (await t.request(`/api/v1/admin/jobs/${job.id}`, { token: admin })).json()) as any;
    expect(shown.data.failed_reason.split('\n')).toHaveLength(11);
    expect(shown.data.attempts).toBe(1);
    expect(await t.daemon.context().store.prices.countBars()).toBe(before);
  });

  it('validates job requests with field details, and only admins may enqueue', async () => {
    const bad = await post({ type: 'load-sample', seed: -1, stocks: 'many' });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as any;
    expect(Object.keys(body.error.details)).toEqual(expect.arrayContaining(['seed', 'stocks']));
    expect((await post({ type: 'explode' })).status).toBe(400);
    expect((await post({ type: 'compute-indicators' }, user)).status).toBe(403);
    expect((await t.request('/api/v1/admin/jobs/424242', { token: admin })).status).toBe(404);
  });
});

describe('market export', () => {
  let t: TestDaemon;
  let admin: string;
  beforeAll(async () => {
    t = await startTestDaemon('export', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1' });
    const res = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await res.json()) as any).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 3, stocks: 20, days: 40, compute: false } });
    await waitForJob(t.daemon, ((await job.json()) as any).data.id);
  });
  afterAll(() => t.close());

  it('round-trips: the exported NDJSON loads into an empty daemon with identical data', async () => {
    const res = await t.request('/api/v1/admin/export', { token: admin });
    expect(res.headers.get('content-type')).toMatch(/ndjson/);
    const text = await res.text();
    const kinds = text.trim().split('\n').map((l) => JSON.parse(l).kind);
    expect(kinds[0]).toBe('meta');
    expect(kinds.filter((k) => k === 'stock')).toHaveLength(20);
    const file = join(t.dataDir, 'market.ndjson');
    await writeFile(file, text);
    const fresh = await startTestDaemon('export-load', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1', import_dirs: [t.dataDir] });
    try {
      const login = await fresh.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
      const token = ((await login.json()) as any).access_token;
      const job = await fresh.request('/api/v1/admin/jobs', { method: 'POST', token, json: { type: 'load-files', paths: [file], compute: false } });
      await waitForJob(fresh.daemon, ((await job.json()) as any).data.id);
      const again = await (await fresh.request('/api/v1/admin/export', { token })).text();
      expect(again).toBe(text);
    } finally {
      await fresh.close();
    }
  });
});
