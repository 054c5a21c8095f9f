/**
 * The OpenDART source end to end, through the daemon's own wiring (routes, the market queue, a
 * worker, the store) against a local fake that follows OpenDART's protocol: a backfill with an
 * empty body stores the four most recent quarters of every listed company the daemon holds, each
 * dated by its report's receipt date, and an as-of screen sees a statement only from that date on;
 * 013 is no data, not an error; 020 stops the run, which goes on the next day after the last
 * committed company; bad answers (an HTML page, a cut-off zip or JSON, 5xx) are retried and then
 * reported, never half-loaded; the key is never in an answer or a log line.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JobView } from '../../../daemon/contract/jobs.js';
import type { SourceStatus, SourceTestResult } from '../../../daemon/contract/sources.js';
import { createManualClock, type ManualClock } from '../../../daemon/infra/clock.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { waitForDelayed, waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { runCliAt, tempEnv, type TempEnv } from '../cli/fake-io.js';
import { startFakeDart, type FakeDart } from '../../fakes/dart-server.js';
import { B, DAYS, dartReports, HYNIX, KB, kst10, OTHER, SAMSUNG, seedDartMarket, UNLISTED } from '../../helpers/dart-fixtures.js';

const ADMIN = { admin_email: 'ops@example.com', admin_password: 'ops-password-1' };
const KEY = 'd'.repeat(40);

interface Harness {
  t: TestDaemon;
  fake: FakeDart;
  clock: ManualClock;
  token: string;
  logs: string[];
  sync(body: Record<string, unknown>): Promise<Response>;
  syncAndWait(body: Record<string, unknown>): Promise<JobView>;
  job(id: string): Promise<JobView>;
  rows<T>(sql: string, params?: unknown[]): Promise<T[]>;
  status(): Promise<SourceStatus>;
  close(): Promise<void>;
}

async function harness(label: string, extra: Record<string, unknown> = {}, fakeOptions: { dailyLimit?: number } = {}, seed = true): Promise<Harness> {
  const clock = createManualClock(kst10('2025-03-20'));
  const fake = await startFakeDart({ keys: [KEY], companies: [SAMSUNG, UNLISTED, HYNIX, OTHER, KB], reports: dartReports(), now: () => clock.now(), ...fakeOptions });
  const logs: string[] = [];
  const t = await startTestDaemon(label, {
    workers: 1, ...ADMIN, dart_api_url: fake.url, dart_api_key: KEY, dart_min_interval_ms: 0, source_retries: 2, source_retry_base_ms: 5,
    source_timeout_ms: 2000, sources_schedule: false, ...extra,
  }, { clock, logger: createLogger('debug', { write: (line: string) => void logs.push(line) }) });
  if (seed) await seedDartMarket(t.daemon.context());
  const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: ADMIN.admin_email, password: ADMIN.admin_password } });
  const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
  const h: Harness = {
    t, fake, clock, token, logs,
    sync: (body) => t.request('/api/v1/admin/sources/dart/sync', { method: 'POST', json: body, token }),
    job: async (id) => ((await (await t.request(`/api/v1/admin/jobs/${id}`, { token })).json()) as { data: JobView }).data,
    async syncAndWait(body) {
      const res = await h.sync(body);
      expect(res.status).toBe(202);
      const job = ((await res.json()) as { data: JobView }).data;
      await waitForJob(t.daemon, job.id).catch(() => undefined);
      return h.job(job.id);
    },
    rows: (sql, params = []) => t.daemon.context().store.db.all(sql, params),
    async status() {
      const body = (await (await t.request('/api/v1/admin/sources', { token })).json()) as { data: SourceStatus[] };
      return body.data.find((s) => s.name === 'dart')!;
    },
    async close() {
      await t.close();
      await fake.close();
    },
  };
  return h;
}

interface Quarter { stock_code: string; fiscal_year: number; fiscal_quarter: number; revenue: number | null; net_profit: number | null; equity: number | null; disclosed_on: string | null }
/** The full-statement calls received since call `from`, as corp:year/report:division. */
const fullCalls = (h: Harness, from = 0): string[] =>
  h.fake.calls.slice(from).filter((c) => c.service === 'fnlttSinglAcntAll.json').map((c) => `${c.params.corp_code}:${c.params.bsns_year}/${c.params.reprt_code}:${c.params.fs_div}`);

