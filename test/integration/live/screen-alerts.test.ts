/**
 * Alerts on screens through two real daemons sharing Redis and the database:
 * POST /alerts on a preset, ticks through POST /admin/ticks that push a stock in and out of
 * the preset's top-N, `alert` messages on the owner's sockets (one on each daemon) and the
 * firing history — each firing once although both daemons evaluate every tick; session
 * replay; bad bodies and another user's preset; deleting the preset.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { priceLimits, roundToTick } from '../../../daemon/kernel/tick-size.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { connect, ofType, type Msg, type TestClient } from '../ws/client.js';

interface Stock { code: string; close: number; change_percent: number | null }

const TOP3 = { sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 3, fields: ['change_percent'] };

describe('alerts on screens, two daemons', () => {
  let a: TestDaemon;
  let b: TestDaemon;
  let admin: string;
  let alice: { access_token: string; id: string };
  let stocks: Stock[];
  let presetId: string;
  let volume = 1000;
  const clients: TestClient[] = [];
  const open = async (t: TestDaemon, token: string, query = '') => {
    const c = await connect(`${t.url.replace('http', 'ws')}/v1/ws?token=${token}${query}`);
    clients.push(c);
    await c.next(ofType(query ? 'reconnected' : 'connected'));
    return c;
  };
  const api = async (t: TestDaemon, path: string, init: { method?: string; json?: unknown; token?: string } = {}) => {
    const res = await t.request(`/api/v1${path}`, { token: alice.access_token, ...init });
    return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as any) };
  };
  const priceAt = (s: Stock, pct: number) => {
    const { lower, upper } = priceLimits(s.close);
    return Math.min(upper, Math.max(lower, roundToTick(s.close * (1 + pct / 100))));
  };
  const tick = async (s: Stock, pct: number) => {
    const res = await a.request('/api/v1/admin/ticks', { method: 'POST', token: admin, json: { ticks: [{ code: s.code, price: priceAt(s, pct), volume: (volume += 1000) }] } });
    expect(res.status).toBe(202);
  };
  const members = async () => (await api(a, '/screen?prices=live', { method: 'POST', json: TOP3 })).body.data.map((s: Stock) => s.code) as string[];
  /** Both daemons watch `n` screen alerts (B learns of A's writes over pub/sub). */
  const watching = (n: number) =>
    vi.waitFor(() => expect([a, b].map((t) => t.daemon.context().realtime.screenAlertEvaluator.size())).toEqual([n, n]), { timeout: 10_000, interval: 20 });
  const history = async (id: string) => (await api(a, `/alerts/${id}/events`)).body.data as { code: string; preset_id: string; alert_type: string }[];

  beforeAll(async () => {
    a = await startTestDaemon('screen-alerts', { workers: 1, feed: 'ingest', admin_email: 'ops@example.com', admin_password: 'ops-password-1' } as never);
    b = await startTestDaemon('screen-alerts-b', { workers: 0, feed: 'ingest', redis_prefix: a.prefix, ...a.store } as never);
    const login = await a.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await login.json()) as any).access_token;
    const job = await a.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 11, stocks: 30, days: 40 } });
    const result: any = await waitForJob(a.daemon, ((await job.json()) as any).data.id);
    await vi.waitFor(() => expect(b.daemon.context().screening.snapshot.current().version).toBe(result.indicators.version), { timeout: 10_000, interval: 20 });
    alice = await a.login();
    const all = await api(a, '/screen', { method: 'POST', json: { fields: ['change_percent'], per_page: 500, sort: [{ field: 'code', direction: 'asc' }] } });
    stocks = all.body.data.filter((s: Stock) => s.close > 0);
    const preset = await api(a, '/screen/presets', { method: 'POST', json: { name: 'Top 3 gainers', query: TOP3 } });
    expect(preset.status).toBe(201);
    presetId = preset.body.data.id;
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await b?.daemon.close();
    await a?.close();
  });

  it('fires once per entry and exit to the owner\'s sockets on both daemons and into the history; one-shot vs recurring', async () => {
    const onA = await open(a, alice.access_token);
    const onB = await open(b, alice.access_token);
    const create = async (json: unknown) => {
      // Counted at once (no dwell): each tick's entry and exit fires.
      const res = await api(a, '/alerts', { method: 'POST', json: { preset_id: presetId, dwell_s: 0, ...(json as object) } });
      expect(res.status).toBe(201);
      return res.body.data as { id: string; preset_id: string; code: null; threshold: null };
    };
    const once = await create({ alert_type: 'screen_enter' });
    const enter = await create({ alert_type: 'screen_enter', recurring: true });
    const exit = await create({ alert_type: 'screen_exit', recurring: true });
    expect(once).toMatchObject({ preset_id: presetId, code: null, threshold: null, active: true });
    await watching(3);
    const before = await members();
    const third = before[2]!;
    const outsider = stocks.find((s) => !before.includes(s.code))!;
    // In (the third member leaves), out (it comes back), in, out: 3, 2, 2 and 2 firings. Each tick's
    // firings are recorded and pushed before the next tick (a daemon reading two ticks from the stream
    // in one millisecond would record their firings with one time, in either order).
    const firingsAfter = [3, 5, 7, 9];
    for (const [i, pct] of [29, -5, 29, -5].entries()) {
      await tick(outsider, pct);
      await onA.collect(ofType('alert'), firingsAfter[i]!);
    }
    // 9 firings: once 1, enter 4, exit 4; each reaches both sockets once.
    const got = await onA.collect(ofType('alert'), 9);
    await onB.collect(ofType('alert'), 9);
    for (const t of [a, b]) await t.daemon.context().realtime.screenAlertEvaluator.drain();
    const codes = (id: string) => history(id).then((h) => h.map((e) => e.code).reverse());
    expect(await codes(once.id)).toEqual([outsider.code]);
    expect(await codes(enter.id)).toEqual([outsider.code, third, outsider.code, third]);
    expect(await codes(exit.id)).toEqual([third, outsider.code, third, outsider.code]);
    expect((await history(enter.id))[0]).toMatchObject({ preset_id: presetId, alert_type: 'screen_enter' });
    expect((await api(a, `/alerts/${once.id}`)).body.data).toMatchObject({ active: false, fire_count: 1 });
    expect((await api(a, `/alerts/${enter.id}`)).body.data).toMatchObject({ active: true, fire_count: 4 });
    // The socket messages are exactly the recorded firings (no duplicate from the second daemon).
    for (const c of [onA, onB]) expect(c.messages.filter((m) => m.type === 'alert')).toHaveLength(9);
    const first = got.find((m) => m.alert_type === 'screen_enter')!;
    expect(first).toMatchObject({ type: 'alert', code: outsider.code, preset_id: presetId, threshold: null });
    expect(first.message).toContain('entered the screen "Top 3 gainers"');
    expect(got.filter((m: Msg) => m.alert_type === 'screen_exit')).toHaveLength(4);
    // Recurring alerts stay; the one-shot alert left both daemons.
    await watching(2);
  });

  it('replays a firing to a session restored after a disconnect', async () => {
    const c = await open(a, alice.access_token);
    const sessionId = c.messages.find((m) => m.type === 'connected')!.session_id as string;
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: [stocks[0]!.code] });
    await c.next(ofType('subscribed'));
    await c.close();
    const before = await members();
    const outsider = stocks.find((s) => !before.includes(s.code))!;
    await tick(outsider, 29.5);
    for (const t of [a, b]) await t.daemon.context().realtime.screenAlertEvaluator.drain();
    const back = await open(b, alice.access_token, `&session_id=${sessionId}`);
    const replayed = await back.next((m) => m.type === 'alert' && m.code === outsider.code && m.alert_type === 'screen_enter');
    expect(replayed).toMatchObject({ preset_id: presetId });
  });

  it('rejects bad bodies and another user\'s preset with field details', async () => {
    const bob = await a.login();
    const bad = async (json: unknown, token = alice.access_token) => {
      const res = await api(a, '/alerts', { method: 'POST', json, token });
      expect(res.status).toBe(400);
      return res.body.error.details as Record<string, string>;
    };
    expect(await bad({ alert_type: 'screen_enter', preset_id: presetId }, bob.access_token)).toEqual({ preset_id: 'no preset of yours has this id' });
    expect(await bad({ alert_type: 'screen_enter' })).toHaveProperty('preset_id');
    expect(await bad({ alert_type: 'screen_exit', preset_id: presetId, code: '005930', threshold: 3 })).toMatchObject({ code: expect.any(String), threshold: expect.any(String) });
    expect(await bad({ alert_type: 'price_above', code: stocks[0]!.code, threshold: 1000, preset_id: presetId })).toHaveProperty('preset_id');
    expect(await bad({ alert_type: 'screen_enter', preset_id: 'not-a-uuid' })).toHaveProperty('preset_id');
    // Membership by conditions needs a preset with conditions (this one only sorts); dwell is bounded; neither for price alerts.
    expect(await bad({ alert_type: 'screen_enter', preset_id: presetId, membership: 'conditions' })).toHaveProperty('membership');
    expect(await bad({ alert_type: 'screen_enter', preset_id: presetId, membership: 'top' })).toHaveProperty('membership');
    expect(await bad({ alert_type: 'screen_enter', preset_id: presetId, dwell_s: -1 })).toHaveProperty('dwell_s');
    expect(await bad({ alert_type: 'screen_enter', preset_id: presetId, dwell_s: 86_400 })).toHaveProperty('dwell_s');
    expect(await bad({ alert_type: 'price_above', code: stocks[0]!.code, threshold: 1000, dwell_s: 10 })).toHaveProperty('dwell_s');
    // A threshold cannot be patched onto a screen alert.
    const made = await api(a, '/alerts', { method: 'POST', json: { alert_type: 'screen_exit', preset_id: presetId } });
    const patched = await api(a, `/alerts/${made.body.data.id}`, { method: 'PUT', json: { threshold: 5 } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.details).toHaveProperty('threshold');
    await api(a, `/alerts/${made.body.data.id}`, { method: 'DELETE' });
  });

  it('a stock hovering at the edge of the top 3 does not fire within the dwell; the one that stays fires once', async () => {
    // Given only a recurring screen_enter alert on the top 3 with a 5 s dwell (the page: the preset only sorts)
    for (const old of (await api(a, '/alerts')).body.data as { id: string }[]) await api(a, `/alerts/${old.id}`, { method: 'DELETE' });
    const c = await open(b, alice.access_token);
    const made = await api(a, '/alerts', { method: 'POST', json: { alert_type: 'screen_enter', preset_id: presetId, recurring: true, dwell_s: 5 } });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ membership: 'page', dwell_s: 5 });
    const id = made.body.data.id as string;
    await watching(1);
    const before = await members();
    const [hover, stay] = stocks.filter((s) => !before.includes(s.code));
    // When one stock jumps into the top 3 and falls out again, three times in a row, ending outside
    for (const pct of [28, -5, 28, -5, 28, -5]) await tick(hover!, pct);
    // And another enters and stays
    await tick(stay!, 28.5);
    // Then the alert fires for the one that stayed, after the dwell, and never for the one that hovered
    const fired = await c.next((m) => m.type === 'alert', 20_000);
    expect(fired).toMatchObject({ code: stay!.code, alert_type: 'screen_enter' });
    for (const t of [a, b]) await t.daemon.context().realtime.screenAlertEvaluator.drain();
    expect((await history(id)).map((e) => e.code)).toEqual([stay!.code]);
    expect(c.messages.filter((m) => m.type === 'alert').map((m) => m.code)).toEqual([stay!.code]);
    await api(a, `/alerts/${id}`, { method: 'DELETE' });
  });

  it('deleting the preset deletes its screen alerts on both daemons; the history stays', async () => {
    const made = await api(a, '/alerts', { method: 'POST', json: { alert_type: 'screen_exit', preset_id: presetId, recurring: true } });
    const listed = await api(a, '/alerts?type=screen_exit');
    expect(listed.body.data.map((x: { id: string; preset_id: string }) => [x.id, x.preset_id])).toContainEqual([made.body.data.id, presetId]);
    const fired = (await api(a, '/alerts/events')).body.meta.total as number;
    expect((await api(b, `/screen/presets/${presetId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(a, `/alerts/${made.body.data.id}`)).status).toBe(404);
    await watching(0);
    expect((await api(a, '/alerts/events')).body.meta.total).toBe(fired);
  });
});
