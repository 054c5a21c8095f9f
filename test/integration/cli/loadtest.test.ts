import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type FakeIO, type TempEnv } from './fake-io.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
// Endpoint limits would throttle the setup and the load; tier limits stay on (the subject of some tests).
const RAISED = { 'POST /screen': 1e9, 'GET /stocks/{code}': 1e9, 'POST /auth/register': 1e9, 'POST /auth/login': 1e9 };
const TINY = ['--duration', '1s', '--warmup', '0s', '--connections', '2'];

type Row = { scenario: string; metric: string; measured: number | null; pass: boolean | null; target: unknown; note?: string };
const row = (report: { rows: Row[] }, scenario: string, metric: string): Row => {
  const found = report.rows.find((r) => r.scenario === scenario && r.metric === metric);
  if (!found) throw new Error(`no row ${scenario} / ${metric}`);
  return found;
};

describe('stockscreen loadtest', () => {
  let t: TestDaemon;
  let e: TempEnv;
  /** The environment with the admin given (the bench user is lifted). */
  let adminEnv: NodeJS.ProcessEnv;
  const cli = async (argv: string[], io: FakeIO = fakeIO(), env?: NodeJS.ProcessEnv) => ({ code: await run(['--url', t.url, ...argv], io, env ?? e.env), io });

  beforeAll(async () => {
    t = await startTestDaemon('cli-loadtest', {
      workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password,
      rate_limit: { anonymous_per_hour: 1e9, endpoints: RAISED },
      feed: 'ingest', market_clock: 'always-open',
    });
    e = await tempEnv();
    adminEnv = { ...e.env, STOCKSCREEN_ADMIN_EMAIL: ADMIN.email, STOCKSCREEN_ADMIN_PASSWORD: ADMIN.password };
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN });
    const admin = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 7, stocks: 40, days: 260 } });
    await waitForJob(t.daemon, ((await job.json()) as { data: { id: string } }).data.id);
  }, 120_000);
  afterAll(async () => {
    await e.cleanup();
    await t.close();
  });

  it('runs a short scenario and prints the report as JSON with the spec target judged', async () => {
    const { code, io } = await cli(['--json', 'loadtest', 'screen-simple', ...TINY], fakeIO(), adminEnv);
    const report = JSON.parse(io.out());
    const p95 = row(report, 'screen-simple', 'latency p95');
    expect(p95.target).toMatchObject({ op: '<', value: 200 });
    expect(typeof p95.measured).toBe('number');
    expect(row(report, 'screen-simple', 'failed requests')).toMatchObject({ measured: 0, pass: true });
    expect(code).toBe(report.pass === false ? 1 : 0);
    // Piped (--json): plain progress lines on stderr, no live view.
    expect(io.err()).toContain('▶ screen-simple (1/1)');
    expect(io.err()).not.toContain('░');
  });

  it('writes to --out exactly the JSON that --json prints', async () => {
    // Given an output file
    const file = join(e.root, 'report.json');
    // When the run prints JSON and writes the file
    const { io } = await cli(['--json', 'loadtest', 'auth-get', ...TINY, '--out', file], fakeIO(), adminEnv);
    // Then both hold the same report, byte for byte
    const written = await readFile(file, 'utf8');
    expect(written).toBe(io.out());
    expect(JSON.parse(written)).toMatchObject({ url: t.url, scenarios: [{ scenario: 'auth-get' }] });
  });

  it('writes the --out file also when the table goes to stdout', async () => {
    const file = join(e.root, 'table-run.json');
    const { io } = await cli(['loadtest', 'auth-get', ...TINY, '--out', file], fakeIO(), adminEnv);
    expect(io.out()).toMatch(/^Load test of /);
    expect(JSON.parse(await readFile(file, 'utf8')).rows.some((r: Row) => r.scenario === 'auth-get')).toBe(true);
  });

  it('draws the live Ink view on a terminal and plain lines when piped', async () => {
    // Given a terminal: the live view (bar, phase, figures) is drawn on stderr and the table on stdout
    const tty = await cli(['loadtest', 'auth-get', '--duration', '2s', '--warmup', '0s', '--connections', '2'], fakeIO({ tty: true, columns: 100 }), adminEnv);
    expect(tty.io.err()).toMatch(/loadtest 1\/1 auth-get/);
    expect(tty.io.err()).toMatch(/[█░]{30}/);
    expect(tty.io.err()).toMatch(/req\/s · 2 connections · 0 failed/);
    expect(tty.io.err()).toContain('✓ auth-get pass');
    expect(tty.io.err()).not.toContain('▶ auth-get');
    expect(tty.io.out()).toContain('SCENARIO');
    // Given piped output: one line per scenario start, phase and end, no bar
    const piped = await cli(['loadtest', 'auth-get', ...TINY], fakeIO(), adminEnv);
    expect(piped.io.err()).toContain('▶ auth-get (1/1)');
    expect(piped.io.err()).toContain('  auth-get: measure');
    expect(piped.io.err()).toContain('■ auth-get: pass');
    expect(piped.io.err()).not.toMatch(/[█░]/);
  });

  it('with a saved admin login, runs as a kept bench account given a load-test exemption', async () => {
    // Given the admin logged in (profile ops) and no admin in the environment
    expect((await cli(['--profile', 'ops', 'login', '--email', ADMIN.email, '--password-stdin'], fakeIO({ stdin: ADMIN.password }))).code).toBe(0);
    // When a run starts
    const { code, io } = await cli(['--profile', 'ops', '--json', 'loadtest', 'screen-simple', ...TINY]);
    // Then a fresh bench user carries the load, unthrottled
    const report = JSON.parse(io.out());
    expect(io.err()).toMatch(/bench account \(kept for this daemon and profile; `stockscreen loadtest --cleanup` removes it\): loadtest-\S+@example\.com is exempt/);
    expect(row(report, 'screen-simple', 'failed requests')).toMatchObject({ measured: 0, pass: true });
    expect(code).toBe(report.pass === false ? 1 : 0);
    const admin = (await t.login(ADMIN.email, ADMIN.password)).access_token;
    const users = (await (await t.request('/api/v1/admin/users?limit=100', { token: admin })).json()) as { data: { email: string; loadtest_exempt_until: string | null }[] };
    const bench = users.data.filter((u) => u.email.startsWith('loadtest-'));
    // One per profile (this one and the runs above with the admin in the environment).
    expect(bench).toHaveLength(2);
    expect(bench.every((u) => u.loadtest_exempt_until !== null)).toBe(true);
  });

  it('runs ws-fanout with --market: every client also gets the market, its stocks drawn from it', async () => {
    // Given 4 clients on 2 KOSDAQ stocks each plus the KOSDAQ market
    const { io } = await cli(['--json', 'loadtest', 'ws-fanout', '--duration', '1s', '--ws-clients', '4', '--stocks-per-client', '2', '--market', 'KOSDAQ'], fakeIO(), adminEnv);
    const report = JSON.parse(io.out());
    expect(report.scenarios[0]).toMatchObject({ scenario: 'ws-fanout', settings: { market: 'KOSDAQ', clients: 4, tick_source: 'POST /api/v1/admin/ticks' } });
    expect(row(report, 'ws-fanout', 'connect success')).toMatchObject({ measured: 100, pass: true });
    // Every tick reaches every client (each is subscribed to the whole pool's market): delivered ≈ offered.
    const delivered = row(report, 'ws-fanout', 'messages delivered/s').measured!;
    const offered = row(report, 'ws-fanout', 'messages offered/s').measured!;
    expect(delivered).toBeGreaterThan(0);
    expect(delivered / offered).toBeGreaterThan(0.7);
    expect(delivered / offered).toBeLessThan(1.15);
    expect(row(report, 'ws-fanout', 'sequence gaps')).toMatchObject({ measured: 0, pass: true });
  });

  it('refuses a remote target without --allow-remote, and unknown scenarios and markets', async () => {
    const remote = fakeIO();
    expect(await run(['--url', 'http://10.1.2.3:8000', 'loadtest', 'screen-simple', '--duration', '1s'], remote, e.env)).toBe(1);
    expect(remote.err()).toMatch(/loopback|allow-remote/i);
    const unknown = await cli(['loadtest', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.io.err()).toMatch(/unknown scenario/);
    const market = await cli(['loadtest', 'ws-fanout', '--market', 'NYSE']);
    expect(market.code).toBe(2);
    expect(market.io.err()).toMatch(/KOSPI, KOSDAQ/);
  });
});