const quarters = async (h: Harness, code: string): Promise<Quarter[]> =>
  (await h.rows<Quarter>('SELECT stock_code, fiscal_year, fiscal_quarter, revenue, net_profit, equity, disclosed_on FROM financials WHERE stock_code = ? ORDER BY fiscal_year, fiscal_quarter', [code]))
    .map((q) => ({ ...q, fiscal_year: Number(q.fiscal_year), fiscal_quarter: Number(q.fiscal_quarter), revenue: q.revenue === null ? null : Number(q.revenue), net_profit: q.net_profit === null ? null : Number(q.net_profit), equity: q.equity === null ? null : Number(q.equity) }));

describe('OpenDART backfill', () => {
  let h: Harness;
  beforeAll(async () => (h = await harness('dart-sync')));
  afterAll(async () => h.close());

  it('an empty body fetches the four most recent quarters of every listed company it holds, each dated by its receipt date', async () => {
    const res = await h.sync({});
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toMatch(/\/admin\/jobs\/\d+$/);
    const id = ((await res.json()) as { data: JobView }).data.id;
    await waitForJob(h.t.daemon, id);
    const job = await h.job(id);
    // Two companies (the listed one it does not hold and the unlisted one are left out); the company
    // list, one key-accounts call per quarter for both companies together, and one full statement per
    // disclosure (Samsung's four, SK hynix's three)
    expect(job.state).toBe('completed');
    expect(job.result?.sync).toMatchObject({ source: 'dart', total: 2, loaded: 2, unchanged: 0, calls: 1 + 4 + 7 });
    expect(job.progress).toMatchObject({ phase: 'done', done: 2, total: 2 });
    const multi = h.fake.calls.filter((c) => c.service === 'fnlttMultiAcnt.json');
    expect(multi.map((c) => `${c.params.bsns_year}/${c.params.reprt_code}`)).toEqual(['2024/11013', '2024/11012', '2024/11014', '2024/11011']);
    expect(multi[0]?.params.corp_code).toBe(`${HYNIX.corp_code},${SAMSUNG.corp_code}`);
    // Samsung: consolidated figures, Q4 alone = the annual report less Q3's year to date, each quarter dated by its report
    expect(await quarters(h, SAMSUNG.stock_code)).toEqual([
      { stock_code: '005930', fiscal_year: 2024, fiscal_quarter: 1, revenue: 100 * B, net_profit: 8 * B, equity: 600 * B, disclosed_on: '2024-05-15' },
      { stock_code: '005930', fiscal_year: 2024, fiscal_quarter: 2, revenue: 120 * B, net_profit: 9 * B, equity: 610 * B, disclosed_on: '2024-08-14' },
      { stock_code: '005930', fiscal_year: 2024, fiscal_quarter: 3, revenue: 130 * B, net_profit: 10 * B, equity: 620 * B, disclosed_on: '2024-11-14' },
      { stock_code: '005930', fiscal_year: 2024, fiscal_quarter: 4, revenue: 150 * B, net_profit: 13 * B, equity: 650 * B, disclosed_on: '2025-03-11' },
    ]);
    // SK hynix: separate statements (it has no consolidated ones), no annual report yet
    expect((await quarters(h, HYNIX.stock_code)).map((q) => [q.fiscal_quarter, q.revenue, q.disclosed_on])).toEqual([[1, 30 * B, '2024-05-16'], [2, 40 * B, '2024-08-14'], [3, 50 * B, '2024-11-13']]);
    // Nothing stored for the company the daemon does not hold
    expect(await h.rows("SELECT stock_code FROM financials WHERE stock_code = '123456'")).toEqual([]);
    // And the status says when it last succeeded and how many calls it made today
    expect(await h.status()).toMatchObject({ name: 'dart', kind: 'financials', configured: true, last_error: null, calls_today: 12, last_success_date: '2025-03-20', stale: false });
  });

  it('fills what the key accounts lack (gross profit, cash flow, cash, borrowings) from one full statement per disclosure', async () => {
    // In the division the key accounts answered: Samsung consolidated, SK hynix separate
    expect(fullCalls(h)).toEqual([
      ...['11013', '11012', '11014'].map((r) => `${HYNIX.corp_code}:2024/${r}:OFS`),
      ...['11013', '11012', '11014', '11011'].map((r) => `${SAMSUNG.corp_code}:2024/${r}:CFS`),
    ]);
    // Q2–Q4 cash flow is the year to date less the report before; Q4 gross profit the year less Q3's year to date
    const rows = await h.rows<Record<string, number | string | null>>(
      'SELECT fiscal_quarter, gross_profit, operating_cash_flow, cash, long_term_debt, disclosed_on FROM financials WHERE stock_code = ? ORDER BY fiscal_quarter', [SAMSUNG.stock_code]);
    expect(rows.map((r) => [Number(r.fiscal_quarter), Number(r.gross_profit) / B, Number(r.operating_cash_flow) / B, Number(r.cash) / B, Number(r.long_term_debt) / B, r.disclosed_on])).toEqual([
      [1, 40, 20, 50, 30, '2024-05-15'], [2, 45, 25, 55, 31, '2024-08-14'], [3, 50, 25, 60, 32, '2024-11-14'], [4, 45, 30, 65, 33, '2025-03-11'],
    ]);
  });

  it('an as-of screen sees a statement only from its receipt date on', async () => {
    const eps = async (asOf: string) => {
      const res = await h.t.request('/api/v1/screen', { method: 'POST', token: h.token, json: { as_of: asOf, codes: [SAMSUNG.stock_code], fields: ['eps'] } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: { eps: number | null }[] }).data[0]?.eps;
    };
    const grossMargin = async (asOf: string) => {
      const res = await h.t.request('/api/v1/screen', { method: 'POST', token: h.token, json: { as_of: asOf, codes: [SAMSUNG.stock_code], fields: ['gross_margin'] } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: { gross_margin: number | null }[] }).data[0]?.gross_margin;
    };
    // The day before the annual report: three quarters known, no trailing twelve months
    expect(await eps(DAYS[0]!)).toBeNull();
    expect(await grossMargin(DAYS[0]!)).toBeNull();
    // From its receipt date: Q1–Q4 of 2024, whose net profit sums to the annual 40 bn over a million shares,
    // and whose gross profit (from the full statements) is 180 bn of 500 bn revenue
    expect(await eps(DAYS[1]!)).toBeCloseTo((40 * B) / 1_000_000, 6);
    expect(await grossMargin(DAYS[1]!)).toBeCloseTo(36, 6);
  });

  it('writes nothing when fetched again unchanged; a period nobody filed (013) is no data, not an error', async () => {
    const before = await h.rows("SELECT unit, loaded_at FROM source_dates WHERE source = 'dart' ORDER BY unit");
    const callsBefore = h.fake.calls.length;
    // From 2023-07-01: the 2023 Q3 and annual reports are asked for too, and every company answers 013
    // (to the key accounts, then, the reports being long due, to full statements consolidated and separate);
    // the 2024 disclosures, fetched in full before, are not asked for again
    const job = await h.syncAndWait({ from: '2023-07-01' });
    expect(job.state).toBe('completed');
    expect(job.result?.sync).toMatchObject({ total: 2, loaded: 0, unchanged: 2, calls: 1 + 6 + 2 * 2 * 2 });
    expect(fullCalls(h, callsBefore)).toEqual(
      [HYNIX, SAMSUNG].flatMap((c) => ['2023/11014', '2023/11011'].flatMap((p) => [`${c.corp_code}:${p}:CFS`, `${c.corp_code}:${p}:OFS`])),
    );
    expect(job.result?.files).toEqual([]);
    expect(await h.rows("SELECT unit, loaded_at FROM source_dates WHERE source = 'dart' ORDER BY unit")).toEqual(before);
    expect((await h.status()).last_error).toBeNull();
  });

  it('retries an HTML page, a cut-off zip, a 5xx and cut-off JSON, then loads', async () => {
    // A correction filed later: Samsung's annual report again, with another net profit and a later receipt
    const annual = h.fake.reports.find((r) => r.corp_code === SAMSUNG.corp_code && r.reprt_code === '11011')!;
    annual.rcept_no = '20250318000999';
    annual.accounts.당기순이익 = [41 * B];
    h.fake.fail('corpCode.xml', { kind: 'html' }, { kind: 'truncated' });
    h.fake.fail('fnlttMultiAcnt.json', { kind: 'status', status: 503, body: 'Service Unavailable' }, { kind: 'truncated' });
    const callsBefore = h.fake.calls.length;
    const job = await h.syncAndWait({});
    expect(job.state).toBe('completed');
    // Three calls for the list, six for the key accounts, and the correction's full statement: the only new disclosure
    expect(job.result?.sync).toMatchObject({ loaded: 1, unchanged: 1, calls: 3 + 6 + 1 });
    expect(fullCalls(h, callsBefore)).toEqual([`${SAMSUNG.corp_code}:2024/11011:CFS`]);
    // The corrected quarter is dated by the correction's receipt (no look-ahead for the new figure)
    const q4 = (await quarters(h, SAMSUNG.stock_code)).find((q) => q.fiscal_quarter === 4);
    expect(q4).toMatchObject({ net_profit: 14 * B, disclosed_on: '2025-03-18' });
  });

  it('reports a zip that stays cut off with its code, and writes nothing', async () => {
    const before = await h.rows('SELECT * FROM financials ORDER BY stock_code, fiscal_year, fiscal_quarter');
    // Every attempt of the call (three) in every attempt of the job (three)
    h.fake.fail('corpCode.xml', ...Array.from({ length: 9 }, () => ({ kind: 'truncated' as const })));
    const job = await h.syncAndWait({});
    expect(job.state).toBe('failed');
    expect(job.failed_reason).toMatch(/BAD_ANSWER: corpCode\.xml: the zip is unreadable/);
    expect((await h.status()).last_error).toMatchObject({ code: 'BAD_ANSWER' });
    expect(await h.rows('SELECT * FROM financials ORDER BY stock_code, fiscal_year, fiscal_quarter')).toEqual(before);
  });

  it('never shows the key: not in the status, the jobs, the test answer, the OpenAPI document or the log', async () => {
    const bodies = await Promise.all([
      h.t.request('/api/v1/admin/sources', { token: h.token }).then((r) => r.text()),
      h.t.request('/api/v1/admin/jobs', { token: h.token }).then((r) => r.text()),
      h.t.request('/api/v1/admin/sources/dart/test', { method: 'POST', token: h.token }).then((r) => r.text()),
      h.t.request('/openapi.json').then((r) => r.text()),
    ]);
    for (const body of bodies) expect(body).not.toContain(KEY);
    expect(h.logs.length).toBeGreaterThan(0);
    expect(h.logs.join('\n')).not.toContain(KEY);
    // The test answer: the company list and one key-accounts call
    const test = JSON.parse(bodies[2]!) as { data: SourceTestResult };
    expect(test.data).toMatchObject({ name: 'dart', ok: true });
    expect(test.data.checks.map((c) => c.service)).toEqual(['corpCode.xml', 'fnlttMultiAcnt.json']);
  });
});

