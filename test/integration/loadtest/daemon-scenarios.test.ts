import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../../daemon/errors.js';
import { runLoadtest } from '../../../loadtest/runner.js';
import { complexBodies, simpleBodies } from '../../../loadtest/scenarios/screen-bodies.js';
import type { ProgressEvent, Report, ReportRow } from '../../../loadtest/types.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
// Registration and login endpoint limits would throttle the scenarios' setup and the login load.
const RAISED = { 'POST /screen': 1e9, 'GET /stocks/{code}': 1e9, 'POST /auth/register': 1e9, 'POST /auth/login': 1e9 };
const TINY = { duration: 1, warmup: 0, connections: 2 } as const;

const row = (report: Report, scenario: string, metric: string): ReportRow => {
  const found = report.rows.find((r) => r.scenario === scenario && r.metric === metric);
  if (!found) throw new Error(`no row ${scenario} / ${metric} in ${report.rows.map((r) => `${r.scenario}/${r.metric}`).join(', ')}`);
  return found;
};

describe('scenarios against a test daemon', () => {
  let t: TestDaemon;

  beforeAll(async () => {
    t = await startTestDaemon('loadtest', {
      workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password,
      rate_limit: { anonymous_per_hour: 1e9, endpoints: RAISED },
      // Ticks come from the WebSocket scenarios through POST /admin/ticks.
      feed: 'ingest', market_clock: 'always-open',
    });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN });
    const admin = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 5, stocks: 60, days: 260 } });
    await waitForJob(t.daemon, ((await job.json()) as { data: { id: string } }).data.id);
  }, 120_000);
  afterAll(() => t.close());

  it('sends request bodies the API accepts, the two shapes of each query selecting the same stocks', async () => {
    const { access_token } = await t.login();
    for (const bodies of [simpleBodies(false), complexBodies(false)]) {
      const answers = await Promise.all([bodies.shapeA(), bodies.shapeB()].map(async (json) => {
        const res = await t.request('/api/v1/screen', { method: 'POST', json, token: access_token });
        expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
        return (await res.json()) as { meta: { total: number }; stocks: { code: string }[] };
      }));
      expect(answers[0]!.meta.total).toBeGreaterThan(0);
      expect(answers[1]!.stocks.map((s) => s.code)).toEqual(answers[0]!.stocks.map((s) => s.code));
    }
    // The complex query applies six range filters.
    const complex = (await (await t.request('/api/v1/screen', { method: 'POST', json: complexBodies(false).shapeB(), token: access_token })).json()) as { filters_applied: { _count: number } };
    expect(complex.filters_applied._count).toBeGreaterThanOrEqual(6);
  });

  it('runs the REST scenarios with a lifted bench user: every field present, no failed request, cache bypassed', async () => {
    const events: ProgressEvent[] = [];
    const report = await runLoadtest(
      { url: t.url, scenarios: ['screen-simple', 'screen-complex', 'stocks-mixed', 'auth-login'], admin: ADMIN, ...TINY },
      { onProgress: (e) => events.push(e) },
    );
    expect(Object.keys(report).sort()).toEqual(['aborted', 'environment', 'finished_at', 'notes', 'options', 'pass', 'rows', 'scenarios', 'started_at', 'url'].sort());
    expect(report.url).toBe(t.url);
    expect(report.environment.cpus).toBeGreaterThan(0);
    for (const r of report.rows) {
      expect(Object.keys(r).filter((k) => k !== 'note').sort()).toEqual(['measured', 'metric', 'pass', 'scenario', 'target', 'unit']);
    }
    expect(report.scenarios.map((s) => [s.scenario, s.status === 'error' ? s.message : 'ran'])).toEqual([
      ['screen-simple', 'ran'], ['screen-complex', 'ran'], ['stocks-mixed', 'ran'], ['auth-login', 'ran'],
    ]);
    for (const s of ['screen-simple', 'screen-complex', 'stocks-mixed', 'auth-login']) {
      expect(row(report, s, 'failed requests'), s).toMatchObject({ measured: 0, pass: true });
      expect(row(report, s, 'throughput').measured, s).toBeGreaterThan(0);
    }
    expect(row(report, 'screen-simple', 'latency p95').target).toMatchObject({ op: '<', value: 200 });
    expect(row(report, 'screen-complex', 'latency p99').target).toMatchObject({ op: '<', value: 500 });
    // Each request varied min_roe: nothing came from the result cache.
    expect(row(report, 'screen-simple', 'cache hits').measured).toBe(0);
    expect(row(report, 'screen-complex', 'cache hits').measured).toBe(0);
    expect(report.rows.filter((r) => r.scenario === 'stocks-mixed').map((r) => r.metric)).toEqual(
      expect.arrayContaining(['list p50', 'detail p99', 'price p99', 'history p99']),
    );
    expect(events.filter((e) => e.type === 'scenario-end')).toHaveLength(4);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', aborted: false });
    expect(report.notes).toEqual([]);
  });

  it('lets the cache answer identical requests with cache: true', async () => {
    const report = await runLoadtest({ url: t.url, scenarios: ['screen-simple'], admin: ADMIN, cache: true, ...TINY });
    expect(row(report, 'screen-simple', 'cache hits').measured).toBeGreaterThan(50);
  });

  it('runs at a fixed rate', async () => {
    const report = await runLoadtest({ url: t.url, scenarios: ['screen-simple'], admin: ADMIN, rate: 20, duration: 2, warmup: 0, connections: 2 });
    // 20 req/s for 2 s: about 40 answers, never far more
    const throughput = row(report, 'screen-simple', 'throughput @ 20 req/s').measured!;
    expect(throughput).toBeGreaterThan(10);
    expect(throughput).toBeLessThanOrEqual(25);
    expect(report.scenarios[0]!.settings).toMatchObject({ mode: 'fixed-rate', rate: 20, connections: 2 });
    // Earlier runs screened with the same base values: a fresh run must still miss the cache.
    expect(row(report, 'screen-simple', 'cache hits @ 20 req/s').measured).toBe(0);
  });

  it('marks a run whose answers are 401 as FAILED', async () => {
    const report = await runLoadtest({ url: t.url, scenarios: ['auth-get'], token: 'not-a-valid-token-at-all', ...TINY });
    expect(row(report, 'auth-get', 'failed requests')).toMatchObject({ measured: 100, pass: false, note: expect.stringMatching(/401 × \d+/) });
    expect(report.scenarios[0]!.status).toBe('fail');
    expect(report.pass).toBe(false);
  });

  it('refuses remote targets without allowRemote before sending anything', async () => {
    for (const url of ['http://10.0.0.1:8000', 'http://example.com']) {
      const error = await runLoadtest({ url, scenarios: ['auth-get'], ...TINY }).catch((e: unknown) => e);
      expect(isAppError(error), url).toBe(true);
      expect((error as Error).message).toMatch(/--allow-remote/);
    }
  });

  it('stops cleanly when aborted, keeping partial figures and skipping the rest', async () => {
    const controller = new AbortController();
    const report = await runLoadtest(
      { url: t.url, scenarios: ['auth-get', 'screen-simple'], admin: ADMIN, duration: 30, warmup: 0, connections: 2 },
      { signal: controller.signal, onProgress: (e) => e.type === 'tick' && controller.abort() },
    );
    expect(report.aborted).toBe(true);
    expect(report.scenarios.map((s) => s.status)).toEqual(['aborted', 'skipped']);
    // Stopped at the first progress tick (about 1 s), not after 30 s.
    expect(report.scenarios[0]!.duration_s).toBeLessThan(10);
  });

  it('drives ws-fanout end to end: ticks through POST /admin/ticks reach every subscriber', async () => {
    // Given 12 clients on 3 of 12 stocks each: 12 × 3 / 12 = 3 subscribers per stock
    const report = await runLoadtest({ url: t.url, scenarios: ['ws-fanout'], admin: ADMIN, duration: 2, connections: 12, ws: { stocks: 12, perConnection: 3, tickRate: 60, workers: 1 } });
    const find = (metric: string) => row(report, 'ws-fanout', metric);
    expect(report.scenarios[0]!.settings).toMatchObject({ tick_source: 'POST /api/v1/admin/ticks', clients: 12 });
    expect(find('connect success')).toMatchObject({ measured: 100, pass: true });
    // No tick was refused by the daemon (the generator may skip a few on a busy machine when four
    // batches are still in flight: that is its own back-pressure, reported, not a failure)
    expect(find('ticks accepted/s').note ?? 'ticks rejected 0').toMatch(/^ticks rejected 0\b/);
    expect(find('ticks accepted/s').measured).toBeGreaterThan(0);
    const ratio = find('messages delivered/s').measured! / find('messages offered/s').measured!;
    expect(ratio).toBeGreaterThan(0.7);
    expect(ratio).toBeLessThan(1.15);
    expect(find('sequence gaps')).toMatchObject({ measured: 0, pass: true });
    expect(find('latency p99').measured).not.toBeNull();
  });

  it('runs ws-reconnect-storm end to end against the daemon, reporting first-attempt connects, its memory and live latency during the storm', async () => {
    // The daemon runs in this process: its RSS is read from /proc under this pid.
    const report = await runLoadtest({
      url: t.url, scenarios: ['ws-reconnect-storm'], admin: ADMIN, duration: 1, connections: 10,
      ws: { stocks: 10, tickRate: 40, daemonPid: process.pid }, storm: { perConnection: 2, downtime: 0.5, window: 0.5 },
    });
    const find = (metric: string) => row(report, 'ws-reconnect-storm', metric);
    expect(find('connected on the first attempt')).toMatchObject({ measured: 100, pass: true });
    expect(find('daemon RSS before the storm')).toMatchObject({ unit: 'MB', note: 'read from /proc' });
    expect(find('daemon RSS peak during the storm').measured).toBeGreaterThan(0);
    // Ticks keep flowing while the clients come back: the reconnected clients read live updates.
    expect(find('tick → client p50 during the storm').note).toMatch(/^[1-9]\d* live updates/);
    expect(find('tick → client p99 during the storm').measured).not.toBeNull();
    // What tells a slow daemon from a slow generator or a full accept queue is reported beside it.
    expect(find('handshake time p99').measured).toBeGreaterThan(0);
    expect(find('daemon CPU during the storm').note).toMatch(/from \/proc/);
    expect(find('daemon CPU per reconnect').measured).toBeGreaterThan(0);
    expect(find('accept-queue overflows during the storm').note).toMatch(/somaxconn \d+/);
    expect(find('generator event-loop delay p99').measured).not.toBeNull();
    // The admin reads the daemon's own loop delay from its /metrics.
    expect(find('daemon event-loop delay max during the storm').measured).toBeGreaterThan(0);
    expect(find('restorations succeeded')).toMatchObject({ measured: 100, pass: true });
    expect(find('sequence gaps')).toMatchObject({ measured: 0, pass: true });
    expect(find('messages lost in flight at the drop')).toMatchObject({ measured: 0, pass: true });
    expect(find('messages replayed').measured).toBe(find('missed messages (server count)').measured);
    expect(find('missed messages (server count)').measured).toBeGreaterThan(0);
  });
});
