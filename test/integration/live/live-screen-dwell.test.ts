/**
 * A live screen's dwell through the daemon: two real WebSocket clients subscribe the same top-3
 * query (one shared list in the engine), one with `dwell_s`. Ticks through POST /admin/ticks push
 * a stock into the top 3 and back out, and another in for good; the daemon runs on a manual
 * clock, so "within the dwell" and "after the dwell" are moves of that clock, not waits.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createManualClock } from '../../../daemon/infra/clock.js';
import { priceLimits, roundToTick } from '../../../daemon/kernel/tick-size.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { connect, ofType, type Msg, type TestClient } from '../ws/client.js';

interface Stock { code: string; close: number }

const TOP3 = { sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 3, fields: ['change_percent'] };
const DWELL_S = 60;

describe('live screen dwell', () => {
  const clock = createManualClock();
  let t: TestDaemon;
  let admin: string;
  let alice: { access_token: string };
  let stocks: Stock[];
  let volume = 1_000_000;
  const clients: TestClient[] = [];
  const open = async () => {
    const c = await connect(`${t.url.replace('http', 'ws')}/v1/ws?token=${alice.access_token}`);
    clients.push(c);
    await c.next(ofType('connected'));
    return c;
  };
  const screen = async (live = true) =>
    ((await (await t.request(`/api/v1/screen${live ? '?prices=live' : ''}`, { method: 'POST', token: alice.access_token, json: TOP3 })).json()) as { data: { code: string }[] }).data.map((s) => s.code);
  const tick = async (s: Stock, pct: number) => {
    const { lower, upper } = priceLimits(s.close);
    const price = Math.min(upper, Math.max(lower, roundToTick(s.close * (1 + pct / 100))));
    const res = await t.request('/api/v1/admin/ticks', { method: 'POST', token: admin, json: { ticks: [{ code: s.code, price, volume: (volume += 1000) }] } });
    expect(res.status).toBe(202);
  };
  /** A screen update telling that `code` entered the page, or left it. */
  const enters = (code: string) => (m: Msg) => m.type === 'screen_update' && (m.entered as { code: string }[]).some((r) => r.code === code);
  const exits = (code: string) => (m: Msg) => m.type === 'screen_update' && (m.exited as string[]).includes(code);
  const updates = (c: TestClient, screenId: unknown) => c.messages.filter((m) => m.type === 'screen_update' && m.screen_id === screenId);
  /** Members rebuilt from `subscribed` and every `screen_update`, with no duplicate enter or stray exit. */
  const replay = (c: TestClient, sub: Msg) => {
    const set = new Set((sub.members as { code: string }[]).map((m) => m.code));
    for (const u of updates(c, sub.screen_id)) {
      for (const code of u.exited as string[]) expect(set.delete(code), `exit of non-member ${code}`).toBe(true);
      for (const row of u.entered as { code: string }[]) expect(set.has(row.code), `duplicate enter ${row.code}`).toBe(false), set.add(row.code);
      expect(u.count).toBe(set.size);
    }
    return set;
  };

  beforeAll(async () => {
    t = await startTestDaemon('live-dwell', { workers: 1, feed: 'ingest', admin_email: 'ops@example.com', admin_password: 'ops-password-1',
      live_screen_limits: { free: { per_connection: 4, per_user: 10 } },
    } as never, { clock });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await login.json()) as any).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 11, stocks: 30, days: 40 } });
    await waitForJob(t.daemon, ((await job.json()) as any).data.id);
    alice = await t.login();
    const all = await t.request('/api/v1/screen', { method: 'POST', token: alice.access_token, json: { per_page: 500, sort: [{ field: 'code', direction: 'asc' }] } });
    stocks = ((await all.json()) as { data: Stock[] }).data.filter((s) => s.close > 0);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  it('refuses a bad dwell_s with SUBSCRIPTION_FAILED naming the field and keeps the connection usable', async () => {
    const c = await open();
    for (const dwell_s of [-1, 3601, 1.5, '30s']) {
      c.send({ type: 'subscribe', subscription_type: 'screen', query: TOP3, dwell_s });
      const err = await c.next(ofType('error'));
      expect(err).toMatchObject({ code: 'SUBSCRIPTION_FAILED', details: { reason: 'invalid_dwell', subscription_type: 'screen' } });
      expect(err.details).toHaveProperty('dwell_s');
    }
    c.send({ type: 'subscribe', subscription_type: 'screen', query: TOP3, dwell_s: 3600 });
    const ok = await c.next(ofType('subscribed', { subscription_type: 'screen' }));
    c.send({ type: 'unsubscribe', subscription_type: 'screen', targets: [ok.screen_id] });
    expect(await c.next(ofType('unsubscribed', { subscription_type: 'screen' }))).toMatchObject({ targets: [ok.screen_id] });
  });

  it('a stock in and back out within the dwell is never reported; one that stays is reported once after it; a subscriber without dwell sees every change', async () => {
    // Given two subscribers of the same top 3, one with a 60 s dwell
    const plain = await open();
    const dwelling = await open();
    plain.send({ type: 'subscribe', subscription_type: 'screen', query: TOP3 });
    const subPlain = await plain.next(ofType('subscribed', { subscription_type: 'screen' }));
    dwelling.send({ type: 'subscribe', subscription_type: 'screen', query: TOP3, dwell_s: DWELL_S });
    const subDwell = await dwelling.next(ofType('subscribed', { subscription_type: 'screen' }));
    // (the subscribed answer is the exact page, dwell or not)
    const before = await screen();
    expect((subDwell.members as { code: string }[]).map((m) => m.code)).toEqual(before);
    expect((subPlain.members as { code: string }[]).map((m) => m.code)).toEqual(before);
    const [hover, stay] = stocks.filter((s) => !before.includes(s.code));
    const start = clock.now();

    // When one stock jumps into the top 3 and falls back out, and another enters and stays
    await tick(hover!, 28);
    await plain.next(enters(hover!.code));
    await tick(hover!, -5);
    await plain.next(exits(hover!.code));
    await tick(stay!, 28.5);
    await plain.next(enters(stay!.code));
    const after = await screen();
    expect(after).toContain(stay!.code);
    expect(after).not.toContain(hover!.code);

    // Then the subscriber without dwell got every change of the shared list
    expect(replay(plain, subPlain)).toEqual(new Set(after));
    // And once the dwell has passed, the dwelling one gets the lasting change, in one update
    clock.advance(DWELL_S * 1000);
    const told = await dwelling.next(ofType('screen_update', { screen_id: subDwell.screen_id }), 10_000);
    expect((told.entered as { code: string }[]).map((r) => r.code)).toEqual([stay!.code]);
    expect(told.exited).toEqual(before.filter((c) => !after.includes(c)));
    expect(Date.parse(told.timestamp!)).toBeGreaterThanOrEqual(start + DWELL_S * 1000);
    // Its members are the page as it stands, and the stock that hovered was never reported
    expect(replay(dwelling, subDwell)).toEqual(new Set(after));
    const mentioned = updates(dwelling, subDwell.screen_id).flatMap((u) => [...(u.entered as { code: string }[]).map((r) => r.code), ...(u.exited as string[])]);
    expect(mentioned).not.toContain(hover!.code);
    expect(mentioned.filter((c) => c === stay!.code)).toHaveLength(1);
  });

  it('a restored session keeps its dwell', async () => {
    // Given a subscriber with a dwell whose connection drops and whose session is restored
    const plain = await open();
    plain.send({ type: 'subscribe', subscription_type: 'screen', query: TOP3 });
    await plain.next(ofType('subscribed', { subscription_type: 'screen' }));
    const c = await open();
    const sessionId = c.messages.find((m) => m.type === 'connected')!.session_id as string;
    c.send({ type: 'subscribe', subscription_type: 'screen', query: TOP3, dwell_s: DWELL_S });
    const sub = await c.next(ofType('subscribed', { subscription_type: 'screen' }));
    await c.close();
    const back = await connect(`${t.url.replace('http', 'ws')}/v1/ws?token=${alice.access_token}&session_id=${sessionId}`);
    clients.push(back);
    await back.next(ofType('reconnected'));
    const again = await back.next(ofType('subscribed', { subscription_type: 'screen' }));
    expect(again).toMatchObject({ screen_id: sub.screen_id, restored: true });
    const before = await screen();
    expect((again.members as { code: string }[]).map((m) => m.code)).toEqual(before);
    const [hover, stay] = stocks.filter((s) => !before.includes(s.code));

    // When a stock enters and leaves the top 3 and another enters for good
    await tick(hover!, 29);
    await plain.next(enters(hover!.code));
    await tick(hover!, -5);
    await plain.next(exits(hover!.code));
    await tick(stay!, 30);
    await plain.next(enters(stay!.code));

    // Then after the dwell the restored subscription is told the lasting entry only
    clock.advance(DWELL_S * 1000);
    const told = await back.next(ofType('screen_update', { screen_id: sub.screen_id }), 10_000);
    expect((told.entered as { code: string }[]).map((r) => r.code)).toEqual([stay!.code]);
    expect(replay(back, again)).toEqual(new Set(await screen()));
  });

  it('tells nothing while prices are stale; a change that went back during the hold is never told', async () => {
    const ctx = t.daemon.context();
    const freshness = (prices: 'stale' | 'fresh') =>
      ctx.realtime.bus.publish({ type: 'market_status', market: 'KOSPI', status: 'open', ts: clock.now(), prices, ...(prices === 'stale' ? { stale_reason: 'test' } : {}) });
    const plain = await open();
    plain.send({ type: 'subscribe', subscription_type: 'screen', query: TOP3 });
    await plain.next(ofType('subscribed', { subscription_type: 'screen' }));
    const dwelling = await open();
    dwelling.send({ type: 'subscribe', subscription_type: 'screen', query: TOP3, dwell_s: DWELL_S });
    const sub = await dwelling.next(ofType('subscribed', { subscription_type: 'screen' }));
    const before = await screen();
    const [hover, stay] = stocks.filter((s) => !before.includes(s.code));

    // Given a stock that entered the top 3 just before the feed went stale
    await tick(hover!, 30);
    await plain.next(enters(hover!.code));
    await freshness('stale');
    await vi.waitFor(() => expect(ctx.realtime.liveScreens.engine.held()).toBe(true), { timeout: 10_000 });
    // When its dwell passes while prices are stale, then it falls back out and prices are fresh again
    clock.advance(DWELL_S * 1000);
    ctx.realtime.liveScreenHook.sweep();
    await tick(hover!, -5);
    await freshness('fresh');
    await plain.next(exits(hover!.code));
    // And another enters for good
    await tick(stay!, 30);
    await plain.next(enters(stay!.code));
    clock.advance(DWELL_S * 1000);
    ctx.realtime.liveScreenHook.sweep();

    // Then the dwelling subscriber is told the lasting entry only, never the one from before the hold
    const told = await dwelling.next(ofType('screen_update', { screen_id: sub.screen_id }), 10_000);
    expect((told.entered as { code: string }[]).map((r) => r.code)).toEqual([stay!.code]);
    const mentioned = updates(dwelling, sub.screen_id).flatMap((u) => [...(u.entered as { code: string }[]).map((r) => r.code), ...(u.exited as string[])]);
    expect(mentioned).not.toContain(hover!.code);
    expect(replay(dwelling, sub)).toEqual(new Set(await screen()));
  });
});