describe('OpenDART: full statements where the key accounts are missing', () => {
  let h: Harness;
  afterAll(async () => h.close());

  it('fetches a due report the key accounts left out (a financial company) from full statements, with its cash flow', async () => {
    h = await harness('dart-full');
    await h.t.daemon.context().store.marketData.apply({ stocks: [{ code: KB.stock_code, name: 'KB금융', market: 'KOSPI', settle_month: 12 }], bars: [], halts: [], financials: [], index: [] });
    const job = await h.syncAndWait({});
    expect(job.state).toBe('completed');
    // The list, four key-accounts calls for the three companies, KB's three due quarters (consolidated at once)
    // and the seven disclosures of the others; SK hynix's annual report is not due before 03-31: no call for it
    expect(job.result?.sync).toMatchObject({ total: 3, loaded: 3, calls: 1 + 4 + 3 + 7 });
    const rows = await h.rows<{ fiscal_quarter: number; operating_cash_flow: number; cash: number; net_profit: number; disclosed_on: string }>(
      'SELECT fiscal_quarter, operating_cash_flow, cash, net_profit, disclosed_on FROM financials WHERE stock_code = ? ORDER BY fiscal_quarter', [KB.stock_code]);
    expect(rows.map((r) => [Number(r.fiscal_quarter), Number(r.operating_cash_flow), Number(r.cash), Number(r.net_profit), r.disclosed_on])).toEqual([
      [1, 10 * B, 40 * B, 5 * B, '2024-05-16'], [2, 15 * B, 41 * B, 5 * B, '2024-08-14'], [3, 20 * B, 42 * B, 5 * B, '2024-11-14'],
    ]);
  });
});

