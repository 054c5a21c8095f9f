/**
 * What the tests of a job-run data source (KRX Open API, FDR cache) share: a daemon wired to the
 * source's local fake with one worker, fast retries and no daily schedule, its admin logged in;
 * a sync through the route and its final job view; the source's status; the database's rows; and
 * a day's bars as the fdr-listing loader makes them of the same day's file; a rerun and a
 * correction of a loaded range; and the daily run.
 */
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import type { JobResult, JobView } from '../../daemon/contract/jobs.js';
import type { SourceStatus } from '../../daemon/contract/sources.js';
import { scheduledRunData } from '../../daemon/wiring/sources.js';
import { parseFile } from '../../loaders/registry.js';
import { waitForJob } from './jobs.js';
import { krxFile } from './krx-fixtures.js';
import { startTestDaemon, type TestDaemon } from './test-daemon.js';

/** The admin account of the source's daemon. */
export const SOURCE_ADMIN = { admin_email: 'ops@example.com', admin_password: 'ops-password-1' };

/** A daemon of one source and that source's fake. */
export interface SourceHarness<Fake> {
  t: TestDaemon;
  fake: Fake;
  /** The admin's access token. */
  token: string;
  /** POST /admin/sources/{source}/sync. */
  sync(body: Record<string, unknown>): Promise<Response>;
  /** Run a sync (202 expected) and wait for its end: the final job view. */
  syncAndWait(body: Record<string, unknown>): Promise<JobView>;
  /** The source's entry of GET /admin/sources. */
  status(): Promise<SourceStatus>;
  rows<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Stops the daemon, then the fake. */
  close(): Promise<void>;
}

/**
 * Start a daemon for `source` (named `label`) over `fake`; `config` points it at the fake (URL,
 * key) and may override the defaults here. The fake is closed with the harness, also when the
 * daemon fails to start.
 */
export async function startSourceHarness<Fake extends { close(): Promise<void> }>(
  source: string, label: string, fake: Fake, config: Record<string, unknown>,
): Promise<SourceHarness<Fake>> {
  let t: TestDaemon;
  try {
    t = await startTestDaemon(label, {
      workers: 1, ...SOURCE_ADMIN, source_retries: 2, source_retry_base_ms: 5, source_timeout_ms: 2000, sources_schedule: false, ...config,
    });
  } catch (err) {
    await fake.close();
    throw err;
  }
  const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: SOURCE_ADMIN.admin_email, password: SOURCE_ADMIN.admin_password } });
  const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
  const h: SourceHarness<Fake> = {
    t, fake, token,
    sync: (body) => t.request(`/api/v1/admin/sources/${source}/sync`, { method: 'POST', json: body, token }),
    async syncAndWait(body) {
      const res = await h.sync(body);
      expect(res.status).toBe(202);
      const job = ((await res.json()) as { data: JobView }).data;
      // A failed job is an outcome the caller asserts on: its view tells why.
      await waitForJob(t.daemon, job.id).catch(() => undefined);
      return ((await (await t.request(`/api/v1/admin/jobs/${job.id}`, { token })).json()) as { data: JobView }).data;
    },
    async status() {
      const body = (await (await t.request('/api/v1/admin/sources', { token })).json()) as { data: SourceStatus[] };
      return body.data.find((s) => s.name === source)!;
    },
    rows: (sql, params = []) => t.daemon.context().store.db.all(sql, params),
    async close() {
      await t.close();
      await fake.close();
    },
  };
  return h;
}

/** One stored bar, numbers as numbers (PostgreSQL answers NUMERIC columns as strings). */
interface Bar { stock_code: string; open_price: number; high_price: number; low_price: number; close_price: number; volume: number; trading_value: number; market_cap: number | null }

/**
 * `day`'s stored bars and halts beside what the fdr-listing loader makes of that day's listing
 * file: the caller expects the two to be equal. Also the parsed file, for more checks.
 */
export async function dayAgainstListingFile(h: SourceHarness<unknown>, day: string) {
  const file = parseFile(await readFile(krxFile(`listing/${day}.csv`)), `listing/${day}.csv`);
  const stored = await h.rows<Bar>(
    'SELECT stock_code, open_price, high_price, low_price, close_price, volume, trading_value, market_cap FROM daily_prices WHERE trade_date = ? ORDER BY stock_code', [day]);
  const bars = stored.map((b) => ({
    ...b, open_price: Number(b.open_price), high_price: Number(b.high_price), low_price: Number(b.low_price), close_price: Number(b.close_price),
    volume: Number(b.volume), trading_value: Number(b.trading_value), market_cap: b.market_cap === null ? null : Number(b.market_cap),
  }));
  const expectedBars: Bar[] = file.bars.map((b) => ({
    stock_code: b.stock_code, open_price: b.open_price, high_price: b.high_price, low_price: b.low_price, close_price: b.close_price,
    volume: b.volume, trading_value: b.trading_value, market_cap: b.market_cap,
  })).sort((a, b) => a.stock_code.localeCompare(b.stock_code));
  const halts = (await h.rows<{ stock_code: string }>('SELECT stock_code FROM trading_halts WHERE trade_date = ? ORDER BY stock_code', [day])).map((x) => x.stock_code);
  return { file, bars, expectedBars, halts, expectedHalts: file.halts.map((x) => x.stock_code).sort() };
}

/** Run `source`'s daily job on `t` now (what its cron slot would add) and wait for its result. */
export async function runDailySync(t: TestDaemon, source: string): Promise<JobResult> {
  const job = await t.daemon.context().jobs.market.queue.add('source-sync', scheduledRunData(source));
  return (await waitForJob(t.daemon, String(job.id))) as JobResult;
}

/**
 * The range `days` (first to last, already loaded) synced again: every date unchanged, nothing
 * written. Then the provider corrects 005930's close of the middle day (to its low, as the fakes
 * do) and a third sync writes that date alone again, with the corrected close.
 */
export async function expectRerunThenCorrection(h: SourceHarness<{ correct(day: string, code: string): void }>, source: string, days: readonly string[]): Promise<void> {
  const range = { from: days[0], to: days.at(-1), compute: false };
  const loadedAt = `SELECT unit, loaded_at FROM source_dates WHERE source = '${source}' ORDER BY unit`;
  const before = await h.rows<{ unit: string; loaded_at: string }>(loadedAt);
  const again = await h.syncAndWait(range);
  expect(again.result?.sync).toMatchObject({ loaded: 0, unchanged: days.length });
  expect(again.result?.files).toEqual([]);
  expect(await h.rows(loadedAt)).toEqual(before);
  const day = days[Math.floor(days.length / 2)]!;
  h.fake.correct(day, '005930');
  const fixed = await h.syncAndWait(range);
  expect(fixed.result?.sync).toMatchObject({ loaded: 1, unchanged: days.length - 1 });
  const close = await h.rows<{ close_price: number; low_price: number }>("SELECT close_price, low_price FROM daily_prices WHERE stock_code = '005930' AND trade_date = ?", [day]);
  expect(Number(close[0]?.close_price)).toBe(Number(close[0]?.low_price));
}
