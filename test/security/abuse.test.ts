/**
 * What one hostile user may cost the daemon (small versions of the attacks the abuse bench runs
 * at full size, `npm run bench:abuse`): formula columns that chain, requests over their tier's
 * budget on every path that runs a screen (screen, preset save and run, live screen, screen
 * alert, backtest), refused bodies that must still spend the sender's quota, a burst of heavy
 * screens while another user screens, and caches that stay within their bytes. Nothing here
 * may answer 5xx; no assertion is about time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForJob } from '../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { connect, type Msg } from '../integration/ws/client.js';

type Json = Record<string, any>;

/** Columns c00…c(n-1), each the previous one used three times: 600 bytes that used to expand to hundreds of millions of characters. */
function chain(n: number, seed: number): Record<string, string> {
  const columns: Record<string, string> = { c00: `roe + ${seed}` };
  for (let i = 1; i < n; i++) {
    const p = `c${String(i - 1).padStart(2, '0')}`;
    columns[`c${String(i).padStart(2, '0')}`] = `${p} + ${p} * 0.5 - ${p} / 3`;
  }
  return columns;
}

/** 8 columns of long arithmetic with a rank: about 11 KB and 3,500 nodes, over a free budget (1,500), within a pro one. */
function heavyColumns(): Record<string, string> {
  const term = (i: number) => `(roe * ${i} + per / ${i + 1} - pbr * ${i + 2})`;
  const body = Array.from({ length: 40 }, (_, i) => term(i)).join(' + ');
  return Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`h${k}`, k === 0 ? `pct_rank(${body})` : body]));
}

