import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { tradingDaysBetween } from '../../../daemon/kernel/krx-calendar.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type FakeIO, type TempEnv } from './fake-io.js';
import { ohlcv, tsv } from './load-files.js';
import { krxFile } from '../../helpers/krx-fixtures.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };

describe('stockscreen load, jobs, stocks and export against a daemon with a worker', () => {
  let t: TestDaemon;
  let e: TempEnv;
  let sampleJob: string;
  const cli = async (argv: string[], io: FakeIO = fakeIO()) => ({ code: await run(['--url', t.url, ...argv], io, e.env), io });

  beforeAll(async () => {
    t = await startTestDaemon('cli-load', { workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password });
    e = await tempEnv();
    expect((await cli(['login', '--email', ADMIN.email, '--password-stdin'], fakeIO({ stdin: ADMIN.password }))).code).toBe(0);
  });
  afterAll(async () => {
    await t?.close();
    await e?.cleanup();
  });

  it('load sample --wait follows the job to the end and prints the completed job', async () => {
    // When loading a small sample market and waiting, with piped output
    const { code, io } = await cli(['load', 'sample', '--seed', '7', '--stocks', '60', '--days', '260', '--wait']);
    // Then the job completes: one TSV row id, type, state, phase, rows_ok, rows_rejected, indicators, …
    expect(code, io.err()).toBe(0);
    const [row] = tsv(io.out());
    const [id, type, state, phase, rowsOk, rejected, indicators] = row!;
    sampleJob = id!;
    expect([type, state, phase, rejected]).toEqual(['load-sample', 'completed', 'done', '0']);
    expect(Number(rowsOk)).toBeGreaterThan(60 * 250); // 60 stocks × ~260 bars, plus financials
    expect(indicators).toMatch(/^60 stocks \(version /);
    // And progress went to stderr, one line per change, ending in the done phase
    const progress = io.err().split('\n').filter((l) => l.startsWith(`job ${id} `));
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.at(-1)).toMatch(/^job \d+ done/);
  });

  it('jobs list shows the job under a header row; jobs show --json is the API body', async () => {
    const list = await cli(['jobs', 'list']);
    expect(list.code).toBe(0);
    const [header, ...rows] = tsv(list.io.out());
    expect(header).toEqual(['ID', 'TYPE', 'STATE', 'PHASE', 'DONE', 'ROWS_OK', 'REJECTED', 'CREATED', 'FINISHED']);
    expect(rows.find((r) => r[0] === sampleJob)?.slice(1, 3)).toEqual(['load-sample', 'completed']);

    const shown = await cli(['--json', 'jobs', 'show', sampleJob]);
    const body = JSON.parse(shown.io.out());
    const direct = await (await t.request(`/api/v1/admin/jobs/${sampleJob}`, { token: await adminToken() })).json() as { data: unknown };
    expect(body.status).toBe('success');
    expect(body.data).toEqual(direct.data);

    const missing = await cli(['jobs', 'show', '999999']);
    expect(missing.code).toBe(1);
    expect(missing.io.err()).toContain('NOT_FOUND');
  });

  it('load --dry-run of a quote file without a date names the --date flag', async () => {
    // Given the real listing of 2026-03-20 under a name that carries no date
    const file = join(e.root, 'quotes.csv');
    await writeFile(file, await readFile(krxFile('listing/2026-03-20.csv')));
    // When it is dry-run
    const { code, io } = await cli(['load', file, '--dry-run']);
    // Then the refusal names the flag the user can pass, not an option of the library
    expect(code).toBe(1);
    const said = io.out() + io.err();
    expect(said).toContain('no trade date: give one (--date YYYY-MM-DD with stockscreen load');
    expect(said).not.toContain('tradeDate');
    // And with --date it parses
    const dated = await cli(['load', file, '--dry-run', '--date', '2026-03-20']);
    expect(dated.code, dated.io.err()).toBe(0);
  });

  it('load --dry-run parses every file here, lists each rejected row and enqueues nothing', async () => {
    const dir = join(e.root, 'dry');
    await mkdir(dir, { recursive: true });
    const days = tradingDaysBetween('2026-01-02', '2026-03-20');
    expect(days.length).toBeGreaterThanOrEqual(40);
    // 40 bars with one bad one (row 6 → file line 7: the header is line 1): 2.5%, under the 5% limit.
    await writeFile(join(dir, '005930.csv'), ohlcv(days.slice(0, 40), [5]));
    // 10 bars with three bad ones: 30%, the whole file would be refused.
    await writeFile(join(dir, '000660.csv'), ohlcv(days.slice(0, 10), [0, 1, 2]));
    const jobsBefore = tsv((await cli(['jobs', 'list', '--limit', '200'])).io.out()).length;

    const { code, io } = await cli(['load', dir, '--dry-run']);
    // Then exit 1 (a file would be refused), a table of both files, and every reason on stderr
    expect(code).toBe(1);
    const [header, ...rows] = tsv(io.out());
    expect(header).toEqual(['FILE', 'FORMAT', 'ROWS', 'OK', 'REJECTED', 'SKIPPED', 'STATUS']);
    const byFile = new Map(rows.map((r) => [r[0]!.split('/').at(-1), r]));
    expect(byFile.get('005930.csv')?.slice(1)).toEqual(['ohlcv', '40', '39', '1', '0', 'ok']);
    expect(byFile.get('000660.csv')?.slice(1, 5)).toEqual(['ohlcv', '10', '7', '3']);
    expect(byFile.get('000660.csv')?.[6]).toMatch(/^refused: 3 of 10 rows invalid \(30\.0% > 5%\)/);
    const reasons = io.err().split('\n').filter((l) => /\.csv:\d+: /.test(l));
    // Files in load order (the same format: by path), each reason as file:line.
    expect(reasons.map((l) => l.replace(/^.*\//, '').replace(/: .*$/, ''))).toEqual(['000660.csv:2', '000660.csv:3', '000660.csv:4', '005930.csv:7']);
    expect(reasons[3]).toMatch(/high/i);
    expect(io.err()).toContain('nothing was enqueued');
    // And no job was created
    expect(tsv((await cli(['jobs', 'list', '--limit', '200'])).io.out())).toHaveLength(jobsBefore);
  });

  it('refuses here a file the worker would reject, printing each reason with file and line, and enqueues nothing', async () => {
    // Given the 10-row history file with 3 bad rows (30% > 5%)
    const file = join(e.root, 'dry', '000660.csv');
    const jobsBefore = tsv((await cli(['jobs', 'list', '--limit', '200'])).io.out()).length;
    // When loading it (validation is on by default)
    // (over the sample market this test loads: --replace-sample, else the daemon refuses first)
    const { code, io } = await cli(['load', file, '--wait', '--no-compute', '--replace-sample']);
    // Then exit 1, every rejected row as file:line: reason, the verdict, and no job
    expect(code).toBe(1);
    expect(io.out()).toBe('');
    const err = io.err();
    for (const line of [2, 3, 4]) expect(err).toContain(`${file}:${line}: high 90 below max(open 100, close 95)`);
    expect(err).toMatch(/error: 1 of 1 file would be rejected by the worker; nothing was enqueued \(VALIDATION_FAILED\)/);
    expect(err).toContain(`${file}: 3 of 10 rows invalid (30.0% > 5%)`);
    expect(tsv((await cli(['jobs', 'list', '--limit', '200'])).io.out())).toHaveLength(jobsBefore);
  });

  it('refuses paths that do not exist, and flags for folders, before enqueueing', async () => {
    const missing = await cli(['load', join(e.root, 'nope.csv')]);
    expect(missing.code).toBe(2);
    expect(missing.io.err()).toContain('nope.csv: cannot read (ENOENT)');
    const folder = await cli(['load', join(e.root, 'dry'), '--format', 'ohlcv']);
    expect(folder.code).toBe(2);
    expect(folder.io.err()).toContain('--format, --date and --code apply to single files');
  });

  it('stocks list piped is a header row and raw TSV rows, largest market cap first', async () => {
    const { code, io } = await cli(['stocks', 'list', '--limit', '10']);
    expect(code).toBe(0);
    const [header, ...rows] = tsv(io.out());
    expect(header).toEqual(['CODE', 'NAME', 'MARKET', 'SECTOR', 'CLOSE', 'CHANGE_PERCENT', 'MARKET_CAP', 'VOLUME']);
    expect(rows).toHaveLength(10);
    const caps = rows.map((r) => Number(r[6]));
    expect(caps.every((c) => c > 0)).toBe(true);
    expect([...caps].sort((a, b) => b - a)).toEqual(caps);
    const asc = tsv((await cli(['stocks', 'list', '--limit', '5', '--sort', 'close:asc'])).io.out()).slice(1).map((r) => Number(r[4]));
    expect([...asc].sort((a, b) => a - b)).toEqual(asc);
    const bad = await cli(['stocks', 'list', '--sort', 'per']);
    expect(bad.code).toBe(2);
  });

  it('stocks show, history and financials answer for a loaded stock', async () => {
    const code = tsv((await cli(['stocks', 'list', '--limit', '1'])).io.out())[1]![0]!;
    const show = JSON.parse((await cli(['--json', 'stocks', 'show', code])).io.out());
    expect(show.data.code).toBe(code);
    expect(show.data.indicators.sma_20).toBeGreaterThan(0);

    const history = await cli(['stocks', 'history', code, '--limit', '5']);
    const [header, ...bars] = tsv(history.io.out());
    expect(header).toEqual(['DATE', 'OPEN', 'HIGH', 'LOW', 'CLOSE', 'VOLUME', 'TRADING_VALUE']);
    expect(bars).toHaveLength(5);
    const dates = bars.map((b) => b[0]!);
    expect([...dates].sort()).toEqual(dates); // oldest first
    expect(bars.every((b) => Number(b[2]) >= Math.max(Number(b[1]), Number(b[4])))).toBe(true);

    // On a terminal: a chart of closes above the last bars, numbers formatted
    const tty = await cli(['stocks', 'history', code, '--limit', '30'], fakeIO({ tty: true, columns: 100 }));
    expect(tty.code).toBe(0);
    expect(tty.io.out()).toMatch(/│[ ▁▂▃▄▅▆▇█]+\n/);
    expect(tty.io.out()).toContain(dates.at(-1)!);
    expect(tty.io.err()).toContain('last 10 of 30 bars');

    const fin = await cli(['stocks', 'financials', code]);
    const [finHeader, ...quarters] = tsv(fin.io.out());
    expect(finHeader![0]).toBe('PERIOD');
    expect(quarters).toHaveLength(4);
    expect(quarters.map((q) => q[0])).toEqual([...quarters.map((q) => q[0]!)].sort().reverse()); // newest first

    const unknown = await cli(['stocks', 'show', 'ZZZZZZ']);
    expect(unknown.code).toBe(1);
    expect(unknown.io.err()).toContain('NOT_FOUND');
    expect((await cli(['stocks', 'price', '12345'])).code).toBe(2);
  });

  it('export writes <dir>/market-<date>.ndjson whose first line is the meta line', async () => {
    const dir = join(e.root, 'exports', 'nested');
    const { code, io } = await cli(['export', dir]);
    expect(code, io.err()).toBe(0);
    const file = io.out().trim();
    expect(file).toMatch(/\/exports\/nested\/market-\d{4}-\d{2}-\d{2}\.ndjson$/);
    expect(await readdir(dir)).toEqual([file.split('/').at(-1)]); // no partial file left behind
    const text = await readFile(file, 'utf8');
    const lines = text.trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ kind: 'meta', format: 'stockscreen-market' });
    expect(lines.filter((l) => l.includes('"kind":"stock"'))).toHaveLength(60);
    expect(io.err()).toContain(`wrote ${lines.length.toLocaleString('en-US')} lines`);
  });

  async function adminToken(): Promise<string> {
    const res = await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN });
    return ((await res.json()) as { access_token: string }).access_token;
  }
});
