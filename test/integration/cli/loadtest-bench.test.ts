/**
 * The README tour's load test against a daemon with the default rate limits
 * (as `npm run up` serves it): refused with exact instructions until an admin grants a
 * load-test exemption; the grant is listed and revocable; an admin's runs keep one bench
 * account whose login is reused; `--cleanup` removes what the runs created.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type FakeIO, type TempEnv } from './fake-io.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const ME = { email: 'me@example.com', password: 'correct horse battery' };
const TINY = ['--duration', '1s', '--warmup', '0s', '--connections', '2'];

type Row = { scenario: string; metric: string; measured: number | null };
const failed = (report: { rows: Row[] }) => report.rows.find((r) => r.metric === 'failed requests')?.measured;

describe('stockscreen loadtest with the default rate limits (the README tour)', () => {
  let t: TestDaemon;
  let e: TempEnv;
  const cli = async (argv: string[], io: FakeIO = fakeIO()) => ({ code: await run(['--url', t.url, ...argv], io, e.env), io });
  const adminToken = async () => (await t.login(ADMIN.email, ADMIN.password)).access_token;
  const accounts = async () =>
    ((await (await t.request('/api/v1/admin/users?limit=500', { token: await adminToken() })).json()) as { data: { email: string }[] }).data.map((u) => u.email);

  beforeAll(async () => {
    // Rate limits as `npm run up` has them: on, with the spec's endpoint limits (POST /screen: 50 an hour).
    t = await startTestDaemon('cli-loadtest-bench', { workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password, rate_limit: { enabled: true } });
    e = await tempEnv();
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: await adminToken(), json: { type: 'load-sample', seed: 3, stocks: 30, days: 120 } });
    await waitForJob(t.daemon, ((await job.json()) as { data: { id: string } }).data.id);
    expect((await cli(['register', '--email', ME.email, '--password-stdin'], fakeIO({ stdin: ME.password }))).code).toBe(0);
    expect((await cli(['login', '--email', ME.email, '--password-stdin'], fakeIO({ stdin: ME.password }))).code).toBe(0);
    expect((await cli(['--profile', 'admin', 'login', '--email', ADMIN.email, '--password-stdin'], fakeIO({ stdin: ADMIN.password }))).code).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await e.cleanup();
    await t.close();
  });

  it('refuses a user without an exemption and says exactly what to do, then passes once an admin grants one', async () => {
    // Given the registered user without an exemption
    // When the tour's load test runs
    const refused = await cli(['loadtest', 'screen-simple', ...TINY]);
    // Then nothing is sent and the user reads the command an admin must run
    expect(refused.code).toBe(1);
    expect(refused.io.err()).toContain('me@example.com has no load-test exemption');
    expect(refused.io.err()).toContain('ask an admin to run `stockscreen admin users loadtest-grant me@example.com --for 2h`');
    // When the admin grants it
    const grant = await cli(['--profile', 'admin', 'admin', 'users', 'loadtest-grant', ME.email, '--for', '2h']);
    expect(grant.code).toBe(0);
    expect(grant.io.out()).toMatch(/^me@example\.com is exempt from rate limits for load tests until \S+ \(2h\)/);
    // Then the same command runs without a single 429, beyond POST /screen's 50 an hour
    const { code, io } = await cli(['--json', 'loadtest', 'screen-simple', ...TINY]);
    const report = JSON.parse(io.out()) as { rows: Row[]; scenarios: { requests?: number }[] };
    expect(io.err()).toContain('running as me@example.com (your login of profile default), exempt from rate limits until');
    expect(failed(report)).toBe(0);
    expect(code).toBe(0);
  }, 60_000);

  it('lists the exemption with a header row when piped, and revokes it', async () => {
    // Given a grant in force
    await cli(['--profile', 'admin', 'admin', 'users', 'loadtest-grant', ME.email, '--for', '30m']);
    // When the admin lists exemptions, piped
    const list = await cli(['--profile', 'admin', 'admin', 'users', 'loadtest-list']);
    // Then a header row and the account's row
    const [header, row] = list.io.out().trimEnd().split('\n');
    expect(header).toBe('EMAIL\tTIER\tEXPIRES\tLEFT\tGRANTED BY');
    expect(row).toMatch(/^me@example\.com\tfree\t\S+\t(30m|29m\d+s)\tops@example\.com$/);
    // When it is revoked
    expect((await cli(['--profile', 'admin', 'admin', 'users', 'loadtest-revoke', ME.email])).code).toBe(0);
    // Then the account shows none and the list is empty
    const who = await cli(['--json', 'whoami']);
    expect(JSON.parse(who.io.out()).data.loadtest_exempt_until).toBeNull();
    expect((await cli(['--profile', 'admin', 'admin', 'users', 'loadtest-list'])).io.out().trimEnd()).toBe('EMAIL\tTIER\tEXPIRES\tLEFT\tGRANTED BY');
  });

  it('says before it starts which account it runs as, and why not your login when the admin variables are set', async () => {
    // Given me@example.com logged in, and the admin variables of `npm run up` still set in the shell
    const env = { ...e.env, STOCKSCREEN_ADMIN_EMAIL: ADMIN.email, STOCKSCREEN_ADMIN_PASSWORD: ADMIN.password };
    const io = fakeIO();
    const code = await run(['--url', t.url, '--json', 'loadtest', 'screen-simple', ...TINY], io, env);
    expect(code, io.err()).toBe(0);
    // Then stderr names the account first, and that the login is not used
    const first = io.err().split('\n')[0]!;
    expect(first).toMatch(new RegExp(`^running as loadtest-\\S+@example\\.com, the bench account kept for this daemon and profile, made exempt by the admin ${ADMIN.email} of STOCKSCREEN_ADMIN_EMAIL/STOCKSCREEN_ADMIN_PASSWORD \\(unset them to run as your own login\\); your login ${ME.email} is not used$`));
    // (the bench account goes again: the next test counts its own)
    expect(await run(['--url', t.url, 'loadtest', '--cleanup'], fakeIO(), env)).toBe(0);
  });

  it('as an admin: one kept bench account per daemon and profile, exempt for the run, logged in once; --cleanup removes it', async () => {
    // Given two runs by the admin
    const first = await cli(['--profile', 'admin', '--json', 'loadtest', 'screen-simple', ...TINY]);
    const second = await cli(['--profile', 'admin', '--json', 'loadtest', 'screen-simple', ...TINY]);
    // Then both ran unthrottled as the same bench account
    expect(failed(JSON.parse(first.io.out()))).toBe(0);
    expect(failed(JSON.parse(second.io.out()))).toBe(0);
    const benchOf = (err: string) => /(loadtest-[0-9a-f-]+@example\.com) is exempt/.exec(err)?.[1];
    expect(benchOf(first.io.err())).toBeDefined();
    expect(benchOf(second.io.err())).toBe(benchOf(first.io.err()));
    expect((await accounts()).filter((a) => a.startsWith('loadtest-'))).toEqual([benchOf(first.io.err())]);
    // And its login is kept beside the credentials, readable by the owner only
    const file = join(e.env.XDG_CONFIG_HOME!, 'stockscreen', 'loadtest-bench.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // When the admin cleans up
    const clean = await cli(['--profile', 'admin', 'loadtest', '--cleanup']);
    // Then the account is gone from the daemon, and the next run makes a new one
    expect(clean.code).toBe(0);
    expect(clean.io.err()).toContain(`deleted 1 load-test account(s): ${benchOf(first.io.err())}`);
    expect((await accounts()).some((a) => a.startsWith('loadtest-'))).toBe(false);
  }, 60_000);

  it('admin API: 400 with the field for a bad duration, 404 for an unknown account, 403 for a non-admin', async () => {
    const admin = await adminToken();
    const me = await t.login(ME.email, ME.password);
    const put = (id: string, json: unknown, token = admin) => t.request(`/api/v1/admin/users/${id}/loadtest-exemption`, { method: 'PUT', token, json });
    const bad = await put(me.id, { duration_s: 10 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: Record<string, string> } }).error.details).toHaveProperty('duration_s');
    expect((await put('00000000-0000-4000-8000-000000000000', { duration_s: 600 })).status).toBe(404);
    expect((await put(me.id, { duration_s: 600 }, me.access_token)).status).toBe(403);
  });
});