describe('abuse: what one user may cost', () => {
  let t: TestDaemon;
  let admin: string;
  let alice: { access_token: string; id: string };
  let bob: { access_token: string; id: string };
  const statuses: number[] = [];
  const call = async (path: string, init: RequestInit & { json?: unknown; token?: string } = {}): Promise<{ status: number; body: Json; headers: Headers }> => {
    const res = await t.request(path, init);
    statuses.push(res.status);
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? (JSON.parse(text) as Json) : { text }, headers: res.headers };
  };
  const screen = (token: string, json: unknown, path = '/api/v1/screen') => call(path, { method: 'POST', token, json });

  beforeAll(async () => {
    t = await startTestDaemon('abuse', {
      workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1', market_clock: 'always-open',
      // A small per-run cap so a long weekly backtest is over it on this small market.
      screen_limits: { free: { backtest_units: 2_000 }, per_user_concurrency: 1, concurrency: 2, per_user_queue: 16 },
    } as never);
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await login.json()) as Json).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 35, stocks: 600, days: 200 } });
    await waitForJob(t.daemon, ((await job.json()) as Json).data.id);
    alice = await t.login();
    bob = await t.login();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('answers formula columns that chain (each using the previous one three times), in JSON and CSV, and never 500s', async () => {
    for (const seed of [1, 2, 3]) {
      const { status, body } = await screen(alice.access_token, { columns: chain(20, seed), expression: 'pct_rank(c19) > 50', sort: 'c19:desc', per_page: 5 });
      expect(status, JSON.stringify(body.error)).toBe(200);
      expect(body.stocks.length).toBe(5);
      expect(body.stocks[0].c19).toBeGreaterThanOrEqual(body.stocks[1].c19);
    }
    const csv = await t.request('/api/v1/screen?format=csv', { method: 'POST', token: alice.access_token, json: { columns: chain(20, 4), sort: 'c19:desc' } });
    expect(csv.status).toBe(200);
    expect((await csv.text()).split('\n')[0]).toContain('c19');
  });

  it('refuses a screen over the free budget with a 400 naming the limit, the field and the figures', async () => {
    const { status, body } = await screen(alice.access_token, { columns: heavyColumns(), expression: 'h7 > 0' });
    expect(status).toBe(400);
    expect(body.error.code).toBe('INVALID_REQUEST');
    expect(body.error.details.limit).toBe('nodes');
    expect(body.error.details.tier).toBe('free');
    expect(body.error.details.columns).toMatch(/free tier allows 1500/);
    expect(body.error.details.cost.nodes).toBeGreaterThan(body.error.details.budget.nodes);
  });

  it('refuses too many rows × columns and too many history fields for the tier', async () => {
    const fields = ((await call('/api/v1/screen/fields', { token: alice.access_token })).body.data as { id: string }[]).map((f) => f.id);
    const wide = await screen(alice.access_token, { per_page: 500, fields });
    expect(wide.status).toBe(400);
    expect(wide.body.error.details.limit).toBe('cells');
    expect(wide.body.error.details.per_page).toMatch(/cells/);
    const history = await screen(alice.access_token, { as_of: '2026-01-05', fields: fields.slice(0, 40), per_page: 5 });
    expect(history.status).toBe(400);
    expect(history.body.error.details.limit).toBe('history_fields');
  });

  it('documents the budgets in GET /screen/fields', async () => {
    const { body } = await call('/api/v1/screen/fields', { token: alice.access_token });
    expect(body.meta.language.budgets.free.nodes).toBe(1500);
    expect(body.meta.language.budgets.anonymous.units).toBeGreaterThan(0);
    expect(body.meta.language.cost_weights.cross_term).toBe(25);
  });

  it('refuses an over-budget preset on save, and a preset over budget on run and as a screen alert after a downgrade', async () => {
    const saved = await call('/api/v1/screen/presets', { method: 'POST', token: alice.access_token, json: { name: 'heavy', query: { columns: heavyColumns() } } });
    expect(saved.status).toBe(400);
    expect(saved.body.error.details['query.columns']).toMatch(/free tier/);
    // Saved while pro, then the account goes back to free.
    await call(`/api/v1/admin/users/${bob.id}`, { method: 'PATCH', token: admin, json: { tier: 'pro' } });
    const preset = await call('/api/v1/screen/presets', { method: 'POST', token: bob.access_token, json: { name: 'heavy', query: { columns: heavyColumns() } } });
    expect(preset.status).toBe(201);
    await call(`/api/v1/admin/users/${bob.id}`, { method: 'PATCH', token: admin, json: { tier: 'free' } });
    const run = await call(`/api/v1/screen/presets/${preset.body.data.id}/run`, { method: 'POST', token: bob.access_token, json: {} });
    expect(run.status).toBe(400);
    expect(run.body.error.details.limit).toBe('nodes');
    const alert = await call('/api/v1/alerts', { method: 'POST', token: bob.access_token, json: { alert_type: 'screen_enter', preset_id: preset.body.data.id } });
    expect(alert.status).toBe(400);
    expect(alert.body.error.details['preset.query.limit']).toBe('nodes');
    expect(t.daemon.context().realtime.liveScreens.engine.stats().subscriptions).toBe(0);
  });

  it('refuses an over-budget live screen on subscribe (anonymous: any custom one), and keeps the connection', async () => {
    for (const token of [null, alice.access_token]) {
      const c = await connect(`${t.url.replace('http', 'ws')}/v1/ws${token ? `?token=${token}` : ''}`);
      await c.next((m: Msg) => m.type === 'connected');
      c.send({ type: 'subscribe', subscription_type: 'screen', query: { columns: heavyColumns() } });
      const answer = await c.next((m: Msg) => m.type === 'error' || m.type === 'subscribed');
      expect(answer.type).toBe('error');
      // Anonymous callers get templates only: the query is refused before it is parsed.
      if (token === null) expect(answer).toMatchObject({ code: 'SUBSCRIPTION_FAILED', details: { reason: 'sign_in_required' } });
      else expect(JSON.stringify(answer)).toContain('free tier');
      c.send({ type: 'ping' });
      await c.next((m: Msg) => m.type === 'pong');
      await c.close();
    }
    expect(t.daemon.context().realtime.liveScreens.engine.stats().subscriptions).toBe(0);
  });

  it('refuses a backtest over the per-run cap with the cost per date and the dates', async () => {
    const { status, body } = await call('/api/v1/screen/backtest', {
      method: 'POST', token: alice.access_token, json: { query: { columns: chain(12, 1), sort: 'c11:desc' }, from: '2025-07-01', rebalance: 'weekly', top: 5 },
    });
    expect(status, JSON.stringify(body)).toBe(400);
    expect(body.error.details.limit).toBe('backtest_units');
    expect(body.error.details.rebalance).toMatch(/per rebalance date/);
    expect(body.error.details.cost.dates).toBeGreaterThan(10);
  });

  it("answers another user's screen while one user sends a burst of heavy screens, running the burst one at a time", async () => {
    // Given ten distinct heavy screens (none cached) from one user, allowed one at a time
    const screens = t.daemon.context().screening.screens;
    let settled = 0;
    let mostRunning = 0;
    const burst = Array.from({ length: 10 }, (_, i) =>
      screen(alice.access_token, { columns: { ...chain(19, 100 + i), r: 'pct_rank(c18) by sector + zscore(per) + rank(pbr)' }, sort: 'r:desc', per_page: 50 }).finally(() => settled++),
    );
    // When another user screens meanwhile
    const other = screen(bob.access_token, { market: 'KOSPI', max_per: 15, per_page: 20 });
    // (the burst's expensive work never holds more than its one turn, whenever it is looked at)
    while (settled < 10) {
      mostRunning = Math.max(mostRunning, screens.stats().running);
      await new Promise((r) => setImmediate(r));
    }
    const done = await Promise.all(burst);
    // Then the other user is answered, the burst ran one at a time, and nothing failed
    expect((await other).status).toBe(200);
    expect(done[0]!.body.error).toBeUndefined();
    expect(done.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(mostRunning).toBeLessThanOrEqual(1);
  });

  it('keeps the cross-section memo and the answer cache within their bytes after many distinct heavy screens', async () => {
    for (let i = 0; i < 30; i++) await screen(alice.access_token, { columns: chain(20, 1000 + i), sort: 'c19:desc', per_page: 100 });
    const stats = t.daemon.context().screening.screens.stats();
    expect(stats.memo_bytes).toBeGreaterThan(0);
    expect(stats.memo_bytes).toBeLessThanOrEqual(stats.memo_max_bytes);
    expect(stats.answers_bytes).toBeLessThanOrEqual(stats.answers_max_bytes);
    expect(stats.running + stats.waiting).toBe(0);
  });

  it('never answered 5xx', () => {
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  });
});

