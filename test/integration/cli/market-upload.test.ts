/**
 * `stockscreen load FILE|FOLDER` streams the files to a daemon that cannot see
 * them (no import_dirs), validation, progress and failure reasons work as before, and real
 * files are never mixed with the sample market unawares (`--replace-sample`).
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { tradingDaysBetween } from '../../../daemon/kernel/krx-calendar.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type FakeIO, type TempEnv } from './fake-io.js';
import { ohlcv, tsv } from './load-files.js';
import { KRX_DIR as KRX_FIXTURES } from '../../helpers/krx-fixtures.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const KRX_DIR = KRX_FIXTURES.replace(/\/$/, '');
const LISTED = '005930';

describe('stockscreen load uploads files to a daemon without import_dirs', () => {
  let t: TestDaemon;
  let e: TempEnv;
  let dir: string;
  const cli = async (argv: string[], io: FakeIO = fakeIO()) => ({ code: await run(['--url', t.url, ...argv], io, e.env), io });

  beforeAll(async () => {
    t = await startTestDaemon('cli-upload', { workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password });
    e = await tempEnv();
    expect((await cli(['login', '--email', ADMIN.email, '--password-stdin'], fakeIO({ stdin: ADMIN.password }))).code).toBe(0);
    dir = join(e.root, 'files');
    await mkdir(dir, { recursive: true });
    const days = tradingDaysBetween('2026-01-02', '2026-03-20');
    await writeFile(join(dir, '000660.csv'), ohlcv(days.slice(0, 10), [0, 1, 2]));
    await writeFile(join(dir, `${LISTED}.csv`), ohlcv(days.slice(0, 40), [5]));
  });
  afterAll(async () => {
    await t?.close();
    await e?.cleanup();
  });

  it('with --no-validate uploads and enqueues a bad file anyway; the worker fails the job and the CLI prints every reason', async () => {
    const { code, io } = await cli(['load', join(dir, '000660.csv'), '--wait', '--no-compute', '--no-validate']);
    expect(code).toBe(1);
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/uploaded 1\/1 000660\.csv \(\d+ B, sha256 [0-9a-f]{12}…\)/);
    // The reasons name the file as the operator named it, not where the daemon keeps it
    expect(io.err()).toMatch(/error: job \d+ \(load-files\) failed: 000660\.csv: 3 of 10 rows invalid \(30\.0% > 5%\); file rejected \(JOB_FAILED\)\n/);
    const reasons = io.err().split('\n').filter((l) => l.startsWith('  000660.csv:'));
    expect(reasons).toEqual([2, 3, 4].map((n) => `  000660.csv:${n}: high 90 below max(open 100, close 95)`));
  });

  it('uploads a folder: validated here, loaded there, unlisted stocks reported with their line', async () => {
    // Given an NDJSON file: a stock, 60 bars of it, a bad bar (line 62) and a bar of a code nothing lists (line 63)
    const days = tradingDaysBetween('2023-01-02', '2023-06-30').slice(0, 61);
    const bar = (code: string, date: string, high = 110) => JSON.stringify({ kind: 'bar', stock_code: code, trade_date: date, open_price: 100, high_price: high, low_price: 90, close_price: 105, volume: 1, trading_value: 100 });
    const folder = join(e.root, 'market');
    await mkdir(folder);
    await writeFile(join(folder, 'extra.ndjson'), [
      JSON.stringify({ kind: 'stock', code: LISTED, name: '삼성전자', market: 'KOSPI' }),
      ...days.slice(0, 60).map((d) => bar(LISTED, d)), bar(LISTED, days[60]!, 95), bar('ZZ0000', days[0]!),
    ].join('\n') + '\n');
    // When the folder is loaded and followed
    const { code, io } = await cli(['load', folder, '--wait', '--no-compute']);
    // Then the local check lists the bad row, and the worker rejects the unlisted stock's row too
    expect(code, io.err()).toBe(0);
    expect(io.err()).toContain(`${join(folder, 'extra.ndjson')}:62: bar: high 95 below max(open 100, close 105)`);
    expect(io.err()).toContain('market/extra.ndjson: 2 rows rejected');
    expect(io.err()).toContain('  market/extra.ndjson:63: unknown stock code ZZ0000 — load a listing or quotes file first');
    expect(io.err()).toMatch(/uploaded 1 file, [\d.]+ kB at [\d.]+ (kB|MB)\/s/);
    expect(tsv(io.out())[0]!.slice(2, 6)).toEqual(['completed', 'done', '61', '2']);
  });

  it('load on a terminal draws the progress view on stderr and the job on stdout', async () => {
    const io = fakeIO({ tty: true, columns: 120 });
    const { code } = await cli(['load', join(dir, `${LISTED}.csv`), '--no-compute'], io);
    expect(code, io.err()).toBe(0);
    expect(io.err()).toMatch(/job \d+/);
    expect(io.out()).toMatch(/state\s+completed/);
    expect(io.out()).toMatch(new RegExp(`${LISTED}\\.csv\\s+ohlcv\\s+40\\s+39\\s+1\\s+0`));
    expect(io.err()).toContain(`${LISTED}.csv:7:`);
    // And the uploads of finished jobs are gone from the daemon's data directory
    expect(await readdir(join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('records the size and sha256 of an upload, and refuses names that leave the upload directory', async () => {
    const token = ((await (await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN })).json()) as { access_token: string }).access_token;
    const upload = (name: string, body: string, type = 'application/octet-stream') =>
      t.request(`/api/v1/admin/uploads?name=${encodeURIComponent(name)}`, { method: 'POST', token, headers: { 'content-type': type }, body });
    const ok = await upload('a/b.csv', 'hello');
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as any).data).toMatchObject({ name: 'a/b.csv', size: 5, sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824' });
    for (const name of ['../x.csv', '/etc/x.csv', 'a/../../x.csv', '.hidden']) expect((await upload(name, 'x')).status, name).toBe(400);
    expect((await upload('x.csv', '{}', 'application/json')).status).toBe(415);
  });
});

describe('the sample market and real files are never mixed unawares', () => {
  let t: TestDaemon;
  let e: TempEnv;
  const cli = async (argv: string[], io: FakeIO = fakeIO()) => ({ code: await run(['--url', t.url, ...argv], io, e.env), io });
  const count = async (): Promise<number> => JSON.parse((await cli(['--json', 'stocks', 'list', '--limit', '1'])).io.out()).meta.total;

  beforeAll(async () => {
    t = await startTestDaemon('cli-mix', { workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password });
    e = await tempEnv();
    expect((await cli(['login', '--email', ADMIN.email, '--password-stdin'], fakeIO({ stdin: ADMIN.password }))).code).toBe(0);
    expect((await cli(['load', 'sample', '--seed', '3', '--stocks', '30', '--days', '60', '--wait'])).code).toBe(0);
  });
  afterAll(async () => {
    await t?.close();
    await e?.cleanup();
  });

  const jobCount = async (): Promise<number> => tsv((await cli(['jobs', 'list', '--limit', '200'])).io.out()).length;
  const uploads = async (): Promise<string[]> => readdir(join(t.dataDir, 'uploads')).catch(() => []);

  it('stops a load of real files over the sample market before uploading anything, with the flag that does it', async () => {
    // Given the sample market (30 stocks) and no upload yet
    const jobsBefore = await jobCount();
    // When real files are loaded without --replace-sample
    const { code, io } = await cli(['load', join(KRX_DIR, 'listing', '2026-03-20.csv'), '--wait']);
    // Then it is refused at once: nothing uploaded, no job, nothing changed, and the flag is named
    expect(code).toBe(1);
    expect(io.err()).toContain("error: the daemon's database holds the generated sample market (30 stocks): loading real files would mix them with it; nothing was uploaded (CONFLICT)");
    expect(io.err()).toContain('hint: add --replace-sample to remove the sample market in the same transaction as this load');
    expect(io.err()).not.toMatch(/uploaded \d/);
    expect(await uploads()).toEqual([]);
    expect(await jobCount()).toBe(jobsBefore);
    expect(await count()).toBe(30);
  });

  it('refuses a second sample market that would merge into the first, saying what --replace does', async () => {
    // When a smaller sample market is loaded over the 30-stock one
    const merge = await cli(['load', 'sample', '--stocks', '20', '--wait']);
    // Then it is refused (409 before any job) with what would have happened and the flag
    expect(merge.code).toBe(1);
    expect(merge.io.err()).toContain('the database already holds the sample market (30 stocks): loading the sample market again (20 stocks) would merge into it');
    expect(merge.io.err()).toContain('hint: to do that, run it again with --replace: stockscreen load sample --stocks 20 --replace');
    expect(await count()).toBe(30);
    // And with --replace the database holds exactly the 20 largest listed issues, 삼성전자 first
    const replaced = await cli(['load', 'sample', '--seed', '3', '--stocks', '20', '--days', '60', '--replace', '--wait']);
    expect(replaced.code, replaced.io.err()).toBe(0);
    expect(await count()).toBe(20);
    expect((await cli(['stocks', 'show', '005930'])).io.out()).toContain('삼성전자');
    // And the API says the same, as 409 with the field meant
    const token = ((await (await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN })).json()) as { access_token: string }).access_token;
    const res = await t.request('/api/v1/admin/jobs', { method: 'POST', token, json: { type: 'load-sample', stocks: 500 } });
    expect(res.status).toBe(409);
    expect(((await res.json()) as any).error).toMatchObject({ code: 'CONFLICT', details: { content: 'sample', stocks: 20, flag: 'replace', cli_flag: '--replace' } });
    expect(((await (await t.request('/api/v1/admin/market', { token })).json()) as any).data).toEqual({ content: 'sample', stocks: 20 });
  });

  it('with --replace-sample removes the sample market in the same transaction as the load', async () => {
    const { code, io } = await cli(['load', join(KRX_DIR, 'listing', '2026-03-20.csv'), '--wait', '--replace-sample']);
    expect(code, io.err()).toBe(0);
    // Only the real issues are left: Samsung Electronics with its one real bar, no generated history
    const history = JSON.parse((await cli(['--json', 'stocks', 'history', LISTED])).io.out());
    expect(history.data).toHaveLength(1);
    expect(await count()).toBeGreaterThan(2000);
    // And a second sample load does not mix into the real files either
    const again = await cli(['load', 'sample', '--seed', '3', '--stocks', '30', '--days', '60', '--wait']);
    expect(again.code).toBe(1);
    expect(again.io.err()).toContain('the database holds loaded market files');
  }, 120_000);
});