describe('OpenDART: the daily limit (020)', () => {
  let h: Harness;
  afterAll(async () => h.close());

  it('stops the run at 020 and goes on the next day after the last committed company', async () => {
    // One company per call, and nine calls a day: the list and the first company's four quarters and three
    // full statements fit, the second's do not
    h = await harness('dart-quota', { dart_batch_size: 1, source_retries: 0 }, { dailyLimit: 9 });
    const res = await h.sync({});
    const id = ((await res.json()) as { data: JobView }).data.id;
    const queue = h.t.daemon.context().jobs.market.queue;
    await waitForDelayed(h.t.daemon, id);
    // Waiting until one minute past midnight KST, with OpenDART's code and message as the last error
    const waiting = await h.job(id);
    expect(waiting.progress).toMatchObject({ done: 1, total: 2, waiting_until: '2025-03-20T15:01:00.000Z' });
    expect((await h.status()).last_error).toMatchObject({ code: '020', message: expect.stringMatching(/요청 제한을 초과하였습니다/) });
    expect((await quarters(h, HYNIX.stock_code)).length).toBe(3);
    expect(await quarters(h, SAMSUNG.stock_code)).toEqual([]);
    // The next day the job goes on with the second company only
    h.clock.set(kst10('2025-03-21'));
    await (await queue.getJob(id))!.promote();
    await waitForJob(h.t.daemon, id);
    const done = (await queue.getJob(id))!;
    expect(done.returnvalue.sync).toMatchObject({ total: 2, resumed: 1, loaded: 1 });
    expect((await quarters(h, SAMSUNG.stock_code)).length).toBe(4);
    const secondDay = h.fake.calls.slice(-9).map((c) => `${c.service}:${c.params.corp_code ?? ''}`);
    expect(secondDay).toEqual(['corpCode.xml:', ...Array.from({ length: 4 }, () => `fnlttMultiAcnt.json:${SAMSUNG.corp_code}`), ...Array.from({ length: 4 }, () => `fnlttSinglAcntAll.json:${SAMSUNG.corp_code}`)]);
  });
});

