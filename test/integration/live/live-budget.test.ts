/**
 * Live screens within a budget, through the wired daemon with real WebSocket clients: many
 * live screens on ranks (re-run whole) are re-run by the scheduler in slices, so a `/health`
 * is answered between two slices of one round, and subscribing or closing a screen re-runs
 * none of them; an anonymous caller's custom live screen is refused (templates only); a screen
 * alert fires from the same re-run as the live screen on its preset (one list for both).
 *
 * The daemon runs one re-run per slice (`live_rerun_slice_ms: 0`) and a list at most every
 * 100 ms, so a round of 40 lists is 40 slices at least 20 ms apart on any machine: what the
 * tests check is the order of events (an answer between two slices), not how long anything took.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { priceLimits, roundToTick } from '../../../daemon/kernel/tick-size.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { connect, ofType, type Msg, type TestClient } from '../ws/client.js';

interface Stock { code: string; close: number; change_percent: number | null }

const LISTS = 40;

describe('live screens within a budget', () => {
  let t: TestDaemon;
  let admin: string;
  let user: { access_token: string; id: string };
  let stocks: Stock[];
  let volume = 1000;
  const clients: TestClient[] = [];
  const open = async (token?: string) => {
    const c = await connect(`${t.url.replace('http', 'ws')}/v1/ws${token ? `?token=${token}` : ''}`);
    clients.push(c);
    await c.next(ofType('connected'));
    return c;
  };
  const api = async (path: string, init: { method?: string; json?: unknown; token?: string } = {}) => {
    const res = await t.request(`/api/v1${path}`, { token: user.access_token, ...init });
    return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as any) };
  };
  const tick = async (s: Stock, pct: number) => {
    const { lower, upper } = priceLimits(s.close);
    const price = Math.min(upper, Math.max(lower, roundToTick(s.close * (1 + pct / 100))));
    const res = await t.request('/api/v1/admin/ticks', { method: 'POST', token: admin, json: { ticks: [{ code: s.code, price, volume: (volume += 1000) }] } });
    expect(res.status).toBe(202);
  };
  const engine = () => t.daemon.context().realtime.liveScreens.engine;
  /** Subscribe `query` on `c` and wait for its `subscribed`. */
  const subscribe = async (c: TestClient, extra: Record<string, unknown>) => {
    const from = c.messages.length;
    c.send({ type: 'subscribe', subscription_type: 'screen', ...extra });
    return c.next((m: Msg) => (m.type === 'subscribed' || m.type === 'error') && c.messages.indexOf(m) >= from);
  };

  beforeAll(async () => {
    t = await startTestDaemon('live-budget', {
      workers: 1, feed: 'ingest', admin_email: 'ops@example.com', admin_password: 'ops-password-1',
      live_screen_limits: { free: { per_connection: 60, per_user: 60 } }, live_rerun_slice_ms: 0, live_rerun_every_ms: 100,
    } as never);
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await login.json()) as any).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 5, stocks: 30, days: 40 } });
    await waitForJob(t.daemon, ((await job.json()) as any).data.id);
    user = await t.login();
    const all = await api('/screen', { method: 'POST', json: { fields: ['change_percent'], per_page: 500, sort: [{ field: 'code', direction: 'asc' }] } });
    stocks = all.body.data.filter((s: Stock) => s.close > 0);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  it(`re-runs ${LISTS} screens on ranks in slices: /health answers between two slices; subscribing and closing a screen re-run none of them`, async () => {
    // Given 40 live screens on ranks, each its own list
    const c = await open(user.access_token);
    for (let k = 0; k < LISTS; k++) expect(await subscribe(c, { query: { expression: `pct_rank(change_percent) >= ${k + 10}`, per_page: 5 } })).toMatchObject({ type: 'subscribed' });
    expect(engine().stats().lists).toBeGreaterThanOrEqual(LISTS);
    // When one tick makes every one of them stale
    const before = engine().reruns();
    await tick(stocks[0]!, 7);
    await vi.waitFor(() => expect(engine().reruns().pending).toBeGreaterThan(1), { timeout: 10_000, interval: 2 });
    // Then subscribing one more screen and closing one re-run none of them (the round goes on after their answers)
    expect(await subscribe(c, { targets: ['template:momentum'] })).toMatchObject({ type: 'subscribed' });
    expect(engine().reruns().pending).toBeGreaterThan(0);
    const some = c.messages.find((m) => m.type === 'subscribed' && m.source === 'query')!;
    c.send({ type: 'unsubscribe', subscription_type: 'screen', targets: [some.screen_id] });
    await c.next(ofType('unsubscribed'));
    expect(engine().reruns().pending).toBeGreaterThan(0);
    // And /health is answered while the round is under way: after some re-runs of it and before its last
    let between = 0;
    for (let n = 0; n < 2000 && engine().reruns().pending > 0; n++) {
      const res = await t.request('/health');
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      const now = engine().reruns();
      if (now.reruns > before.reruns && now.pending > 0) between++;
    }
    expect(engine().reruns().pending).toBe(0);
    expect(between).toBeGreaterThan(0);
    // Each re-run was a slice of its own, never all of them in one go
    const after = engine().reruns();
    expect(after.slices - before.slices).toBeGreaterThanOrEqual(LISTS - 1);
    await c.close();
  });

  it('refuses an anonymous custom live screen with a clear error and opens a template for it', async () => {
    const c = await open();
    const refused = await subscribe(c, { query: { expression: 'pct_rank(change_percent) >= 90' } });
    expect(refused).toMatchObject({ type: 'error', code: 'SUBSCRIPTION_FAILED', details: { reason: 'sign_in_required' } });
    expect(refused.message).toMatch(/sign in/i);
    expect(refused.message).toContain('template:');
    expect(await subscribe(c, { targets: ['template:momentum'] })).toMatchObject({ type: 'subscribed', source: 'template:momentum' });
    await c.close();
  });

  it('fires a screen alert from the re-run that updates the live screen on its preset: one list for both', async () => {
    // Given a preset on ranks (the top 30 % by change), a recurring screen_enter alert on it counted at once, and its live screen
    const preset = await api('/screen/presets', { method: 'POST', json: { name: 'Top movers', query: { expression: 'pct_rank(change_percent) >= 70', per_page: 50 } } });
    expect(preset.status).toBe(201);
    const lists = engine().stats().lists;
    const alert = await api('/alerts', { method: 'POST', json: { alert_type: 'screen_enter', preset_id: preset.body.data.id, recurring: true, dwell_s: 0 } });
    expect(alert.status).toBe(201);
    expect(alert.body.data).toMatchObject({ membership: 'conditions', dwell_s: 0 });
    await vi.waitFor(() => expect(t.daemon.context().realtime.screenAlertEvaluator.size()).toBe(1), { timeout: 10_000, interval: 20 });
    const c = await open(user.access_token);
    const live = await subscribe(c, { targets: [`preset:${preset.body.data.id}`] });
    expect(live).toMatchObject({ type: 'subscribed' });
    expect(engine().stats().lists).toBe(lists + 1);
    // When the weakest stock jumps to the top
    const members = new Set((live.members as { code: string }[]).map((m) => m.code));
    const outsider = [...stocks].sort((x, y) => (x.change_percent ?? 0) - (y.change_percent ?? 0)).find((s) => !members.has(s.code))!;
    await tick(outsider, 29);
    // Then the live screen's update and the alert both name it
    const update = await c.next((m) => m.type === 'screen_update' && (m.entered as { code: string }[]).some((r) => r.code === outsider.code), 10_000);
    expect(update.screen_id).toBe(live.screen_id);
    const fired = await c.next((m) => m.type === 'alert' && m.code === outsider.code, 10_000);
    expect(fired).toMatchObject({ alert_type: 'screen_enter', preset_id: preset.body.data.id });
    await t.daemon.context().realtime.screenAlertEvaluator.drain();
    expect(((await api(`/alerts/${alert.body.data.id}/events`)).body.data as { code: string }[]).map((e) => e.code)).toEqual([outsider.code]);
    await c.close();
  });
});
