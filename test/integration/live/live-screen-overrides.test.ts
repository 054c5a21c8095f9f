/**
 * Live screens of templates with overrides through the daemon, with real WebSocket clients: the
 * overrides of POST /screen/templates/{id} (market, sort, paging, fields) make the template a
 * screen of its own whose members follow them; clients with the same overrides share it, others
 * never do; bad overrides are refused as REST refuses them; an anonymous caller's overrides stay
 * within the anonymous budget and the shared lists; a restored session keeps them.
 *
 * The sample market (seed 11, 30 stocks) has 30 stocks over the large-cap template's 1조 cut:
 * 10 on KOSPI, 20 on KOSDAQ, so a market override changes its members.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceLimits } from '../../../daemon/kernel/tick-size.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { connect, ofType, type Msg, type TestClient } from '../ws/client.js';

interface Row { code: string; market: string; close: number; change_percent: number | null }

describe('live screens of templates with overrides', () => {
  let t: TestDaemon;
  let admin: string;
  let volume = 1000;
  const clients: TestClient[] = [];
  const wsUrl = (token?: string) => `${t.url.replace('http', 'ws')}/v1/ws${token ? `?token=${token}` : ''}`;
  const open = async (token?: string, query = '') => {
    const c = await connect(`${wsUrl(token)}${query}`);
    clients.push(c);
    await c.next(ofType(query ? 'reconnected' : 'connected'));
    return c;
  };
  /** Send a screen subscribe on `c` and wait for its answer (`subscribed` or `error`). */
  const subscribe = async (c: TestClient, extra: Record<string, unknown>) => {
    const from = c.messages.length;
    c.send({ type: 'subscribe', subscription_type: 'screen', ...extra });
    return c.next((m: Msg) => (m.type === 'subscribed' || m.type === 'error') && c.messages.indexOf(m) >= from);
  };
  /** POST /screen/templates/{id} with `body` as `token`: status and JSON. */
  const templateRun = async (id: string, body: unknown, token: string) => {
    const res = await t.request(`/api/v1/screen/templates/${id}`, { method: 'POST', token, json: body });
    return { status: res.status, body: (await res.json()) as any };
  };
  const engine = () => t.daemon.context().realtime.liveScreens.engine;
  const codes = (m: Msg) => (m.members as Row[]).map((r) => r.code);
  const markets = (m: Msg) => new Set((m.members as Row[]).map((r) => r.market));

  beforeAll(async () => {
    t = await startTestDaemon('live-overrides', {
      workers: 1, feed: 'ingest', admin_email: 'ops@example.com', admin_password: 'ops-password-1',
      live_screen_limits: { free: { per_connection: 6, per_user: 20 } },
    } as never);
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await login.json()) as any).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 11, stocks: 30, days: 60 } });
    await waitForJob(t.daemon, ((await job.json()) as any).data.id);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  it('opens a template with a market override as a screen whose members are all of that market, as POST /screen/templates answers', async () => {
    // Given a signed-in client holding the large-cap template as it is (both markets)
    const alice = await t.login();
    const c = await open(alice.access_token);
    const plain = await subscribe(c, { targets: ['template:large-cap'] });
    expect(plain).toMatchObject({ type: 'subscribed', source: 'template:large-cap' });
    expect(plain.overrides).toBeUndefined();
    expect(markets(plain)).toEqual(new Set(['KOSPI', 'KOSDAQ']));
    // When it subscribes the same template with market KOSDAQ and a page of 5
    const kosdaq = await subscribe(c, { targets: ['template:large-cap'], overrides: { market: 'KOSDAQ', limit: 5 } });
    // Then that is another screen, every member on KOSDAQ, the page POST /screen/templates gives for the same overrides
    expect(kosdaq).toMatchObject({ type: 'subscribed', source: 'template:large-cap', overrides: { market: 'KOSDAQ', per_page: 5 }, per_page: 5, count: 5 });
    expect(kosdaq.screen_id).not.toBe(plain.screen_id);
    expect(markets(kosdaq)).toEqual(new Set(['KOSDAQ']));
    const rest = await templateRun('large-cap', { market: 'KOSDAQ', limit: 5 }, alice.access_token);
    expect(rest.status).toBe(200);
    expect(codes(kosdaq)).toEqual(rest.body.data.map((r: Row) => r.code));
    expect(codes(kosdaq)).not.toEqual(codes(plain).slice(0, 5));
    // A template of formula columns and a score (re-run whole) follows the override too
    const composite = await subscribe(c, { targets: ['template:value-composite'], overrides: { market: 'KOSDAQ' } });
    const restComposite = await templateRun('value-composite', { market: 'KOSDAQ' }, alice.access_token);
    expect(composite).toMatchObject({ type: 'subscribed', overrides: { market: 'KOSDAQ' } });
    expect(codes(composite).length).toBeGreaterThan(0);
    expect(markets(composite)).toEqual(new Set(['KOSDAQ']));
    expect(codes(composite)).toEqual(restComposite.body.data.map((r: Row) => r.code));
    // GET /screen/live lists it with the query the overrides made
    const listed = (await (await t.request('/api/v1/screen/live', { token: alice.access_token })).json()) as any;
    const entry = listed.data.find((e: any) => e.screen_id === kosdaq.screen_id);
    expect(entry).toMatchObject({ source: 'template:large-cap', query: { universe: { market: 'KOSDAQ' }, per_page: 5 } });
  });

  it('gives clients with different overrides different screens and clients with the same overrides the same one', async () => {
    const screensBefore = engine().stats().screens;
    // Given one client on KOSDAQ and another on KOSPI, top 3 of the large-cap template each
    const kosdaqClient = await open((await t.login()).access_token);
    const kospiClient = await open((await t.login()).access_token);
    const onKosdaq = await subscribe(kosdaqClient, { targets: ['template:large-cap'], overrides: { market: 'KOSDAQ', per_page: 3 } });
    const onKospi = await subscribe(kospiClient, { targets: ['template:large-cap'], overrides: { market: 'KOSPI', per_page: 3 } });
    // Then their members differ, each in its own market, on two screens
    expect(markets(onKosdaq)).toEqual(new Set(['KOSDAQ']));
    expect(markets(onKospi)).toEqual(new Set(['KOSPI']));
    expect(codes(onKosdaq).filter((code) => codes(onKospi).includes(code))).toEqual([]);
    expect(engine().stats().screens).toBe(screensBefore + 2);
    // When an anonymous client asks for the KOSDAQ overrides again (as the same values spelled differently)
    const anonymous = await open();
    const again = await subscribe(anonymous, { targets: ['template:large-cap'], overrides: { limit: 3, market: 'KOSDAQ' } });
    // Then it shares the first client's screen: same members, no new screen
    expect(again).toMatchObject({ type: 'subscribed', overrides: { market: 'KOSDAQ', per_page: 3 } });
    expect(codes(again)).toEqual(codes(onKosdaq));
    expect(engine().stats().screens).toBe(screensBefore + 2);
  });

  it('refuses bad overrides with field-level details as POST /screen/templates does, and keeps the connection usable', async () => {
    const bob = await t.login();
    const c = await open(bob.access_token);
    // An unknown key and a bad market: the same details as REST's 400, under overrides.
    const body = { market: 'NYSE', bogus: 1 };
    const rest = await templateRun('large-cap', body, bob.access_token);
    expect(rest.status).toBe(400);
    const bad = await subscribe(c, { targets: ['template:large-cap'], overrides: body });
    expect(bad).toMatchObject({ type: 'error', code: 'SUBSCRIPTION_FAILED', details: { reason: 'invalid_query', subscription_type: 'screen', target: 'template:large-cap' } });
    const details = bad.details as Record<string, unknown>;
    expect(details['overrides.market']).toBe(rest.body.error.details.market);
    expect(details['overrides.bogus']).toBe(rest.body.error.details.bogus);
    expect(details['overrides.bogus']).toMatch(/unknown parameter/);
    // A sort on a field that does not exist
    const sort = await subscribe(c, { targets: ['template:large-cap'], overrides: { sort_by: 'no_such_field' } });
    expect(sort).toMatchObject({ code: 'SUBSCRIPTION_FAILED', details: { reason: 'invalid_query' } });
    expect(Object.keys(sort.details as object)).toContain('overrides.sort_by');
    // as_of: a live screen follows live prices
    const asOf = await subscribe(c, { targets: ['template:large-cap'], overrides: { as_of: '2026-01-05' } });
    expect(asOf).toMatchObject({ code: 'SUBSCRIPTION_FAILED', details: { reason: 'invalid_query', 'overrides.as_of': expect.stringContaining('live prices') } });
    // …and so does an inline query or a preset asking for a past date (it would answer today's members)
    const inlineAsOf = await subscribe(c, { query: { per_page: 3, as_of: '2026-01-05' } });
    expect(inlineAsOf).toMatchObject({ code: 'SUBSCRIPTION_FAILED', details: { reason: 'invalid_query', target: 'query', 'query.as_of': expect.stringContaining('live prices') } });
    const past = await t.request('/api/v1/screen/presets', { method: 'POST', token: bob.access_token, json: { name: 'past', query: { per_page: 3, as_of: '2026-01-05' } } });
    expect(past.status).toBe(201);
    const pastId = ((await past.json()) as any).data.id as string;
    const onPast = await subscribe(c, { targets: [`preset:${pastId}`] });
    expect(onPast).toMatchObject({ code: 'SUBSCRIPTION_FAILED', details: { reason: 'invalid_query', target: `preset:${pastId}`, 'query.as_of': expect.stringContaining('live prices') } });
    // Overrides of a preset target, or with an inline query, are refused
    const made = await t.request('/api/v1/screen/presets', { method: 'POST', token: bob.access_token, json: { name: 'mine', query: { per_page: 3 } } });
    const preset = ((await made.json()) as any).data.id as string;
    const onPreset = await subscribe(c, { targets: [`preset:${preset}`], overrides: { market: 'KOSDAQ' } });
    expect(onPreset).toMatchObject({ code: 'SUBSCRIPTION_FAILED', details: { reason: 'invalid_query', target: `preset:${preset}`, overrides: expect.stringContaining('template') } });
    const withQuery = await subscribe(c, { query: { per_page: 3 }, overrides: { market: 'KOSDAQ' } });
    expect(withQuery).toMatchObject({ code: 'INVALID_MESSAGE', details: { issues: [expect.objectContaining({ field: 'overrides' })] } });
    const notObject = await subscribe(c, { targets: ['template:large-cap'], overrides: 'KOSDAQ' });
    expect(notObject).toMatchObject({ code: 'INVALID_MESSAGE', details: { issues: [expect.objectContaining({ field: 'overrides' })] } });
    // None of them opened a screen, and the connection still answers
    expect(c.messages.some((m) => m.type === 'subscribed' && m.subscription_type === 'screen')).toBe(false);
    const ok = await subscribe(c, { targets: ['template:large-cap'], overrides: { market: 'KOSPI' } });
    expect(markets(ok)).toEqual(new Set(['KOSPI']));
  });

  it("holds an anonymous caller's overrides to the anonymous budget and to the template's lists", async () => {
    const anonymous = await open();
    // A page of 500 with extra columns is over the anonymous budget's cells...
    const big = { market: 'KOSDAQ', per_page: 500, fields: ['per', 'pbr', 'roe', 'volume', 'trading_value', 'sector'] };
    const refused = await subscribe(anonymous, { targets: ['template:large-cap'], overrides: big });
    expect(refused).toMatchObject({
      code: 'SUBSCRIPTION_FAILED',
      details: { reason: 'invalid_query', target: 'template:large-cap', 'overrides.limit': 'cells', 'overrides.tier': 'anonymous', 'overrides.per_page': expect.stringContaining('anonymous') },
    });
    // ...but within a signed-in free user's, who gets the screen
    const signedIn = await open((await t.login()).access_token);
    const allowed = await subscribe(signedIn, { targets: ['template:large-cap'], overrides: big });
    expect(allowed).toMatchObject({ type: 'subscribed', per_page: 500, count: 20 });
    expect(Object.keys((allowed.members as object[])[0]!)).toEqual(expect.arrayContaining(['per', 'roe', 'trading_value']));
    // A sort of one's own would be a list of one's own: it needs an account
    const sorted = await subscribe(anonymous, { targets: ['template:large-cap'], overrides: { sort_by: 'change_percent' } });
    expect(sorted).toMatchObject({ code: 'SUBSCRIPTION_FAILED', details: { reason: 'sign_in_required', 'overrides.sort': expect.stringContaining('sign in') } });
    // The template alone stays open to anonymous callers
    expect(await subscribe(anonymous, { targets: ['template:large-cap'] })).toMatchObject({ type: 'subscribed', source: 'template:large-cap' });
  });

  it("restores a session's template screen with its overrides and the diff since the disconnect", async () => {
    // Given a client on the large-cap template, KOSDAQ only, its top 3 by change
    const dave = await t.login();
    const c = await open(dave.access_token);
    const sessionId = c.messages.find((m) => m.type === 'connected')!.session_id as string;
    const overrides = { market: 'KOSDAQ', sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 3 };
    const sub = await subscribe(c, { targets: ['template:large-cap'], overrides });
    expect(sub).toMatchObject({ type: 'subscribed', overrides, per_page: 3 });
    const before = codes(sub);
    await c.close();
    // While it is away, a KOSPI stock and a KOSDAQ stock outside its members go to their upper limit (+30 %)
    const all = (await templateRun('large-cap', { per_page: 100 }, dave.access_token)).body.data as Row[];
    const kospi = all.find((r) => r.market === 'KOSPI')!;
    const kosdaq = all.find((r) => r.market === 'KOSDAQ' && !before.includes(r.code))!;
    for (const r of [kospi, kosdaq]) {
      const res = await t.request('/api/v1/admin/ticks', { method: 'POST', token: admin, json: { ticks: [{ code: r.code, price: priceLimits(r.close).upper, volume: (volume += 1000) }] } });
      expect(res.status).toBe(202);
    }
    // When it comes back with its session
    const back = await open(dave.access_token, `&session_id=${sessionId}`);
    const again = await back.next(ofType('subscribed', { subscription_type: 'screen' }));
    // Then the same screen is back with the same overrides: KOSDAQ only, the KOSDAQ jumper on top, the KOSPI one nowhere
    expect(again).toMatchObject({ screen_id: sub.screen_id, restored: true, source: 'template:large-cap', overrides, per_page: 3 });
    expect(markets(again)).toEqual(new Set(['KOSDAQ']));
    expect(codes(again)[0]).toBe(kosdaq.code);
    expect(codes(again)).not.toContain(kospi.code);
    const diff = await back.next(ofType('screen_update', { screen_id: sub.screen_id }));
    expect((diff.entered as Row[]).map((r) => r.code)).toEqual([kosdaq.code]);
    expect(diff.exited).toEqual([before[2]]);
  });
});