describe('abuse: refused and heavy requests spend the quota', () => {
  let t: TestDaemon;
  let token: string;
  beforeAll(async () => {
    t = await startTestDaemon('abuse-rl', { rate_limit: { enabled: true } } as never);
    token = (await t.login()).access_token;
  });
  afterAll(async () => {
    await t?.close();
  });
  const remaining = (res: Response) => Number(res.headers.get('x-ratelimit-remaining'));

  it('counts a 40 KB body with an unknown sort field by its bytes, and a rank-heavy screen by its cost', async () => {
    const simple = await t.request('/api/v1/screen', { method: 'POST', token, json: { max_per: 10 } });
    expect(simple.status).toBe(200);
    const before = remaining(simple);
    // A 40 KB body refused for its sort field: still counted, as 1 + 40 KB / 8 KB = 6 requests
    const junk = { sort: 'no_such_field:desc', exclude: [], codes: Array.from({ length: 5000 }, (_, i) => String(100000 + i)) };
    const refused = await t.request('/api/v1/screen', { method: 'POST', token, json: junk });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('sort');
    const afterRefused = remaining(refused);
    expect(afterRefused).toBe(before - 6);
    // A screen of 20 chained columns and ranks costs more than one request
    const heavy = await t.request('/api/v1/screen', { method: 'POST', token, json: { columns: chain(20, 7), expression: 'pct_rank(c19) by sector > 10 and zscore(c18) > -1', sort: 'c19:desc', per_page: 200, fields: ['roe', 'per', 'pbr'] } });
    expect(heavy.status).toBe(200);
    expect(afterRefused - remaining(heavy)).toBeGreaterThan(1);
  });
});

