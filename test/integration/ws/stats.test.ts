import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WsStats } from '../../../daemon/ws/stats-report.js';
import { connect, ofType, type TestClient } from './client.js';
import { closeAndSave, newUserId, priceEvent, startWsStack, type WsStack } from './harness.js';

async function open(s: WsStack, query = ''): Promise<TestClient> {
  const c = await connect(`${s.wsUrl}/v1/ws${query}`);
  await c.next(ofType('connected'));
  return c;
}

async function subscribe(c: TestClient, subscription_type: string, targets: string[]): Promise<void> {
  c.send({ type: 'subscribe', subscription_type, targets });
  await c.next(ofType('subscribed'));
}

describe('GET /v1/ws/stats and /v1/ws/connections', () => {
  let s: WsStack;
  const user = newUserId();
  let clients: TestClient[];
  beforeAll(async () => {
    s = await startWsStack('stats');
    // Given 3 open connections with 2 + 2 + 0 subscriptions, and 1 closed (saved) session
    // (an anonymous session is saved only once it subscribed)
    const gone = await open(s);
    await subscribe(gone, 'stock', ['005930']);
    await closeAndSave(s, gone, gone.messages[0]!.session_id as string);
    const a = await open(s, `?token=${await s.token(user)}`);
    await subscribe(a, 'stock', ['005930', '000660']);
    const b = await open(s);
    await subscribe(b, 'market', ['KOSDAQ']);
    await subscribe(b, 'sector', ['Internet']);
    const idle = await open(s);
    clients = [gone, a, b, idle];
    await s.bus.publish(priceEvent('005930', 1010));
    await a.next(ofType('price_update'));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await s.close();
  });

  it('reports the spec fields at the top level and inside data, matching the connections', async () => {
    const reader = { authorization: `Bearer ${await s.token(newUserId())}` };
    for (const prefix of ['/v1', '/api/v1']) {
      // Any signed-in user may read them; anonymous callers may not (every /v1 endpoint needs a token)
      expect((await fetch(`${s.httpUrl}${prefix}/ws/stats`)).status).toBe(401);
      const res = await fetch(`${s.httpUrl}${prefix}/ws/stats`, { headers: reader });
      expect(res.status).toBe(200);
      const body = (await res.json()) as WsStats & { status: string; data: WsStats };
      const delivered = clients.reduce((n, c) => n + c.messages.length, 0);
      const expected = {
        active_connections: 3,
        total_subscriptions: 4,
        subscriptions_by_type: { stock: 2, market: 1, sector: 1 },
        messages_sent: delivered,
        saved_sessions: 1,
        batching_enabled: true,
        batch_interval_ms: 30,
        queued_messages: 0,
        rate_limiting_enabled: true,
        rate_limit: 100,
      };
      expect(body).toMatchObject(expected);
      expect(body.status).toBe('success');
      expect(body.data).toMatchObject(expected);
      // SRE figures
      expect(body.data.memory.rss).toBeGreaterThan(0);
      expect(body.data.memory.heap_used).toBeGreaterThan(0);
      expect(body.data.messages_per_second).toBeGreaterThan(0);
      expect(body.data.send_latency_ms.samples).toBeGreaterThan(0);
      expect(body.data.send_latency_ms.p99).toBeGreaterThanOrEqual(body.data.send_latency_ms.p50!);
      // What each connection holds (send buffer + saved session state: a few hundred bytes here), not process RSS / connections
      expect(body.data.bytes_per_connection).toBeGreaterThan(100);
      expect(body.data.bytes_per_connection).toBeLessThan(4096);
    }
  });

  it('lists connections to admins only', async () => {
    const anonymous = await fetch(`${s.httpUrl}/v1/ws/connections`);
    expect(anonymous.status).toBe(401);
    const asUser = await fetch(`${s.httpUrl}/v1/ws/connections`, { headers: { authorization: `Bearer ${await s.token(newUserId())}` } });
    expect(asUser.status).toBe(403);

    const res = await fetch(`${s.httpUrl}/v1/ws/connections`, { headers: { authorization: `Bearer ${await s.token(newUserId(), 'admin')}` } });
    expect(res.status).toBe(200);
    const rows = ((await res.json()) as { data: Record<string, unknown>[] }).data;
    expect(rows).toHaveLength(3);
    const mine = rows.find((r) => r.user_id === user)!;
    const a = clients[1]!;
    expect(mine).toMatchObject({
      connection_id: a.messages[0]!.connection_id,
      subscriptions: { stock: ['005930', '000660'], market: [], sector: [] },
      message_count: a.messages.length,
    });
    for (const key of ['connected_at', 'last_activity'] as const) expect(new Date(mine[key] as string).toISOString()).toBe(mine[key]);
    expect(rows.filter((r) => r.user_id === null)).toHaveLength(2);
  });
});