describe('OpenDART: a key it does not know (010)', () => {
  let h: Harness;
  let e: TempEnv;
  beforeAll(async () => {
    h = await harness('dart-badkey', { dart_api_key: 'x'.repeat(40) });
    e = await tempEnv();
  });
  afterAll(async () => {
    await h.close();
    await e.cleanup();
  });
  const cli = (argv: string[], stdin = '') => runCliAt(h.t.url, e, argv, stdin);

  it('fails the run at once with OpenDART\'s code and message', async () => {
    const job = await h.syncAndWait({});
    expect(job.state).toBe('failed');
    expect(job.attempts).toBe(1);
    expect(job.failed_reason).toMatch(/dart 010: corpCode\.xml: 010 등록되지 않은 키입니다/);
    expect((await h.status()).last_error).toMatchObject({ code: '010' });
  });

  it('`stockscreen sources test dart` names the code of each service; `sources sync dart --wait --json` exits 1', async () => {
    expect((await cli(['login', '--email', ADMIN.admin_email, '--password-stdin'], ADMIN.admin_password)).code).toBe(0);
    const test = await cli(['sources', 'test', 'dart']);
    expect(test.code).toBe(1);
    const rows = test.io.out().trimEnd().split('\n').map((l) => l.split('\t'));
    expect(rows.slice(1).map((r) => r.slice(0, 3))).toEqual([['corpCode.xml', 'no', '010'], ['fnlttMultiAcnt.json', 'no', '010']]);
    const sync = await cli(['--json', 'sources', 'sync', 'dart', '--wait']);
    expect(sync.code).toBe(1);
    expect(sync.io.out()).not.toContain('x'.repeat(40));
  });
});

describe('OpenDART without a key, or without stocks to attach statements to', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('refuses a sync before any stock is loaded (409), and replace_sample (400)', async () => {
    h = await harness('dart-nostocks', {}, {}, false);
    const res = await h.sync({});
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/load or sync the market first/);
    const bad = await h.sync({ replace_sample: true });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: Record<string, string> } }).error.details).toHaveProperty('replace_sample');
    expect(h.fake.calls).toEqual([]);
  });

  it('says it is not configured (409), and is neither stale nor an error', async () => {
    h = await harness('dart-none', { dart_api_key: undefined });
    const res = await h.sync({});
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/STOCKSCREEN_DART_API_KEY/);
    expect(await h.status()).toMatchObject({ configured: false, stale: false, last_error: null });
  });
});
