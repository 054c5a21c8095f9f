/** `stockscreen screen --as-of` and `stockscreen backtest` against a test daemon on a sample market. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type FakeIO, type TempEnv } from './fake-io.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const USER = { email: 'tester@example.com', password: 'correct horse battery' };

describe('stockscreen backtest and screen --as-of', () => {
  let t: TestDaemon;
  let e: TempEnv;
  let dates: readonly string[];
  const cli = async (argv: string[], io: FakeIO = fakeIO()) => ({ code: await run(['--url', t.url, ...argv], io, e.env), io });

  beforeAll(async () => {
    t = await startTestDaemon('cli-backtest', { workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN });
    const admin = ((await login.json()) as { access_token: string }).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 3, stocks: 30, days: 200 } });
    await waitForJob(t.daemon, ((await job.json()) as { data: { id: string } }).data.id);
    dates = (await t.daemon.context().screening.asOf.history()).dates;
    e = await tempEnv();
    expect((await cli(['register', '--email', USER.email, '--password-stdin'], fakeIO({ stdin: USER.password }))).code).toBe(0);
    expect((await cli(['login', '--email', USER.email, '--password-stdin'], fakeIO({ stdin: USER.password }))).code).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await e?.cleanup();
  });

  it('screens as of a date and says which day was used', async () => {
    const { code, io } = await cli(['screen', '--as-of', dates[100]!, '--limit', '5', '--json']);
    expect(code, io.err()).toBe(0);
    expect(JSON.parse(io.out()).meta.as_of).toBe(dates[100]);
  });

  it('runs a long weekly backtest as a followed job and prints the equity curve as CSV', async () => {
    const { code, io } = await cli(['backtest', '--template', 'momentum', '--from', dates[60]!, '--rebalance', 'weekly', '--top', '5', '--csv', 'equity']);
    expect(code, io.err()).toBe(0);
    const lines = io.out().trimEnd().split('\n');
    expect(lines[0]).toBe('date,equity,benchmark');
    expect(lines[1]!.startsWith(`${dates[60]},100000000,`)).toBe(true);
    expect(lines.length).toBe(dates.length - 60 + 1);
    // Progress went to stderr: queued first, ending with every rebalance done.
    expect(io.err()).toMatch(/^backtest [0-9a-f]{8} queued, waiting for a worker \(\d+ rebalances\)$/m);
    expect(io.err()).toMatch(/(\d+)\/\1 rebalances/);
  });

  it('lists your runs, shows one, and refuses to cancel one that ended', async () => {
    // Given the long run of the test before, completed
    const list = await cli(['backtest', 'list', '--limit', '5']);
    expect(list.code, list.io.err()).toBe(0);
    const [header, first] = list.io.out().trimEnd().split('\n');
    expect(header).toBe('id\tstatus\tprogress\tscreen\tfrom\trebalance\tcreated\tfinished\terror');
    const [id, status, progress, screen, from, rebalance] = first!.split('\t');
    expect([status, screen, from, rebalance]).toEqual(['completed', 'template:momentum', dates[60], 'weekly']);
    expect(progress).toMatch(/^(\d+)\/\1$/);
    // When shown, it prints the same summary as the run did; as CSV, its curve
    const show = await cli(['backtest', 'show', id!]);
    expect(show.code, show.io.err()).toBe(0);
    expect(show.io.out()).toMatch(new RegExp(`^period\t${dates[60]} … `, 'm'));
    expect(show.io.out()).toMatch(/^rebalances\t\d+$/m);
    const csv = await cli(['backtest', 'show', id!, '--csv', 'trades']);
    expect(csv.io.out().split('\n')[0]).toBe('date,code,side,shares,price,fee,tax,reason');
    // And cancelling it is refused: it has ended
    const cancel = await cli(['backtest', 'cancel', id!]);
    expect(cancel.code).toBe(1);
    expect(cancel.io.err()).toMatch(/already completed/);
  });

  it('prints the summary as TSV when piped and the API body with --json', async () => {
    const piped = await cli(['backtest', '--where', 'per > 0', '--sort', 'per:asc', '--from', dates[120]!, '--rebalance', 'monthly', '--top', '3']);
    expect(piped.code, piped.io.err()).toBe(0);
    expect(piped.io.out()).toMatch(/^metric\tvalue\n/);
    expect(piped.io.out()).toMatch(/total return\t-?\d+\.\d+%/);
    const json = await cli(['backtest', '--template', 'value', '--from', dates[120]!, '--json']);
    expect(json.code, json.io.err()).toBe(0);
    const body = JSON.parse(json.io.out());
    expect(body.data.status).toBe('completed');
    expect(body.data.result.curve[0].date).toBe(dates[120]);
  });

  it('draws the summary table and the equity chart against the benchmark on a terminal', async () => {
    const { code, io } = await cli(['backtest', '--template', 'value', '--from', dates[150]!], fakeIO({ tty: true, columns: 90 }));
    expect(code, io.err()).toBe(0);
    expect(io.out()).toContain('total return');
    expect(io.out()).toContain('equity █ vs benchmark');
    expect(io.out()).toMatch(/[█▓]/);
  });

  it('rejects --from after the last loaded date with the server\'s details', async () => {
    const { code, io } = await cli(['backtest', '--template', 'value', '--from', '2099-01-01']);
    expect(code).toBe(1);
    expect(io.err()).toMatch(/from/);
  });
});
