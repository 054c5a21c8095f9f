import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type FakeIO, type TempEnv } from './fake-io.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const USER = { email: 'screener@example.com', password: 'correct horse battery' };

/** Header and rows of piped output, each row as an object keyed by the header's field ids (lower case). */
function parseTsv(text: string): { header: string[]; rows: Record<string, string>[] } {
  const [head, ...lines] = text.trimEnd().split('\n');
  const header = head!.split('\t');
  // Keyed by the header and by its lower case (a screen's headers are its field ids in upper case).
  return { header, rows: lines.map((l) => Object.fromEntries(l.split('\t').flatMap((v, i) => [[header[i]!, v], [header[i]!.toLowerCase(), v]]))) };
}

describe('stockscreen screen, fields, templates and presets on a sample market', () => {
  let t: TestDaemon;
  let e: TempEnv;
  const cli = async (argv: string[], io: FakeIO = fakeIO()) => ({ code: await run(['--url', t.url, ...argv], io, e.env), io });

  beforeAll(async () => {
    t = await startTestDaemon('cli-screen', { workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN });
    const admin = ((await login.json()) as { access_token: string }).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 11, stocks: 60, days: 260 } });
    await waitForJob(t.daemon, ((await job.json()) as { data: { id: string } }).data.id);
    e = await tempEnv();
    expect((await cli(['register', '--email', USER.email, '--password-stdin'], fakeIO({ stdin: USER.password }))).code).toBe(0);
    expect((await cli(['login', '--email', USER.email, '--password-stdin'], fakeIO({ stdin: USER.password }))).code).toBe(0);
  });
  afterAll(async () => {
    await t?.close();
    await e?.cleanup();
  });

  const FLAGS = ['--where', 'per < 40 and roe > 0', '--filter', 'pbr=..5', '--filter', 'roe=2..', '--sort', 'roe:desc'];

  it('returns only rows that satisfy --where and every --filter, sorted as asked (piped TSV with a header)', async () => {
    const { code, io } = await cli(['screen', ...FLAGS, '--limit', '500']);
    expect(code, io.err()).toBe(0);
    const { header, rows } = parseTsv(io.out());
    // Identity and price columns, then the filtered, sorted and expression fields.
    expect(header.slice(0, 7)).toEqual(['CODE', 'NAME', 'MARKET', 'SECTOR', 'CLOSE', 'CHANGE_PERCENT', 'MARKET_CAP']);
    // Upper case like every table's header
    expect(header).toEqual(expect.arrayContaining(['CODE', 'PER', 'PBR', 'ROE']));
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(Number(r.per)).toBeLessThan(40);
      expect(Number(r.pbr)).toBeLessThanOrEqual(5);
      expect(Number(r.roe)).toBeGreaterThanOrEqual(2);
    }
    const roe = rows.map((r) => Number(r.roe));
    expect([...roe].sort((a, b) => b - a)).toEqual(roe);
    // The count and query time go to stderr.
    expect(io.err()).toMatch(new RegExp(`^${rows.length} match(es)? · page 1 of 1 · [\\d.]+ ms`, 'm'));

    // The same screen as JSON is exactly the API body: same rows, meta.total = the row count
    const json = JSON.parse((await cli(['--json', 'screen', ...FLAGS, '--limit', '500'])).io.out());
    expect(json.status).toBe('success');
    expect(json.meta.total).toBe(rows.length);
    expect(json.data.map((s: { code: string }) => s.code)).toEqual(rows.map((r) => r.code));
    expect(typeof json.query_time_ms).toBe('number');
  });

  it('pages with --limit/--page and limits the universe with --market', async () => {
    const all = parseTsv((await cli(['screen', ...FLAGS, '--limit', '500'])).io.out()).rows.map((r) => r.code);
    const page2 = parseTsv((await cli(['screen', ...FLAGS, '--limit', '2', '--page', '2'])).io.out()).rows.map((r) => r.code);
    expect(page2).toEqual(all.slice(2, 4));
    const kosdaq = parseTsv((await cli(['screen', '--market', 'kosdaq', '--limit', '500'])).io.out()).rows;
    expect(kosdaq.length).toBeGreaterThan(0);
    expect(kosdaq.every((r) => r.market === 'KOSDAQ')).toBe(true);
  });

  it('--csv writes the server\'s CSV: a header and every match, not one page', async () => {
    const total = JSON.parse((await cli(['--json', 'screen', ...FLAGS, '--limit', '1'])).io.out()).meta.total as number;
    const { code, io } = await cli(['screen', ...FLAGS, '--limit', '1', '--csv']);
    expect(code, io.err()).toBe(0);
    const lines = io.out().trimEnd().split(/\r?\n/);
    expect(lines[0]!.split(',').slice(0, 3)).toEqual(['code', 'name', 'market']);
    expect(lines).toHaveLength(total + 1);
    expect(io.err()).toContain(`${total} match`);
    expect((await cli(['--json', 'screen', '--csv'])).code).toBe(2);
  });

  it('refuses malformed flags with a clear message before any request', async () => {
    // A URL nothing listens on: had a request been made, the error would be "cannot reach".
    const offline = async (argv: string[]) => {
      const io = fakeIO();
      return { code: await run(['--url', 'http://127.0.0.1:9', ...argv], io, e.env), io };
    };
    const bad = await offline(['screen', '--filter', 'pbr<1.5']);
    expect(bad.code).toBe(2);
    expect(bad.io.err()).toBe('error: --filter "pbr<1.5": missing "=" (USAGE)\nhint: use field=min..max with either side optional, e.g. --filter pbr=..1.5 --filter roe=15.. --filter market_cap=1조..\n');
    expect(bad.io.out()).toBe('');
    for (const argv of [['--filter', 'roe=abc..'], ['--filter', 'per=10..5'], ['--sort', 'roe:up'], ['--exclude', 'etf'], ['--market', 'NYSE']]) {
      const res = await offline(['screen', ...argv]);
      expect(res.code, argv.join(' ')).toBe(2);
      expect(res.io.err()).not.toContain('cannot reach');
    }
  });

  it('passes the server\'s explanation of an unknown field through (exit 1, with a suggestion)', async () => {
    const { code, io } = await cli(['screen', '--filter', 'roee=1..']);
    expect(code).toBe(1);
    expect(io.err()).toContain('INVALID_REQUEST');
    expect(io.err()).toContain("did you mean roe");
  });

  it('formats numbers with units and shows the summary on a terminal', async () => {
    const io = fakeIO({ tty: true, columns: 160 });
    const { code } = await cli(['screen', '--fields', 'per,roe', '--limit', '5'], io);
    expect(code, io.err()).toBe(0);
    const [head, ...lines] = io.out().trimEnd().split('\n');
    expect(head).toMatch(/^CODE\s+NAME\s+MARKET\s+SECTOR\s+CLOSE\s+CHANGE_PERCENT\s+MARKET_CAP\s+PER\s+ROE/);
    expect(lines).toHaveLength(5);
    // market_cap in 억/조, percentages with two decimals, PER with its x unit
    expect(lines.every((l) => /[\d.,]+(억|조)/.test(l) && /[+-]?\d+\.\d{2}%/.test(l))).toBe(true);
    expect(lines.some((l) => /\d+\.\d{2}x/.test(l))).toBe(true);
    expect(io.err()).toMatch(/matches · page 1 of \d+ · [\d.]+ ms/);
  });

  it('lists fields and templates, and runs a template with overrides', async () => {
    const fields = parseTsv((await cli(['screen', 'fields'])).io.out());
    expect(fields.header.slice(0, 3)).toEqual(['ID', 'CATEGORY', 'UNIT']);
    expect(fields.rows.find((r) => r.ID === 'per')).toMatchObject({ CATEGORY: 'valuation', UNIT: 'x' });
    expect(parseTsv((await cli(['screen', 'fields', '--category', 'valuation'])).io.out()).rows.every((r) => r.CATEGORY === 'valuation')).toBe(true);

    const templates = parseTsv((await cli(['screen', 'templates'])).io.out());
    expect(templates.rows.map((r) => r.ID)).toEqual(expect.arrayContaining(['value', 'momentum']));

    const run = await cli(['--json', 'screen', '--template', 'momentum', '--market', 'KOSPI', '--limit', '3']);
    expect(run.code, run.io.err()).toBe(0);
    const body = JSON.parse(run.io.out());
    expect(body.meta.per_page).toBe(3);
    expect(body.data.every((s: { market: string }) => s.market === 'KOSPI')).toBe(true);
    const refused = await cli(['screen', '--template', 'value', '--filter', 'per=..5']);
    expect(refused.code).toBe(2);
    expect((await cli(['screen', '--template', 'no-such-template'])).code).toBe(1);
  });

  it('presets: save → list → show → run (same rows as the screen) → rm', async () => {
    // Save the screen under a name
    const save = await cli(['presets', 'save', 'quality', ...FLAGS, '--limit', '500', '--description', 'cheap and profitable']);
    expect(save.code, save.io.err()).toBe(0);
    const [id, name, description, query] = save.io.out().trimEnd().split('\t');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect([name, description]).toEqual(['quality', 'cheap and profitable']);
    expect(JSON.parse(query!)).toEqual({
      expression: 'per < 40 and roe > 0', filters: { pbr: { max: 5 }, roe: { min: 2 } }, sort: [{ field: 'roe', direction: 'desc' }], per_page: 500,
    });
    const again = await cli(['presets', 'save', 'quality', '--where', 'per < 5']);
    expect(again.code).toBe(1);
    expect(again.io.err()).toContain('CONFLICT');

    // It is listed, and shown by name or id
    const list = parseTsv((await cli(['presets', 'list'])).io.out());
    expect(list.rows.map((r) => r.NAME)).toEqual(['quality']);
    expect(JSON.parse((await cli(['--json', 'presets', 'show', 'quality'])).io.out()).data.id).toBe(id);
    expect((await cli(['presets', 'show', id!])).io.out().split('\t')[1]).toBe('quality');

    // Running it gives the rows the screen gives; --preset with an override limits them
    const screened = (await cli(['screen', ...FLAGS, '--limit', '500'])).io.out();
    const ran = await cli(['presets', 'run', 'quality']);
    expect(ran.code, ran.io.err()).toBe(0);
    expect(ran.io.out()).toBe(screened);
    const limited = parseTsv((await cli(['screen', '--preset', 'quality', '--limit', '2'])).io.out()).rows;
    expect(limited.map((r) => r.code)).toEqual(parseTsv(screened).rows.slice(0, 2).map((r) => r.code));
    const csv = await cli(['presets', 'run', 'quality', '--csv']);
    expect(csv.io.out().trimEnd().split(/\r?\n/)).toHaveLength(parseTsv(screened).rows.length + 1);

    // Deleting it by name: gone afterwards
    const rm = await cli(['presets', 'rm', 'quality']);
    expect(rm.code).toBe(0);
    expect(rm.io.out()).toBe('');
    expect(rm.io.err()).toContain(`deleted preset "quality" (${id})`);
    const gone = await cli(['presets', 'run', 'quality']);
    expect(gone.code).toBe(1);
    expect(gone.io.err()).toContain('no preset named "quality" (NOT_FOUND)');
  });
});