describe('abuse: one user’s long backtests do not hold the worker', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon('abuse-bt', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1', backtest_workers: 1, backtest_slice_dates: 2 } as never);
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    const admin = ((await login.json()) as Json).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 36, stocks: 80, days: 200 } });
    await waitForJob(t.daemon, ((await job.json()) as Json).data.id);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const start = async (token: string, from: string): Promise<string> => {
    const res = await t.request('/api/v1/screen/backtest', { method: 'POST', token, json: { query: { max_per: 30, sort: 'roe:desc' }, from, rebalance: 'weekly', top: 5 } });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(202);
    return body.data.id as string;
  };
  const status = async (token: string, id: string): Promise<string> =>
    ((await (await t.request(`/api/v1/screen/backtests/${id}`, { token })).json()) as Json).data.status as string;

  it("finishes another user's short run before one user's two long runs, which resume and complete", async () => {
    const a = await t.login();
    const b = await t.login();
    const long = [await start(a.access_token, '2025-09-01'), await start(a.access_token, '2025-09-01')];
    const short = await start(b.access_token, '2026-01-20');
    // Each run screens 2 dates a turn; wait for the short one (bounded polling of its status).
    let shortStatus = 'queued';
    for (let i = 0; i < 1200 && shortStatus !== 'completed' && shortStatus !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      shortStatus = await status(b.access_token, short);
    }
    expect(shortStatus).toBe('completed');
    const longStatuses = await Promise.all(long.map((id) => status(a.access_token, id)));
    // Neither long run held the worker to its end while the short one waited.
    expect(longStatuses).not.toContain('completed');
    // The long runs still finish, resuming from their checkpoints.
    for (const id of long) {
      let s = 'queued';
      for (let i = 0; i < 1200 && s !== 'completed' && s !== 'failed'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        s = await status(a.access_token, id);
      }
      expect(s).toBe('completed');
    }
  }, 240_000);
});

describe('abuse: a screen past its CPU deadline', () => {
  let t: TestDaemon;
  let token: string;
  beforeAll(async () => {
    // The smallest deadline, and a free budget large enough to let a screen need far more than it.
    t = await startTestDaemon('abuse-deadline', {
      workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1',
      screen_limits: { deadline_ms: 10, free: { nodes: 100_000, units: 1_000_000 } },
    } as never);
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    const admin = ((await login.json()) as Json).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 37, stocks: 300, days: 60 } });
    await waitForJob(t.daemon, ((await job.json()) as Json).data.id);
    token = (await t.login()).access_token;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('stops it with 503 QUERY_TIMEOUT in the error envelope, and goes on answering', async () => {
    // 20 columns of ~650 nodes each over 300 stocks: millions of evaluations, never done in 10 ms.
    const long = Array.from({ length: 60 }, (_, i) => `roe * ${i} + per / ${i + 1}`).join(' + ').slice(0, 1990).replace(/ \+ [^+]*$/, '');
    const columns = Object.fromEntries(Array.from({ length: 20 }, (_, k) => [`x${k}`, `${long} + ${k}`]));
    const res = await t.request('/api/v1/screen', { method: 'POST', token, json: { columns, sort: 'x19:desc' } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(503);
    expect(body.status).toBe('error');
    expect(body.error.code).toBe('QUERY_TIMEOUT');
    expect(body.error.details.deadline_ms).toBe(10);
    expect(t.daemon.context().screening.screens.stats().running).toBe(0);
    expect((await t.request('/health')).status).toBe(200);
  });
});
