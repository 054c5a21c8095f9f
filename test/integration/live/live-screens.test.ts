/**
 * Live screens through the daemon: WebSocket subscriptions of screens whose
 * members, after ticks ingested with POST /admin/ticks, equal POST /screen?prices=live
 * (sort order and per_page included) and an independent computation from the ticks sent;
 * events in sequence without duplicates; bad input; per-tier limits; GET /screen/live.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceLimits, roundToTick } from '../../../daemon/kernel/tick-size.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { connect, ofType, type Msg, type TestClient } from '../ws/client.js';

interface Stock { code: string; close: number; change_percent: number | null; market_cap: number | null }

describe('live screens', () => {
  let t: TestDaemon;
  let admin: string;
  let alice: { access_token: string; id: string };
  let stocks: Stock[];
  const clients: TestClient[] = [];
  const wsUrl = (token: string) => `${t.url.replace('http', 'ws')}/v1/ws?token=${token}`;
  const open = async (token: string) => {
    const c = await connect(wsUrl(token));
    clients.push(c);
    await c.next(ofType('connected'));
    return c;
  };
  const screen = async (body: unknown, token: string, live = true) =>
    ((await (await t.request(`/api/v1/screen${live ? '?prices=live' : ''}`, { method: 'POST', token, json: body })).json()) as any);
  const tick = async (ticks: { code: string; price: number; volume: number }[]) => {
    const res = await t.request('/api/v1/admin/ticks', { method: 'POST', token: admin, json: { ticks } });
    expect(res.status).toBe(202);
  };
  /** A price on the tick grid at `pct` % from the previous close, inside the daily limits. */
  const priceAt = (s: Stock, pct: number) => {
    const { lower, upper } = priceLimits(s.close);
    return Math.min(upper, Math.max(lower, roundToTick(s.close * (1 + pct / 100))));
  };

  beforeAll(async () => {
    t = await startTestDaemon('live-screens', {
      workers: 1, feed: 'ingest', admin_email: 'ops@example.com', admin_password: 'ops-password-1',
      live_screen_limits: { free: { per_connection: 4, per_user: 5 } },
    } as never);
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await login.json()) as any).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 11, stocks: 30, days: 40 } });
    await waitForJob(t.daemon, ((await job.json()) as any).data.id);
    alice = await t.login();
    const all = await screen({ fields: ['change_percent', 'market_cap'], per_page: 500, sort: [{ field: 'code', direction: 'asc' }] }, alice.access_token, false);
    stocks = all.data.filter((s: Stock) => s.close > 0);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  /** Members rebuilt from `subscribed` and every `screen_update` of `screenId`, checking there is no duplicate enter or stray exit. */
  function replay(c: TestClient, screenId: string): Set<string> {
    const sub = c.messages.find((m) => m.type === 'subscribed' && m.screen_id === screenId)!;
    const set = new Set((sub.members as { code: string }[]).map((m) => m.code));
    for (const u of c.messages.filter((m) => m.type === 'screen_update' && m.screen_id === screenId)) {
      for (const code of u.exited as string[]) expect(set.delete(code), `exit of non-member ${code}`).toBe(true);
      for (const row of u.entered as { code: string }[]) {
        expect(set.has(row.code), `duplicate enter ${row.code}`).toBe(false);
        set.add(row.code);
      }
      expect(u.count).toBe(set.size);
    }
    return set;
  }

  it('keeps members equal to POST /screen at live prices through ticks that push stocks in and out of a top-N', async () => {
    const c = await open(alice.access_token);
    const top = { sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 5, fields: ['change_percent'] };
    const movers = { filters: { change_percent: { min: 2 } }, sort: [{ field: 'market_cap', direction: 'desc' }], per_page: 3 };
    c.send({ type: 'subscribe', subscription_type: 'screen', query: top });
    const subTop = await c.next(ofType('subscribed', { subscription_type: 'screen' }));
    c.send({ type: 'subscribe', subscription_type: 'screen', query: movers });
    const subMovers = await c.next(ofType('subscribed', { subscription_type: 'screen' }));
    expect((subTop.members as Stock[]).map((m) => m.code)).toEqual((await screen(top, alice.access_token)).data.map((s: Stock) => s.code));
    expect(subTop).toMatchObject({ source: 'query', per_page: 5, page: 1, count: 5 });
    const [a, b, d, e] = [stocks[3]!, stocks[7]!, stocks[12]!, stocks[20]!];
    const sent = new Map<string, number>();
    const series: [Stock, number][] = [[a, 12], [b, 9], [d, 15], [a, -4], [e, 10], [b, 1], [d, 3], [a, 14]];
    let volume = 1000;
    for (const [s, pct] of series) {
      const price = priceAt(s, pct);
      sent.set(s.code, price);
      await tick([{ code: s.code, price, volume: (volume += 1000) }]);
    }
    // The last tick's price_update follows its screen_update (the live engine reads the bus first).
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: [a.code] });
    await c.next(ofType('subscribed', { subscription_type: 'stock' }));
    await tick([{ code: a.code, price: sent.get(a.code)!, volume: (volume += 1000) }]);
    await c.next((m) => m.type === 'price_update' && m.code === a.code);

    // Independent: live change % from the ticks sent, snapshot change % for the others; ties by code.
    const liveChange = (s: Stock) => (sent.has(s.code) ? ((sent.get(s.code)! - s.close) / s.close) * 100 : s.change_percent);
    const expectedTop = [...stocks]
      .filter((s) => liveChange(s) !== null)
      .sort((x, y) => liveChange(y)! - liveChange(x)! || (x.code < y.code ? -1 : 1))
      .slice(0, 5)
      .map((s) => s.code);
    const answerTop = (await screen(top, alice.access_token)).data.map((s: Stock) => s.code);
    expect(answerTop).toEqual(expectedTop);
    expect([...replay(c, subTop.screen_id as string)].sort()).toEqual([...expectedTop].sort());
    const answerMovers = (await screen(movers, alice.access_token)).data.map((s: Stock) => s.code);
    expect([...replay(c, subMovers.screen_id as string)].sort()).toEqual([...answerMovers].sort());
    // A fresh subscription lists the members in the screen's order.
    c.send({ type: 'subscribe', subscription_type: 'screen', query: top });
    const again = await c.next(ofType('subscribed', { subscription_type: 'screen' }));
    expect((again.members as Stock[]).map((m) => m.code)).toEqual(expectedTop);
    // At least one stock entered and left the top 5 on the way.
    const updates = c.messages.filter((m) => m.type === 'screen_update' && m.screen_id === subTop.screen_id);
    expect(updates.some((u) => (u.exited as string[]).length > 0)).toBe(true);
    // Every message of the connection carries the next sequence number: no gap, no duplicate.
    const seqs = c.ordered.map((m: Msg) => m.sequence!);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    // The plain POST /screen still answers on the snapshot.
    expect((await screen(top, alice.access_token, false)).meta.snapshot_version).not.toMatch(/\+live$/);
  });

  it('restores a session\'s live screens with the membership diff since the disconnect', async () => {
    const dave = await t.login();
    const c = await open(dave.access_token);
    const sessionId = c.messages.find((m) => m.type === 'connected')!.session_id as string;
    const top = { sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 3 };
    c.send({ type: 'subscribe', subscription_type: 'screen', query: top });
    const sub = await c.next(ofType('subscribed', { subscription_type: 'screen' }));
    const before = (sub.members as Stock[]).map((m) => m.code);
    await c.close();
    // While away: a stock outside the top 3 jumps to the top (+29%, the highest change of the day).
    const outsider = stocks.find((s) => !before.includes(s.code))!;
    await tick([{ code: outsider.code, price: priceAt(outsider, 29), volume: 10_000_000 }]);
    const expected = (await screen(top, dave.access_token)).data.map((s: Stock) => s.code);
    expect(expected[0]).toBe(outsider.code);
    const back = await connect(`${wsUrl(dave.access_token)}&session_id=${sessionId}`);
    clients.push(back);
    await back.next(ofType('reconnected'));
    const again = await back.next(ofType('subscribed', { subscription_type: 'screen' }));
    expect(again).toMatchObject({ screen_id: sub.screen_id, restored: true });
    expect((again.members as Stock[]).map((m) => m.code)).toEqual(expected);
    const diff = await back.next(ofType('screen_update', { screen_id: sub.screen_id }));
    expect((diff.entered as Stock[]).map((m) => m.code)).toEqual(expected.filter((code: string) => !before.includes(code)));
    expect(diff.exited).toEqual(before.filter((code) => !expected.includes(code)));
    const listed = (await (await t.request('/api/v1/screen/live', { token: dave.access_token })).json()) as any;
    expect(listed.data.map((e: any) => e.screen_id)).toEqual([sub.screen_id]);
  });

  it('evaluates on a second daemon from the shared tick stream, and lists and counts live screens across daemons', async () => {
    const b = await startTestDaemon('live-screens-b', {
      ...t.store, redis_prefix: t.prefix, feed: 'ingest', live_screen_limits: { free: { per_connection: 4, per_user: 2 } },
    } as never);
    try {
      const erin = await t.login();
      const onB = await connect(`${b.url.replace('http', 'ws')}/v1/ws?token=${erin.access_token}`);
      clients.push(onB);
      await onB.next(ofType('connected'));
      const top = { sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 4 };
      onB.send({ type: 'subscribe', subscription_type: 'screen', query: top });
      const sub = await onB.next(ofType('subscribed', { subscription_type: 'screen' }));
      const before = (sub.members as Stock[]).map((m) => m.code);
      expect(before).toEqual((await screen(top, erin.access_token)).data.map((s: Stock) => s.code));
      // A tick ingested on daemon A reaches daemon B's live screen.
      const outsider = stocks.find((s) => !before.includes(s.code) && s.code !== stocks[3]!.code)!;
      await tick([{ code: outsider.code, price: priceLimits(outsider.close).upper, volume: 20_000_000 }]);
      const update = await onB.next(ofType('screen_update', { screen_id: sub.screen_id }));
      expect((update.entered as Stock[]).map((m) => m.code)).toEqual([outsider.code]);
      const onBAnswer = ((await (await b.request('/api/v1/screen?prices=live', { method: 'POST', token: erin.access_token, json: top })).json()) as any).data;
      expect([...replay(onB, sub.screen_id as string)].sort()).toEqual(onBAnswer.map((s: Stock) => s.code).sort());
      // Daemon A lists the screen held on daemon B; one more on A fills the per-user limit daemon B enforces (2).
      const listed = (await (await t.request('/api/v1/screen/live', { token: erin.access_token })).json()) as any;
      expect(listed.data).toEqual([expect.objectContaining({ screen_id: sub.screen_id, source: 'query' })]);
      const onA = await open(erin.access_token);
      onA.send({ type: 'subscribe', subscription_type: 'screen', targets: ['template:value'] });
      await onA.next(ofType('subscribed', { subscription_type: 'screen' }));
      onB.send({ type: 'subscribe', subscription_type: 'screen', targets: ['template:growth'] });
      expect((await onB.next(ofType('error'))).details).toMatchObject({ reason: 'live_screen_limit', scope: 'user', limit: 2, current: 2 });
    } finally {
      await b.close();
    }
  });

  it('answers bad input with SUBSCRIPTION_FAILED and keeps the connection usable', async () => {
    const c = await open(alice.access_token);
    c.send({ type: 'subscribe', subscription_type: 'screen', targets: ['template:no-such-template'] });
    expect((await c.next(ofType('error'))).details).toMatchObject({ reason: 'unknown_template' });
    c.send({ type: 'subscribe', subscription_type: 'screen', targets: ['preset:7d0c4d8e-8d1c-4c39-9a52-2f8c3c0e9e11'] });
    expect((await c.next(ofType('error'))).details).toMatchObject({ reason: 'unknown_preset' });
    c.send({ type: 'subscribe', subscription_type: 'screen', query: { expression: 'per < ' } });
    const bad = await c.next(ofType('error'));
    expect(bad).toMatchObject({ code: 'SUBSCRIPTION_FAILED', details: { reason: 'invalid_query' } });
    expect(Object.keys(bad.details as object).some((k) => k.startsWith('query.'))).toBe(true);
    c.send({ type: 'subscribe', subscription_type: 'screen', query: { filters: { nonsense_field: { min: 1 } } } });
    expect((await c.next(ofType('error'))).details).toMatchObject({ reason: 'invalid_query' });
    c.send({ type: 'subscribe', subscription_type: 'screen', targets: ['banana'] });
    expect((await c.next(ofType('error'))).details).toMatchObject({ reason: 'unknown_targets', targets: ['banana'] });
    // Another user's preset is unknown too.
    const bob = await t.login();
    const made = await t.request('/api/v1/screen/presets', { method: 'POST', token: bob.access_token, json: { name: 'bobs', query: { per_page: 3 } } });
    const bobsPreset = ((await made.json()) as any).data.id as string;
    c.send({ type: 'subscribe', subscription_type: 'screen', targets: [`preset:${bobsPreset}`] });
    expect((await c.next(ofType('error'))).details).toMatchObject({ reason: 'unknown_preset' });
    c.send({ type: 'ping' });
    await c.next(ofType('pong'));
    // The owner subscribes to it by name.
    const b = await open(bob.access_token);
    b.send({ type: 'subscribe', subscription_type: 'screen', targets: [`preset:${bobsPreset}`] });
    const sub = await b.next(ofType('subscribed', { subscription_type: 'screen' }));
    expect(sub.source).toBe(`preset:${bobsPreset}`);
    expect((sub.members as Stock[]).map((m) => m.code)).toEqual((await screen({ per_page: 3 }, bob.access_token)).data.map((s: Stock) => s.code));
  });

  it('enforces the per-connection and per-user limits of the tier and lists live screens across connections', async () => {
    const carol = await t.login();
    const c1 = await open(carol.access_token);
    c1.send({ type: 'subscribe', subscription_type: 'screen', targets: ['template:value', 'template:momentum', 'template:dividend', 'template:quality'].slice(0, 4) });
    const errorsOrSubs = await c1.collect((m) => (m.type === 'subscribed' && m.subscription_type === 'screen') || m.type === 'error', 4, 10_000);
    expect(errorsOrSubs.filter((m) => m.type === 'subscribed')).toHaveLength(4);
    c1.send({ type: 'subscribe', subscription_type: 'screen', query: { per_page: 1 } });
    expect((await c1.next(ofType('error'))).details).toMatchObject({ reason: 'live_screen_limit', scope: 'connection', tier: 'free', limit: 4 });
    const c2 = await open(carol.access_token);
    c2.send({ type: 'subscribe', subscription_type: 'screen', query: { per_page: 1 } });
    await c2.next(ofType('subscribed', { subscription_type: 'screen' }));
    c2.send({ type: 'subscribe', subscription_type: 'screen', query: { per_page: 2 } });
    expect((await c2.next(ofType('error'))).details).toMatchObject({ reason: 'live_screen_limit', scope: 'user', limit: 5, current: 5 });
    const listed = (await (await t.request('/api/v1/screen/live', { token: carol.access_token })).json()) as any;
    expect(listed.data).toHaveLength(5);
    expect(listed.data.map((e: any) => e.source).sort()).toEqual(['query', 'template:dividend', 'template:momentum', 'template:quality', 'template:value']);
    // Unsubscribing and closing free the slots.
    const first = errorsOrSubs[0]!;
    c1.send({ type: 'unsubscribe', subscription_type: 'screen', targets: [first.screen_id] });
    expect(await c1.next(ofType('unsubscribed', { subscription_type: 'screen' }))).toMatchObject({ targets: [first.screen_id] });
    await c2.close();
    const after = (await (await t.request('/api/v1/screen/live', { token: carol.access_token })).json()) as any;
    expect(after.data).toHaveLength(3);
    // Another tier, another limit (the tier is read from a fresh token).
    const patch = await t.request(`/api/v1/admin/users/${carol.id}`, { method: 'PATCH', token: admin, json: { tier: 'basic' } });
    expect(patch.status).toBe(200);
    const basic = await t.login(carol.email);
    const c3 = await open(basic.access_token);
    // basic: 5 per user (the default), 3 held on c1 → 2 more.
    c3.send({ type: 'subscribe', subscription_type: 'screen', targets: ['template:value', 'template:growth', 'template:dividend'] });
    const got = await c3.collect((m) => (m.type === 'subscribed' && m.subscription_type === 'screen') || m.type === 'error', 3, 10_000);
    expect(got.map((m) => m.type)).toEqual(['subscribed', 'subscribed', 'error']);
    expect(got[2]!.details).toMatchObject({ reason: 'live_screen_limit', scope: 'user', tier: 'basic', limit: 5 });
  });
});
