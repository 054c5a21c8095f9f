/**
 * The KIS feed through the daemon's own wiring against the local fake of the KIS REST and
 * WebSocket APIs (test/fakes/kis-fake.ts): the whole market by sweep, real-time trades for the
 * most-watched codes up to the registration limit, PINGPONG, bad provider input, EGW00201, an
 * expired token, a dropped connection, a silent socket (stale prices: /health, the
 * market_status message, live screens holding entered/exited until prices are fresh), and two
 * daemons whose leader stops mid-session.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { priceLimits, roundToTick } from '../../../daemon/kernel/tick-size.js';
import { startKisFake, type KisFake } from '../../fakes/kis-fake.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { connect, ofType, type TestClient } from '../ws/client.js';

interface Stock { code: string; name: string; close: number; change_percent: number | null }

const KEY = 'PSfakeAppKey0123456789';
const SECRET = 'fake-app-secret-never-logged-0123456789';

describe('feed kis against the fake KIS API', () => {
  let fake: KisFake;
  let a: TestDaemon;
  let b: TestDaemon | undefined;
  let admin: string;
  let alice: { access_token: string };
  let stocks: Stock[];
  const clients: TestClient[] = [];

  const kisConfig = () => ({
    feed: 'kis', market_clock: 'always-open', kis_app_key: KEY, kis_app_secret: SECRET,
    kis_rest_url: fake.restUrl, kis_ws_url: fake.wsUrl, kis_rest_calls_per_s: 10, kis_ws_max_registrations: 3,
    kis_ws_silence_ms: 1500, kis_token_interval_ms: 1500, kis_sweep_pause_ms: 100,
  });
  const open = async (t: TestDaemon) => {
    const c = await connect(`${t.url.replace('http', 'ws')}/v1/ws?token=${alice.access_token}`);
    clients.push(c);
    await c.next(ofType('connected'));
    return c;
  };
  const price = async (t: TestDaemon, code: string) => ((await (await t.request(`/api/v1/stocks/${code}/price`, { token: alice.access_token })).json()) as any).data;
  const health = async (t: TestDaemon) => (await (await t.request('/health')).json()) as any;
  const metrics = async (t: TestDaemon) => (await t.request('/metrics', { token: admin })).text();
  const at = (s: Stock, pct: number) => {
    const { lower, upper } = priceLimits(s.close);
    return Math.min(upper, Math.max(lower, roundToTick(s.close * (1 + pct / 100))));
  };
  const leaderOf = () => [a, b].find((t) => t?.daemon.context().realtime.feed.isLeader());

  beforeAll(async () => {
    fake = await startKisFake({ appKey: KEY, appSecret: SECRET, callsPerSecond: 20, tokenIntervalMs: 1500, pingMs: 300, maxRegistrations: 41 });
    a = await startTestDaemon('kis-feed', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1', ...kisConfig() } as never);
    const login = await a.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await login.json()) as any).access_token;
    const job = await a.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 7, stocks: 30, days: 40 } });
    await waitForJob(a.daemon, ((await job.json()) as any).data.id);
    alice = await a.login();
    const all = await a.request('/api/v1/screen', { method: 'POST', token: alice.access_token, json: { fields: ['change_percent'], per_page: 500, sort: [{ field: 'code', direction: 'asc' }] } });
    stocks = ((await all.json()) as any).data.filter((s: Stock) => s.close > 0);
    for (const s of stocks) fake.market.set(s.code, { name: s.name, price: s.close, prevClose: s.close, volume: 1000, open: s.close, high: s.close, low: s.close });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await b?.close();
    await a?.close();
    await fake?.close();
  });

  it('prices the whole market by sweep: 30 codes a call, under the rate, one token, quotes marked sweep with their age', async () => {
    const s = stocks[5]!;
    fake.market.get(s.code)!.price = at(s, 3);
    fake.market.get(s.code)!.volume += 500;
    await vi.waitFor(async () => expect((await price(a, s.code)).price).toBe(at(s, 3)), { timeout: 15_000, interval: 100 });
    const quote = await price(a, s.code);
    expect(quote).toMatchObject({ source: 'live', quote_source: 'sweep', session: 'regular' });
    expect(quote.age_ms).toBeGreaterThanOrEqual(0);
    expect(fake.stats.tokenIssues).toBe(1);
    expect(fake.stats.tokenRefusals).toBe(0);
    // 10 calls a second configured, 20 allowed by the fake: never more than the configured rate in any second.
    expect(fake.stats.maxCallsInOneSecond).toBeLessThanOrEqual(10);
    expect(fake.stats.rateLimited).toBe(0);
    // Every daemon reads the leader's record once a second.
    await vi.waitFor(async () => expect(await health(a)).toMatchObject({ status: 'healthy', feed: { source: 'kis', stale: false, leader: true, session: 'regular' } }), { timeout: 5_000, interval: 100 });
    const h = await health(a);
    // The secret is never in an answer.
    expect(JSON.stringify(h)).not.toContain(SECRET);
    expect(await metrics(a)).toMatch(/stockscreen_kis_calls_total\{kind="multi_price",outcome="ok"\} [1-9]/);
  });

  it('reports the kis source in the registry shape, and its test checks the key, the token and one call of each kind', async () => {
    // Listed and tested through the sources routes, beside the job-run sources
    const sourceStatus = async () => ((await (await a.request('/api/v1/admin/sources', { token: admin })).json()) as any).data.find((s: any) => s.name === 'kis');
    await vi.waitFor(async () => expect((await sourceStatus()).calls_today).toBeGreaterThan(0), { timeout: 5_000, interval: 100 });
    const status = await sourceStatus();
    expect(Object.keys(status).sort()).toEqual(['calls_today', 'configured', 'kind', 'last_error', 'last_success_at', 'last_success_date', 'name', 'stale', 'stale_reason']);
    expect(status).toMatchObject({ name: 'kis', configured: true, stale: false, stale_reason: null });
    expect(Date.parse(status.last_success_at!)).toBeGreaterThan(0);
    const tokens = fake.stats.tokenIssues;
    const tested = await a.request('/api/v1/admin/sources/kis/test', { method: 'POST', token: admin });
    const result = ((await tested.json()) as any).data;
    expect(result.checks.map((c: any) => [c.service, c.ok])).toEqual([['key', true], ['token', true], ['multi_price', true], ['websocket', true]]);
    expect(result.ok).toBe(true);
    // The test reuses the shared token and the leader's session.
    expect(fake.stats.tokenIssues).toBe(tokens);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('registers the most-watched codes for real-time trades up to the limit; their ticks reach clients marked tick; PINGPONG is answered', async () => {
    const watched = stocks.slice(0, 5);
    const c1 = await open(a);
    const c2 = await open(a);
    // Watch counts: stocks 0 and 1 by two connections, 2–4 by one; the limit is 3 registrations.
    c1.send({ type: 'subscribe', subscription_type: 'stock', targets: watched.map((s) => s.code) });
    c2.send({ type: 'subscribe', subscription_type: 'stock', targets: [watched[0]!.code, watched[1]!.code] });
    await c1.next(ofType('subscribed'));
    await c2.next(ofType('subscribed'));
    await vi.waitFor(() => expect(fake.registered().sort()).toEqual([watched[0]!.code, watched[1]!.code, watched[2]!.code].sort()), { timeout: 15_000, interval: 50 });
    expect(fake.registered().length).toBeLessThanOrEqual(3);
    const s = watched[1]!;
    fake.trade(s.code, at(s, -2), 300);
    const update = await c2.next((m) => m.type === 'price_update' && m.code === s.code && m.price === at(s, -2) && m.source === 'tick', 10_000);
    expect(update).toMatchObject({ session: 'regular' });
    await vi.waitFor(() => expect(fake.stats.pongs).toBeGreaterThan(0), { timeout: 5_000, interval: 50 });
    // Interest moves: the first two codes are dropped by both clients; a later one takes their place.
    c1.send({ type: 'unsubscribe', subscription_type: 'stock', targets: [watched[0]!.code, watched[1]!.code] });
    c2.send({ type: 'unsubscribe', subscription_type: 'stock', targets: [watched[0]!.code, watched[1]!.code] });
    await vi.waitFor(() => expect(fake.registered().sort()).toEqual([watched[2]!.code, watched[3]!.code, watched[4]!.code].sort()), { timeout: 15_000, interval: 50 });
    await c1.close();
    await c2.close();
  });

  it('skips and counts bad provider input (price 0, an unlisted code, unknown layouts) without a wrong price or a crash', async () => {
    const s = stocks[8]!;
    const before = (await price(a, s.code)).price;
    fake.injectRows([
      { inter_shrn_iscd: s.code, inter2_prpr: '0', acml_vol: '999999' },
      { inter_shrn_iscd: '999999', inter2_prpr: '1000', acml_vol: '10' },
      { something: 'else' },
      'not an object',
    ]);
    fake.sendRaw('0|H0STCNT0|001|only^three^fields');
    fake.sendRaw('{not json');
    await vi.waitFor(async () => {
      const m = await metrics(a);
      expect(m).toMatch(/stockscreen_kis_rejected_total\{reason="zero_price"\} [1-9]/);
      expect(m).toMatch(/stockscreen_kis_rejected_total\{reason="unknown_code"\} [1-9]/);
      expect(m).toMatch(/stockscreen_kis_rejected_total\{reason="bad_layout"\} [1-9]/);
    }, { timeout: 10_000, interval: 100 });
    expect((await price(a, s.code)).price).toBe(before);
    expect((await a.request('/api/v1/stocks/999999/price', { token: alice.access_token })).status).toBe(404);
    expect((await health(a)).status).toBe('healthy');
  });

  it('waits and retries on EGW00201 and renews an expired token without asking twice within the interval', async () => {
    fake.rateLimitNext(3);
    await vi.waitFor(async () => expect(await metrics(a)).toMatch(/stockscreen_kis_calls_total\{kind="multi_price",outcome="rate_limited"\} [3-9]/), { timeout: 10_000, interval: 100 });
    const issued = fake.stats.tokenIssues;
    fake.expireTokens();
    const s = stocks[10]!;
    fake.market.get(s.code)!.price = at(s, 4);
    fake.market.get(s.code)!.volume += 700;
    await vi.waitFor(async () => expect((await price(a, s.code)).price).toBe(at(s, 4)), { timeout: 15_000, interval: 100 });
    expect(fake.stats.expiredAnswers).toBeGreaterThan(0);
    expect(fake.stats.tokenIssues).toBe(issued + 1);
    expect(fake.stats.tokenRefusals).toBe(0);
    expect(await metrics(a)).toMatch(/outcome="token_expired"\} [1-9]/);
  });

  it('reconnects a dropped socket after a backoff and restores its registrations; one session at a time', async () => {
    const c = await open(a);
    const s = stocks[2]!;
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: [s.code] });
    await c.next(ofType('subscribed'));
    await vi.waitFor(() => expect(fake.registered()).toContain(s.code), { timeout: 15_000, interval: 50 });
    // One watched code and room left under the limit: its order book is registered too.
    await vi.waitFor(() => expect(fake.registered('H0STASP0')).toContain(s.code), { timeout: 15_000, interval: 50 });
    const bid = at(s, 1);
    const ask = roundToTick(bid + 1, 'up');
    fake.book(s.code, [[ask, 120]], [[bid, 80]]);
    const book = await c.next((m) => m.type === 'orderbook_update' && m.code === s.code, 10_000);
    expect(book).toMatchObject({ asks: [{ price: ask, quantity: 120 }], bids: [{ price: bid, quantity: 80 }] });
    const connections = fake.stats.connections;
    fake.dropConnections();
    await vi.waitFor(() => {
      expect(fake.stats.connections).toBe(connections + 1);
      expect(fake.registered()).toContain(s.code);
    }, { timeout: 15_000, interval: 50 });
    fake.trade(s.code, at(s, 5), 100);
    await c.next((m) => m.type === 'price_update' && m.code === s.code && m.price === at(s, 5), 10_000);
    expect(fake.stats.maxOpenSessions).toBe(1);
    await c.close();
  });

  it('a silent socket makes prices stale: /health and clients are told, live screens hold entered/exited and reconcile when fresh', async () => {
    const c = await open(a);
    const s = stocks[3]!;
    const top = { sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 3, fields: ['change_percent'] };
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: [s.code] });
    await c.next(ofType('subscribed', { subscription_type: 'stock' }));
    c.send({ type: 'subscribe', subscription_type: 'screen', query: top });
    const sub = await c.next(ofType('subscribed', { subscription_type: 'screen' }));
    expect((sub.members as Stock[]).map((m) => m.code)).not.toContain(s.code);
    // A screen alert on the same screen, saved as a preset.
    const preset = await (await a.request('/api/v1/screen/presets', { method: 'POST', token: alice.access_token, json: { name: 'Top 3', query: top } })).json() as any;
    const alertRes = await a.request('/api/v1/alerts', { method: 'POST', token: alice.access_token, json: { preset_id: preset.data.id, alert_type: 'screen_enter', dwell_s: 0 } });
    expect(alertRes.status).toBe(201);
    await vi.waitFor(() => expect(a.daemon.context().realtime.screenAlertEvaluator.size()).toBe(1), { timeout: 5_000, interval: 20 });
    await vi.waitFor(() => expect(fake.registered()).toContain(s.code), { timeout: 15_000, interval: 50 });

    fake.silence(true);
    await c.next((m) => m.type === 'market_status' && m.prices === 'stale', 10_000);
    // (a whole list answers as of its last re-run, so a change from before the silence may arrive
    // before it: only what is sent after the stale message counts)
    const sinceStale = c.messages.length;
    // Every daemon reads the leader's record once a second.
    await vi.waitFor(async () => {
      const h = await health(a);
      expect(h.feed).toMatchObject({ stale: true });
      expect(h.feed.stale_reason).toMatch(/silent/);
    }, { timeout: 5_000, interval: 100 });
    expect(await metrics(a)).toMatch(/stockscreen_feed_stale 1/);
    // A client subscribing while prices are stale learns it with the market status.
    const late = await open(a);
    late.send({ type: 'subscribe', subscription_type: 'stock', targets: [stocks[0]!.code] });
    expect(await late.next(ofType('market_status'))).toMatchObject({ status: 'open', prices: 'stale' });
    await late.close();
    // The sweep still moves the stock to the top, but while prices are stale no entered is sent.
    fake.market.get(s.code)!.price = at(s, 25);
    fake.market.get(s.code)!.volume += 1000;
    await c.next((m) => m.type === 'price_update' && m.code === s.code && m.price === at(s, 25), 10_000);
    expect(c.messages.slice(sinceStale).filter((m) => m.type === 'screen_update' && m.screen_id === sub.screen_id)).toEqual([]);
    expect(c.messages.filter((m) => m.type === 'alert')).toEqual([]);

    fake.silence(false);
    fake.ping();
    await c.next((m) => m.type === 'market_status' && m.prices === 'fresh', 10_000);
    // The release is the freshness message's own evaluation: its screen_update comes just before it.
    const [update] = await c.collect((m) => m.type === 'screen_update' && m.screen_id === sub.screen_id && c.messages.indexOf(m) >= sinceStale, 1, 10_000);
    expect((update!.entered as Stock[]).map((m) => m.code)).toContain(s.code);
    // The screen alert fires for the stock that entered, once prices are fresh.
    const [fired] = await c.collect((m) => m.type === 'alert' && m.alert_type === 'screen_enter', 1, 10_000);
    expect(fired).toMatchObject({ code: s.code, preset_id: preset.data.id });
    await vi.waitFor(async () => expect((await health(a)).feed.stale).toBe(false), { timeout: 5_000, interval: 100 });
    await c.close();
  });

  it('registers the codes of active price alerts for real-time trades; a trade frame fires the alert', async () => {
    const s = stocks[20]!;
    const c = await open(a);
    const res = await a.request('/api/v1/alerts', { method: 'POST', token: alice.access_token, json: { code: s.code, alert_type: 'price_above', threshold: at(s, 8) } });
    expect(res.status).toBe(201);
    await vi.waitFor(() => expect(fake.registered()).toContain(s.code), { timeout: 15_000, interval: 50 });
    fake.trade(s.code, at(s, 9), 100);
    const alert = await c.next((m) => m.type === 'alert' && m.code === s.code, 10_000);
    expect(alert).toMatchObject({ alert_type: 'price_above', current_price: at(s, 9) });
    await c.close();
  });

  it('two daemons: one feeds, both serve; when the leader stops mid-session the other resumes sweep and registrations with the shared token', async () => {
    b = await startTestDaemon('kis-feed-b', { workers: 0, redis_prefix: a.prefix, ...a.store, ...kisConfig() } as never);
    expect(leaderOf()).toBe(a);
    const onB = await open(b);
    const s = stocks[6]!;
    onB.send({ type: 'subscribe', subscription_type: 'stock', targets: [s.code] });
    await onB.next(ofType('subscribed'));
    await vi.waitFor(() => expect(fake.registered()).toContain(s.code), { timeout: 15_000, interval: 50 });
    const tokens = fake.stats.tokenIssues;
    const connections = fake.stats.connections;

    await a.daemon.close();
    await vi.waitFor(() => expect(b!.daemon.context().realtime.feed.isLeader()).toBe(true), { timeout: 15_000, interval: 50 });
    await vi.waitFor(() => expect(fake.registered()).toContain(s.code), { timeout: 15_000, interval: 50 });
    expect(fake.stats.connections).toBe(connections + 1);
    fake.trade(s.code, at(s, -6), 100);
    await onB.next((m) => m.type === 'price_update' && m.code === s.code && m.price === at(s, -6) && m.source === 'tick', 10_000);
    const t = stocks[9]!;
    fake.market.get(t.code)!.price = at(t, 7);
    fake.market.get(t.code)!.volume += 100;
    await vi.waitFor(async () => expect((await price(b!, t.code)).price).toBe(at(t, 7)), { timeout: 15_000, interval: 100 });
    // The token the first leader stored is the one the second uses.
    expect(fake.stats.tokenIssues).toBe(tokens);
    expect(fake.stats.maxOpenSessions).toBe(1);
    expect((await health(b)).feed).toMatchObject({ stale: false, leader: true });
  });
});
