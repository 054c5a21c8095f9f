/**
 * The real-time path as wired in createDaemon: ticks ingested over REST reach
 * WebSocket subscribers, update the live price, fire alerts to the owner only,
 * and value the portfolio.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tickSize } from '../../../daemon/kernel/tick-size.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { connect, type TestClient } from '../ws/client.js';

describe('real-time through the daemon', () => {
  let t: TestDaemon;
  let admin: string;
  let alice: { access_token: string };
  let bob: { access_token: string };
  let code: string;
  let close: number;
  let step: number;
  const clients: TestClient[] = [];
  const wsUrl = (token?: string) => `${t.url.replace('http', 'ws')}/v1/ws${token ? `?token=${token}` : ''}`;
  const tick = (price: number, volume: number) =>
    t.request('/api/v1/admin/ticks', { method: 'POST', token: admin, json: { ticks: [{ code, price, volume }] } });

  beforeAll(async () => {
    t = await startTestDaemon('realtime', { workers: 1, feed: 'ingest', admin_email: 'ops@example.com', admin_password: 'ops-password-1' });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await login.json()) as any).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 5, stocks: 20, days: 40 } });
    await waitForJob(t.daemon, ((await job.json()) as any).data.id);
    alice = await t.login();
    bob = await t.login();
    // A stock whose prices up to 40 ticks above its close stay in one tick band, so every
    // tick below lands on the KRX grid.
    const list = (await (await t.request('/api/v1/stocks?limit=500', { token: alice.access_token })).json()) as any;
    const pick = list.data.find((s: any) => tickSize(s.close) === tickSize(s.close + 40 * tickSize(s.close)));
    code = pick.code;
    close = pick.close;
    step = tickSize(close);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  it('delivers an ingested tick to a subscriber and serves it as the live price', async () => {
    const c = await connect(wsUrl(alice.access_token));
    clients.push(c);
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: [code] });
    await c.next((m) => m.type === 'subscribed');
    const price = close + step * 5;
    expect((await tick(price, 1000)).status).toBe(202);
    const update = await c.next((m) => m.type === 'price_update');
    expect(update).toMatchObject({ code, price, volume: 1000 });
    expect(update.change).toBe(price - close);
    const live = (await (await t.request(`/api/v1/stocks/${code}/price`, { token: alice.access_token })).json()) as any;
    expect(live.data).toMatchObject({ price, source: 'live' });
    const stats = (await (await t.request('/v1/ws/stats', { token: alice.access_token })).json()) as any;
    expect(stats.active_connections).toBe(1);
    expect(stats.subscriptions_by_type.stock).toBe(1);
  });

  it('fires a price_above alert once, to its owner only, and records it', async () => {
    const mine = await connect(wsUrl(alice.access_token));
    const theirs = await connect(wsUrl(bob.access_token));
    clients.push(mine, theirs);
    const threshold = close + step * 20;
    const created = await t.request('/api/v1/alerts', { method: 'POST', token: alice.access_token, json: { code, alert_type: 'price_above', threshold } });
    expect(created.status).toBe(201);
    await tick(threshold + step, 2000);
    const alert = await mine.next((m) => m.type === 'alert');
    expect(alert).toMatchObject({ code, alert_type: 'price_above', threshold, current_price: threshold + step });
    await tick(threshold + step * 2, 3000); // still above: a one-shot alert does not fire again
    const events = (await (await t.request('/api/v1/alerts/events', { token: alice.access_token })).json()) as any;
    expect(events.data).toHaveLength(1);
    expect(theirs.messages.some((m) => m.type === 'alert')).toBe(false);
    const bobEvents = (await (await t.request('/api/v1/alerts/events', { token: bob.access_token })).json()) as any;
    expect(bobEvents.data).toEqual([]);
  });

  it('values a holding at the live price', async () => {
    await t.request('/api/v1/portfolio/holdings', { method: 'POST', token: bob.access_token, json: { code, quantity: 10, average_price: close } });
    const price = close + step * 30;
    await tick(price, 4000);
    const p = (await (await t.request('/api/v1/portfolio', { token: bob.access_token })).json()) as any;
    const holding = p.data.holdings.find((h: any) => h.code === code);
    expect(holding.current_price).toBe(price);
    expect(holding.market_value).toBe(price * 10);
    expect(holding.unrealized_pnl).toBe((price - close) * 10);
  });
});
