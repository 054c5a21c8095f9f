/**
 * FinanceDataReader's KRX cache as a source, end to end through the daemon's own wiring (routes,
 * the market queue, a worker, the store) against a local fake laid out as the public cache is
 * served (test/fakes/fdr-cache-server.ts) with the repository's real KRX files: a backfill stores
 * exactly what the folder loaders make of the same files, a second run writes nothing, a rewritten
 * file replaces its date, a 5xx or a cut-off body is retried, an HTML page and a missing file are
 * reported — never a half-loaded date. The CLI's `sources sync fdr` and `sources test fdr` go
 * through the same routes.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobView } from '../../../daemon/contract/jobs.js';
import type { SourceTestResult } from '../../../daemon/contract/sources.js';
import { parseFile } from '../../../loaders/registry.js';
import { waitForJob } from '../../helpers/jobs.js';
import { KRX_DIR, krxFile } from '../../helpers/krx-fixtures.js';
import { dayAgainstListingFile, expectRerunThenCorrection, SOURCE_ADMIN as ADMIN, startSourceHarness, type SourceHarness } from '../../helpers/source-sync-harness.js';
import { startTestDaemon } from '../../helpers/test-daemon.js';
import { runCliAt, tempEnv, type TempEnv } from '../cli/fake-io.js';
import { startFakeFdr, type FakeFdr } from '../../fakes/fdr-cache-server.js';

const DAYS = ['2026-03-09', '2026-03-10', '2026-03-11'];

type Harness = SourceHarness<FakeFdr>;

async function harness(label: string, extra: Record<string, unknown> = {}, fakeOptions: { anyDate?: boolean } = {}): Promise<Harness> {
  const fake = await startFakeFdr(fakeOptions);
  return startSourceHarness('fdr', label, fake, { fdr_cache_url: fake.url, fdr_min_interval_ms: 0, ...extra });
}

const count = async (h: Harness, day: string) => Number((await h.rows<{ n: number }>('SELECT COUNT(*) AS n FROM daily_prices WHERE trade_date = ?', [day]))[0]?.n);

describe('FDR cache backfill', () => {
  let h: Harness;
  beforeAll(async () => (h = await harness('fdr-sync')));
  afterAll(async () => h.close());

  it('stores exactly what the folder loaders make of the same days\' files', async () => {
    // When three trading days are backfilled from the cache
    const done = await h.syncAndWait({ from: DAYS[0], to: DAYS[2], compute: false });
    // Then the job reports the dates and 3 calls a date (the listing and two index files)
    expect(done.state).toBe('completed');
    expect(done.result?.sync).toMatchObject({ source: 'fdr', from: DAYS[0], to: DAYS[2], total: 3, loaded: 3, unchanged: 0, calls: 9 });
    expect(h.fake.calls.slice(0, 3)).toEqual([`listing/krx/${DAYS[0]}.csv`, `index/ks11/${DAYS[0]}.csv`, `index/kq11/${DAYS[0]}.csv`]);
    for (const day of DAYS) {
      // And each day's bars and halts are those of the fdr-listing loader on that day's file
      const { bars, expectedBars, halts, expectedHalts } = await dayAgainstListingFile(h, day);
      expect(bars.length).toBeGreaterThan(2000);
      expect(bars).toEqual(expectedBars);
      expect(halts).toEqual(expectedHalts);
      // And both composites equal the fdr-index loader's row of that day in the yearly files
      for (const [market, folder] of [['KOSPI', 'kospi'], ['KOSDAQ', 'kosdaq']] as const) {
        const want = parseFile(await readFile(krxFile(`index/${folder}/2026.csv`)), `index/${folder}/2026.csv`).index.find((b) => b.trade_date === day)!;
        const got = await h.rows<{ close: number; open: number; high: number; low: number }>('SELECT close, open, high, low FROM market_index WHERE market = ? AND trade_date = ?', [market, day]);
        expect(got.map((r) => [Number(r.open), Number(r.high), Number(r.low), Number(r.close)])).toEqual([[want.open, want.high, want.low, want.close]]);
      }
    }
    // And 174900's administrative designation of 03-09 is there, as the file says
    const d = await h.rows<{ is_administrative: number | boolean }>("SELECT is_administrative FROM stock_designations WHERE stock_code = '174900' AND trade_date = '2026-03-09'");
    expect(Boolean(Number(d[0]?.is_administrative))).toBe(true);
    expect(await h.status()).toMatchObject({ name: 'fdr', kind: 'eod', configured: true, last_success_date: DAYS[2], last_error: null });
  });

  it('holds the same rows as a folder load of the same files into another daemon', async () => {
    // Given another daemon (its own database) loads the three listing files and the yearly index files from a folder
    const other = await startTestDaemon('fdr-folder', { workers: 1, ...ADMIN, sources_schedule: false, import_dirs: [KRX_DIR.replace(/\/$/, '')] });
    try {
      const login = await other.request('/api/v1/auth/login', { method: 'POST', json: { email: ADMIN.admin_email, password: ADMIN.admin_password } });
      const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
      const paths = [...DAYS.map((d) => krxFile(`listing/${d}.csv`)), krxFile('index/kospi/2026.csv'), krxFile('index/kosdaq/2026.csv')];
      const res = await other.request('/api/v1/admin/jobs', { method: 'POST', token, json: { type: 'load-files', paths, compute: false } });
      expect(res.status, await res.clone().text()).toBe(202);
      await waitForJob(other.daemon, ((await res.json()) as { data: JobView }).data.id);
      const params = (sql: string) => (sql.includes('?') ? DAYS : []);
      const synced = (sql: string) => h.rows<Record<string, unknown>>(sql, params(sql));
      const loaded = (sql: string) => other.daemon.context().store.db.all<Record<string, unknown>>(sql, params(sql));
      const within = `trade_date IN (?, ?, ?)`;
      // Then every stored row of those days, and every stock, is the same in both
      for (const sql of [
        `SELECT stock_code, trade_date, open_price, high_price, low_price, close_price, volume, trading_value, market_cap FROM daily_prices WHERE ${within} ORDER BY stock_code, trade_date`,
        `SELECT stock_code, trade_date FROM trading_halts WHERE ${within} ORDER BY stock_code, trade_date`,
        `SELECT stock_code, trade_date, is_administrative FROM stock_designations WHERE ${within} ORDER BY stock_code, trade_date`,
        `SELECT market, trade_date, open, high, low, close, volume, trading_value FROM market_index WHERE ${within} ORDER BY market, trade_date`,
        'SELECT code, name, market, board, is_spac, is_preferred, is_administrative, shares_outstanding FROM stocks ORDER BY code',
      ]) {
        const a = await synced(sql);
        expect(a.length, sql).toBeGreaterThan(0);
        expect(a, sql).toEqual(await loaded(sql));
      }
    } finally {
      await other.close();
    }
  });

  it('writes nothing when run again, and replaces a date whose file was rewritten', async () => {
    // (03-10, the middle day, is the one its provider corrects)
    await expectRerunThenCorrection(h, 'fdr', DAYS);
  });

  it('retries a 5xx and a cut-off body, then loads the date', async () => {
    h.fake.fail('listing', { kind: 'status', status: 503, body: 'Service Unavailable' });
    h.fake.fail('kq11', { kind: 'truncated' });
    const job = await h.syncAndWait({ from: '2026-03-12', to: '2026-03-12', compute: false });
    expect(job.state).toBe('completed');
    expect(job.result?.sync).toMatchObject({ loaded: 1, calls: 5 });
    expect(await count(h, '2026-03-12')).toBeGreaterThan(2000);
  });

  it('reports an HTML page after its retries, and stores nothing of that date', async () => {
    // Given the listing of 03-13 is an HTML error page every time (3 calls an attempt, 3 attempts of the job)
    h.fake.fail('listing', ...Array.from({ length: 9 }, () => ({ kind: 'html' as const })));
    const job = await h.syncAndWait({ from: '2026-03-13', to: '2026-03-13', compute: false });
    expect(job.state).toBe('failed');
    expect(job.failed_reason).toMatch(/BAD_ANSWER: listing\/krx\/2026-03-13\.csv: the server answered an HTML page/);
    expect(await count(h, '2026-03-13')).toBe(0);
    expect((await h.status()).last_error).toMatchObject({ code: 'BAD_ANSWER' });
  });

  it('asks for trading days only, and reports a trading day missing from the cache, keeping the dates before it', async () => {
    // Given 03-17 is not in the cache; the range spans a weekend (03-14, 03-15)
    h.fake.calls.length = 0;
    h.fake.drop('2026-03-17');
    const job = await h.syncAndWait({ from: '2026-03-13', to: '2026-03-18', compute: false });
    // Then no weekend file was asked for, the job fails at once (a 404 does not pass by retrying) naming the file
    expect(h.fake.calls.filter((c) => c.startsWith('listing/')).map((c) => c.slice(12, 22))).toEqual(['2026-03-13', '2026-03-16', '2026-03-17']);
    expect(job.state).toBe('failed');
    expect(job.attempts).toBe(1);
    expect(job.failed_reason).toMatch(/NOT_FOUND: listing\/krx\/2026-03-17\.csv: not in the cache/);
    // And the dates before it stay, the missing one and those after it have nothing
    expect(await count(h, '2026-03-13')).toBeGreaterThan(2000);
    expect(await count(h, '2026-03-16')).toBeGreaterThan(2000);
    expect(await count(h, '2026-03-17')).toBe(0);
    expect(await count(h, '2026-03-18')).toBe(0);
    expect((await h.status()).last_error).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('FDR cache: the CLI and an operator who has not set it', () => {
  let h: Harness;
  let e: TempEnv;
  beforeAll(async () => {
    h = await harness('fdr-cli', {}, { anyDate: true });
    e = await tempEnv();
  });
  afterAll(async () => {
    await h.close();
    await e.cleanup();
  });
  const cli = (argv: string[], stdin = '') => runCliAt(h.t.url, e, argv, stdin);

  it('`stockscreen sources test fdr` fetches each file of the latest date; `sources sync fdr --wait` loads a range', async () => {
    expect((await cli(['login', '--email', ADMIN.admin_email, '--password-stdin'], ADMIN.admin_password)).code).toBe(0);
    const test = await cli(['--json', 'sources', 'test', 'fdr']);
    expect(test.code).toBe(0);
    const result = (JSON.parse(test.io.out()) as { data: SourceTestResult }).data;
    expect(result.ok).toBe(true);
    expect(result.checks.map((c) => c.service.replace(/\d{4}-\d{2}-\d{2}/, 'DATE'))).toEqual(['listing/krx/DATE.csv', 'index/ks11/DATE.csv', 'index/kq11/DATE.csv']);
    expect(result.checks[0]?.message).toMatch(/^\d{4} rows$/);
    const sync = await cli(['--json', 'sources', 'sync', 'fdr', '--from', '2026-03-19', '--to', '2026-03-20', '--wait', '--no-compute']);
    expect(sync.code).toBe(0);
    expect(await count(h, '2026-03-20')).toBeGreaterThan(2000);
    const list = await cli(['sources']);
    expect(list.io.out()).toMatch(/\nfdr\teod\tyes\t/);
  });

  it('without STOCKSCREEN_FDR_CACHE_URL: not configured (409 naming it), no call made, /health stays healthy', async () => {
    const off = await harness('fdr-none', { fdr_cache_url: undefined });
    try {
      const res = await off.sync({ from: '2026-03-09' });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/STOCKSCREEN_FDR_CACHE_URL/);
      expect(await off.status()).toMatchObject({ configured: false, stale: false });
      expect(((await (await off.t.request('/health')).json()) as { status: string }).status).toBe('healthy');
      expect(off.fake.calls).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
