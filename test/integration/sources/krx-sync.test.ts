/**
 * The KRX Open API source end to end, through the daemon's own wiring (routes, the market queue,
 * a worker, the store) against a local fake that follows KRX's protocol and serves the
 * repository's real KRX files: a backfill loads the same numbers as loading the same days'
 * files, an unchanged date writes nothing, a correction replaces its date, and each bad answer
 * (an unapproved service, 5xx, an HTML page, a cut-off body, an empty day, malformed rows, a run
 * that stops half-way) ends as the issue says — never a half-loaded date.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JobView } from '../../../daemon/contract/jobs.js';
import type { SourceStatus, SourceTestResult } from '../../../daemon/contract/sources.js';
import { parseFile } from '../../../loaders/registry.js';
import { waitForJob } from '../../helpers/jobs.js';
import { krxFile } from '../../helpers/krx-fixtures.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { dayAgainstListingFile, expectRerunThenCorrection, SOURCE_ADMIN as ADMIN, startSourceHarness, type SourceHarness } from '../../helpers/source-sync-harness.js';
import { runCliAt, tempEnv, type TempEnv } from '../cli/fake-io.js';
import { startFakeKrx, type FakeKrx } from '../../fakes/krx-openapi-server.js';

const KEY = 'k'.repeat(40);
const PARTIAL_KEY = 'p'.repeat(40);
const DAYS = ['2026-03-09', '2026-03-10', '2026-03-11'];

type Harness = SourceHarness<FakeKrx>;

async function harness(label: string, extra: Record<string, unknown> = {}): Promise<Harness> {
  const fake = await startFakeKrx({ keys: { [KEY]: '*', [PARTIAL_KEY]: ['sto/stk_bydd_trd', 'sto/ksq_bydd_trd', 'idx/kospi_dd_trd'] } });
  return startSourceHarness('krx', label, fake, { krx_api_url: fake.url, krx_api_key: KEY, krx_min_interval_ms: 0, ...extra });
}

describe('KRX Open API backfill', () => {
  let h: Harness;
  beforeAll(async () => (h = await harness('krx-sync')));
  afterAll(async () => h.close());

  it('loads the same bars, halts, designations and index as loading the same days\' files', async () => {
    // When three trading days are backfilled
    const res = await h.sync({ from: DAYS[0], to: DAYS[2], compute: false });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toMatch(/\/admin\/jobs\/\d+$/);
    const job = ((await res.json()) as { data: JobView }).data;
    expect(job.type).toBe('source-sync');
    await waitForJob(h.t.daemon, job.id);
    const done = ((await (await h.t.request(`/api/v1/admin/jobs/${job.id}`, { token: h.token })).json()) as { data: JobView }).data;
    // Then the job reports dates, rows and calls (4 per date, 2 for base info)
    expect(done.state).toBe('completed');
    expect(done.result?.sync).toMatchObject({ source: 'krx', from: DAYS[0], to: DAYS[2], total: 3, loaded: 3, unchanged: 0, calls: 12 });
    expect(done.progress).toMatchObject({ done: 3, total: 3 });
    // And each day's rows are exactly what the fdr-listing loader makes of that day's file
    for (const day of DAYS) {
      const { file, bars, expectedBars, halts, expectedHalts } = await dayAgainstListingFile(h, day);
      expect(bars).toEqual(expectedBars);
      expect(halts).toEqual(expectedHalts);
      const designations = await h.rows<{ stock_code: string; is_administrative: number | boolean }>('SELECT stock_code, is_administrative FROM stock_designations WHERE trade_date = ? ORDER BY stock_code', [day]);
      expect(designations.length).toBe(file.designations?.length);
    }
    // And 174900's administrative designation on 03-09 is there, as the file says
    const d = await h.rows<{ is_administrative: number | boolean }>("SELECT is_administrative FROM stock_designations WHERE stock_code = '174900' AND trade_date = '2026-03-09'");
    expect(Boolean(Number(d[0]?.is_administrative))).toBe(true);
    // And the KOSPI composite equals the index file's row (not the 코스피 200 row beside it)
    const index = parseFile(await readFile(krxFile('index/kospi/2026.csv')), 'index/kospi/2026.csv');
    const want = index.index.find((b) => b.trade_date === DAYS[1])!;
    const got = await h.rows<{ close: number; open: number }>("SELECT close, open FROM market_index WHERE market = 'KOSPI' AND trade_date = ?", [DAYS[1]]);
    expect(Number(got[0]?.close)).toBeCloseTo(want.close, 2);
    expect(Number(got[0]?.open)).toBeCloseTo(want.open!, 2);
    // And base info filled listing dates (kept from the provider's LIST_DD)
    const samsung = await h.rows<{ listing_date: string }>("SELECT listing_date FROM stocks WHERE code = '005930'");
    expect(samsung[0]?.listing_date).toBe('1975-06-11');
  });

  it('writes nothing for dates whose content is unchanged, and replaces a corrected date', async () => {
    // (03-10, the middle day, is the one its provider corrects)
    await expectRerunThenCorrection(h, 'krx', DAYS);
  });

  it('retries a 5xx, an HTML error page and a cut-off body, then loads the date', async () => {
    h.fake.fail('sto/stk_bydd_trd', { kind: 'status', status: 503, body: 'Service Unavailable' }, { kind: 'html' });
    h.fake.fail('sto/ksq_bydd_trd', { kind: 'truncated' });
    const job = await h.syncAndWait({ from: '2026-03-12', to: '2026-03-12', compute: false });
    expect(job.state).toBe('completed');
    expect(job.result?.sync).toMatchObject({ loaded: 1, calls: 7 });
  });

  it('fails an empty answer for a trading day after its retries, and loads nothing of that date', async () => {
    // Given KOSDAQ answers an empty OutBlock_1 for 03-13 every time (3 calls per attempt, 3 attempts of the job)
    h.fake.fail('sto/ksq_bydd_trd', ...Array.from({ length: 9 }, () => ({ kind: 'empty' as const })));
    const job = await h.syncAndWait({ from: '2026-03-13', to: '2026-03-13', compute: false });
    // Then the job fails with EMPTY (an empty day is a failure, not a success) and nothing of 03-13 is stored
    expect(job.state).toBe('failed');
    expect(job.failed_reason).toMatch(/EMPTY: sto\/ksq_bydd_trd: no rows for 2026-03-13/);
    expect(Number((await h.rows<{ n: number }>("SELECT COUNT(*) AS n FROM daily_prices WHERE trade_date = '2026-03-13'"))[0]?.n)).toBe(0);
    expect((await h.status()).last_error).toMatchObject({ code: 'EMPTY' });
  });

  it('refuses a date with more than 5% malformed rows whole, keeping the dates before it', async () => {
    // Given every 10th KOSDAQ row of 03-17 has a non-numeric close, in every answer for that date
    h.fake.onCall = (service, bas) => {
      if (service === 'sto/ksq_bydd_trd' && bas === '20260317') h.fake.fail(service, { kind: 'malformed', fraction: 0.1 });
    };
    const job = await h.syncAndWait({ from: '2026-03-16', to: '2026-03-18', compute: false });
    h.fake.onCall = undefined;
    // Then the job fails naming the date and rows, 03-16 stays, 03-17 has nothing, 03-18 was not fetched
    expect(job.state).toBe('failed');
    expect(job.failed_reason).toMatch(/2026-03-17/);
    expect(job.failed_reason).toMatch(/non-numeric/);
    const count = async (d: string) => Number((await h.rows<{ n: number }>('SELECT COUNT(*) AS n FROM daily_prices WHERE trade_date = ?', [d]))[0]?.n);
    expect(await count('2026-03-16')).toBeGreaterThan(2000);
    expect(await count('2026-03-17')).toBe(0);
    expect(await count('2026-03-18')).toBe(0);
    expect((await h.status()).last_error).toMatchObject({ code: 'REFUSED' });
  });

  it('reports the data as stale (the calendar expects yesterday\'s data) in the status, /health and /metrics', async () => {
    const s = await h.status();
    expect(s).toMatchObject({ name: 'krx', kind: 'eod', configured: true, stale: true });
    expect(s.last_success_date! >= '2026-03-16').toBe(true);
    expect(s.stale_reason).toMatch(/expected \d{4}-\d{2}-\d{2}/);
    const health = (await (await h.t.request('/health')).json()) as { status: string; reasons: string[] };
    expect(health.status).toBe('degraded');
    expect(health.reasons[0]).toMatch(/source krx stale/);
    const metrics = await (await h.t.request('/metrics', { token: h.token })).text();
    expect(metrics).toMatch(/stockscreen_source_stale\{source="krx"\} 1/);
    expect(metrics).toMatch(/stockscreen_source_data_age_seconds\{source="krx"\} \d+/);
  });

  it('never shows the key: not in the status, the job, or the test answer', async () => {
    const bodies = await Promise.all([
      h.t.request('/api/v1/admin/sources', { token: h.token }).then((r) => r.text()),
      h.t.request('/api/v1/admin/jobs', { token: h.token }).then((r) => r.text()),
      h.t.request('/api/v1/admin/sources/krx/test', { method: 'POST', token: h.token }).then((r) => r.text()),
      h.t.request('/openapi.json').then((r) => r.text()),
    ]);
    for (const body of bodies) expect(body).not.toContain(KEY);
  });

  it('lists and tests a source that is not a job (a live feed registered its own status provider)', async () => {
    // Given a feed registers its provider, and another whose status read fails
    const registry = h.t.daemon.context().sources.registry;
    registry.registerSourceStatus('kis', {
      status: async () => ({ name: 'kis', kind: 'realtime', configured: true, last_success_at: null, last_success_date: null, last_error: { at: '2026-03-20T06:00:00.000Z', code: 'EGW00201', message: '초당 거래건수를 초과하였습니다' }, calls_today: 7, stale: false, stale_reason: null }),
      test: async () => ({ name: 'kis', ok: false, checks: [{ service: 'oauth2/tokenP', ok: false, code: 'EGW00133', message: 'one token a minute', apply_for: null }] }),
    });
    registry.registerSourceStatus('broken', { status: async () => { throw new Error('redis away'); } });
    // Then GET /admin/sources shows both beside krx, the broken one as an error
    const list = ((await (await h.t.request('/api/v1/admin/sources', { token: h.token })).json()) as { data: SourceStatus[] }).data;
    expect(list.map((s) => s.name)).toEqual(['krx', 'fdr', 'dart', 'kis', 'broken']);
    expect(list[3]).toMatchObject({ kind: 'realtime', calls_today: 7, last_error: { code: 'EGW00201' } });
    expect(list[4]?.last_error?.code).toBe('STATUS_UNAVAILABLE');
    // And its test runs through the same route
    const test = (await (await h.t.request('/api/v1/admin/sources/kis/test', { method: 'POST', token: h.token })).json()) as { data: SourceTestResult };
    expect(test.data.checks[0]).toMatchObject({ service: 'oauth2/tokenP', code: 'EGW00133' });
    // A source without a test, or unknown: 404
    expect((await h.t.request('/api/v1/admin/sources/broken/test', { method: 'POST', token: h.token })).status).toBe(404);
    // Sync is only for job-run sources
    expect((await h.t.request('/api/v1/admin/sources/kis/sync', { method: 'POST', json: {}, token: h.token })).status).toBe(404);
  });

  it('refuses a non-admin (403), a bad range (400 with fields) and an unknown source (404)', async () => {
    const user = await h.t.login();
    expect((await h.t.request('/api/v1/admin/sources', { token: user.access_token })).status).toBe(403);
    expect((await h.t.request('/api/v1/admin/sources/krx/sync', { method: 'POST', json: { from: '2026-03-09' }, token: user.access_token })).status).toBe(403);
    const bad = await h.sync({ from: '2026-03-20', to: '2026-03-09' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: Record<string, string> } }).error.details).toHaveProperty('from');
    const future = await h.sync({ from: '2026-03-09', to: '2099-01-02' });
    expect(((await future.json()) as { error: { details: Record<string, string> } }).error.details).toHaveProperty('to');
    expect((await h.t.request('/api/v1/admin/sources/nope/sync', { method: 'POST', json: {}, token: h.token })).status).toBe(404);
    expect((await h.sync({ from: 'yesterday' })).status).toBe(400);
  });
});

describe('KRX Open API: a key not approved for every service', () => {
  let h: Harness;
  let e: TempEnv;
  beforeAll(async () => {
    h = await harness('krx-partial', { krx_api_key: PARTIAL_KEY, source_retries: 0 });
    e = await tempEnv();
  });
  afterAll(async () => {
    await h.close();
    await e.cleanup();
  });
  const cli = (argv: string[], stdin = '') => runCliAt(h.t.url, e, argv, stdin);

  it('fails the sync with KRX\'s own code and says which service to apply for', async () => {
    const job = await h.syncAndWait({ from: DAYS[0], to: DAYS[0] });
    expect(job.state).toBe('failed');
    expect(job.attempts).toBe(1);
    expect(job.failed_reason).toMatch(/krx 401: idx\/kosdaq_dd_trd: Unauthorized API Call/);
    expect(job.failed_reason).toMatch(/KOSDAQ 시리즈 일별시세정보/);
    expect((await h.status()).last_error).toMatchObject({ code: '401' });
    // Nothing of the date was written
    expect(Number((await h.rows<{ n: number }>('SELECT COUNT(*) AS n FROM daily_prices'))[0]?.n)).toBe(0);
  });

  it('`stockscreen sources test krx` names each failing service and what to apply for; `sources` lists the status', async () => {
    expect((await cli(['login', '--email', ADMIN.admin_email, '--password-stdin'], ADMIN.admin_password)).code).toBe(0);
    const test = await cli(['sources', 'test', 'krx']);
    expect(test.code).toBe(1);
    const rows = test.io.out().trimEnd().split('\n').map((l) => l.split('\t'));
    expect(rows[0]).toEqual(['SERVICE', 'OK', 'CODE', 'MESSAGE', 'APPLY_FOR']);
    const byService = new Map(rows.slice(1).map((r) => [r[0], r]));
    expect(byService.get('sto/stk_bydd_trd')?.[1]).toBe('yes');
    expect(byService.get('idx/kosdaq_dd_trd')?.slice(1, 3)).toEqual(['no', '401']);
    expect(byService.get('idx/kosdaq_dd_trd')?.[4]).toMatch(/KOSDAQ 시리즈 일별시세정보/);
    expect(test.io.err()).toMatch(/apply for/);
    const json = JSON.parse((await cli(['--json', 'sources', 'test', 'krx'])).io.out()) as { data: SourceTestResult };
    expect(json.data.checks).toHaveLength(6);
    const list = await cli(['sources']);
    expect(list.code).toBe(0);
    expect(list.io.out()).toMatch(/^NAME\tKIND/);
    expect(list.io.out()).toMatch(/\nkrx\teod\tyes\t/);
  });

  it('`stockscreen sources sync krx --wait --json` prints the failed job and exits 1', async () => {
    const res = await cli(['--json', 'sources', 'sync', 'krx', '--from', DAYS[0]!, '--to', DAYS[0]!, '--wait']);
    expect(res.code).toBe(1);
  });
});

describe('KRX Open API: a run that stops half-way', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('goes on after the last committed date when BullMQ runs the job again', async () => {
    h = await harness('krx-resume', { source_retries: 0 });
    // Given the third date's first call fails (the attempt ends, two dates committed)
    let calls = 0;
    h.fake.onCall = (service) => {
      if (service === 'sto/stk_bydd_trd' && ++calls === 3) h.fake.fail('sto/stk_bydd_trd', { kind: 'status', status: 502 });
    };
    const job = await h.syncAndWait({ from: '2026-03-09', to: '2026-03-13', compute: false });
    // Then the job completes on its second attempt, which fetched only the dates left
    expect(job.state).toBe('completed');
    expect(job.attempts).toBe(2);
    expect(job.result?.sync).toMatchObject({ total: 5, resumed: 2, loaded: 3 });
    expect(h.fake.calls.filter((c) => c.service === 'sto/stk_bydd_trd').map((c) => c.basDd)).toEqual(['20260309', '20260310', '20260311', '20260311', '20260312', '20260313']);
  });

  it('says it is not configured without a key (409), and /health stays healthy', async () => {
    h = await harness('krx-none', { krx_api_key: undefined });
    const res = await h.sync({ from: '2026-03-09' });
    expect(res.status).toBe(409);
    expect((await h.status())).toMatchObject({ configured: false, stale: false });
    expect(((await (await h.t.request('/health')).json()) as { status: string }).status).toBe('healthy');
  });
});
