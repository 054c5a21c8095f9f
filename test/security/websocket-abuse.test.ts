/**
 * WebSocket abuse: malformed frames, floods, oversize frames, another user's session id,
 * connection caps per address and per user (close 4029, counted in Redis with expiring
 * leases), and anonymous sessions that never subscribed (never written to Redis).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../daemon/infra/logger.js';
import { createConnectionCaps } from '../../daemon/ws/connection-caps.js';
import type { Connection } from '../../daemon/ws/connection.js';
import { CLOSE_CODES } from '../../daemon/ws/protocol.js';
import { connect, type Msg, type TestClient } from '../integration/ws/client.js';
import { CODES, startSecurityDaemon, type SecurityDaemon } from './harness.js';

const ofType = (type: string) => (m: Msg) => m.type === type;

async function open(s: SecurityDaemon, query = ''): Promise<TestClient & { id: string; sessionId: string }> {
  const c = await connect(`${s.t.url.replace('http', 'ws')}/v1/ws${query}`);
  const hello = await c.next((m) => m.type === 'connected' || m.type === 'reconnected');
  return Object.assign(c, { id: String(hello.connection_id), sessionId: String(hello.session_id) });
}

/** Close a client and wait until the daemon has finished with it (session saved or not). */
async function closeAndSettle(s: SecurityDaemon, c: { id: string; close(): Promise<void> }): Promise<void> {
  const gateway = s.t.daemon.context().realtime.gateway;
  const done = new Promise<void>((resolve) => {
    const onClose = (conn: Connection) => {
      if (conn.id !== c.id) return;
      gateway.events.off('close', onClose);
      void conn.finished.then(resolve);
    };
    gateway.events.on('close', onClose);
  });
  await c.close();
  await done;
}

async function stillServes(c: TestClient): Promise<void> {
  c.send({ type: 'ping' });
  await c.next(ofType('pong'));
}

describe('WebSocket abuse', () => {
  let s: SecurityDaemon;
  let alice: { access_token: string };
  let bob: { access_token: string };
  const clients: TestClient[] = [];
  beforeAll(async () => {
    s = await startSecurityDaemon('sec-ws', { ws_rate_limit: 20 });
    alice = await s.t.login();
    bob = await s.t.login();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await s?.t.close();
  });

  it('answers malformed frames with INVALID_MESSAGE and keeps the connection', async () => {
    const c = await open(s);
    clients.push(c);
    const frames: (string | Buffer)[] = ['not json', '[]', 'null', '42', '{"type":"nope"}', '{"type":"subscribe"}', '{"type":"subscribe","subscription_type":"stock","targets":"005930"}',
      JSON.stringify({ type: 'subscribe', subscription_type: 'stock', targets: ['x'.repeat(1000)] }), '{"__proto__":{"type":"ping"}}', Buffer.from([0xff, 0xfe, 0x00, 0x01]),
      JSON.stringify(JSON.parse('[' .repeat(500) + ']'.repeat(500)))];
    for (const frame of frames) {
      c.ws.send(frame);
      const answer = await c.next((m) => m.type === 'error' || m.type === 'subscribed');
      expect(answer.type, String(frame).slice(0, 60)).toBe('error');
    }
    await stillServes(c);
  });

  it('answers a flood with RATE_LIMIT_EXCEEDED, then closes a client that keeps flooding with 1008; the daemon serves on', async () => {
    const c = await open(s);
    clients.push(c);
    for (let i = 0; i < 400; i++) c.send({ type: 'ping' });
    expect((await c.next((m) => m.type === 'error')).code).toBe('RATE_LIMIT_EXCEEDED');
    expect((await c.closed).code).toBe(CLOSE_CODES.POLICY_VIOLATION);
    const fresh = await open(s);
    clients.push(fresh);
    await stillServes(fresh);
  });

  it('closes a client that sends a frame over 64 KB with 1009', async () => {
    const c = await open(s);
    clients.push(c);
    c.ws.send(JSON.stringify({ type: 'ping', pad: 'x'.repeat(70 * 1024) }));
    expect((await c.closed).code).toBe(CLOSE_CODES.MESSAGE_TOO_BIG);
  });

  it("refuses to restore another user's session, for another user and for an anonymous caller", async () => {
    const owner = await open(s, `?token=${alice.access_token}`);
    owner.send({ type: 'subscribe', subscription_type: 'stock', targets: [CODES[0]] });
    await owner.next(ofType('subscribed'));
    await closeAndSettle(s, owner);
    for (const query of [`?token=${bob.access_token}&session_id=${owner.sessionId}`, `?session_id=${owner.sessionId}`]) {
      const thief = await open(s, query);
      clients.push(thief);
      const failure = await thief.next(ofType('error'));
      expect(failure).toMatchObject({ code: 'SESSION_RESTORATION_FAILED' });
      expect(thief.sessionId).not.toBe(owner.sessionId);
      expect(JSON.stringify(thief.messages)).not.toContain('"subscriptions":{"stock":["005930"]');
    }
    // The owner still can
    const back = await open(s, `?token=${alice.access_token}&session_id=${owner.sessionId}`);
    clients.push(back);
    expect(back.messages[0]).toMatchObject({ type: 'reconnected' });
  });

  it('never writes an anonymous session that did not subscribe; writes one that did', async () => {
    const saved = async () => ((await (await s.t.request('/v1/ws/stats', { token: alice.access_token })).json()) as any).saved_sessions as number;
    const before = await saved();
    await closeAndSettle(s, await open(s));
    expect(await saved()).toBe(before);
    const subscriber = await open(s);
    subscriber.send({ type: 'subscribe', subscription_type: 'stock', targets: [CODES[0]] });
    await subscriber.next(ofType('subscribed'));
    await closeAndSettle(s, subscriber);
    expect(await saved()).toBe(before + 1);
  });
});

describe('WebSocket connection caps', () => {
  let s: SecurityDaemon;
  let user: { access_token: string };
  beforeAll(async () => {
    s = await startSecurityDaemon('sec-ws-caps', { ws_max_connections_per_address: 3, ws_max_connections_per_user: 2 });
    user = await s.t.login();
  });
  afterAll(() => s?.t.close());

  it('closes the connection over the per-address cap with 4029, and admits again once one closed', async () => {
    const admitted = [await open(s), await open(s), await open(s)];
    const over = await connect(`${s.t.url.replace('http', 'ws')}/v1/ws`);
    expect(await over.closed).toEqual({ code: CLOSE_CODES.TOO_MANY_CONNECTIONS, reason: 'too many connections from this address' });
    await closeAndSettle(s, admitted.pop()!);
    const again = await open(s);
    await stillServes(again);
    await Promise.all([...admitted, again].map((c) => closeAndSettle(s, c)));
  });

  it("caps a user's connections separately from the address's anonymous ones", async () => {
    const mine = [await open(s, `?token=${user.access_token}`), await open(s, `?token=${user.access_token}`)];
    const over = await connect(`${s.t.url.replace('http', 'ws')}/v1/ws?token=${user.access_token}`);
    expect(await over.closed).toEqual({ code: CLOSE_CODES.TOO_MANY_CONNECTIONS, reason: 'too many connections for this user' });
    const anonymous = await open(s);
    await stillServes(anonymous);
    await Promise.all([...mine, anonymous].map((c) => closeAndSettle(s, c)));
  });

  it('counts in Redis with leases that lapse when a daemon stops renewing them (a crash)', async () => {
    const ctx = s.t.daemon.context();
    const caps = createConnectionCaps({ redis: ctx.redis.commands, key: ctx.redis.factory.key, gatewayId: 'crashed-daemon', logger: createLogger('silent') }, { perAddress: 1, perUser: 1, leaseMs: 30_000 });
    // Given a daemon that took the only slot of an address and then died (never released it)
    const slot = await caps.acquire({ connectionId: 'c1', userId: null, address: '203.0.113.9' });
    expect(slot).toBeTruthy();
    // Then a second daemon sees the address as full
    expect(await createConnectionCaps({ redis: ctx.redis.commands, key: ctx.redis.factory.key, gatewayId: 'other', logger: createLogger('silent') }, { perAddress: 1, perUser: 1, leaseMs: 30_000 })
      .acquire({ connectionId: 'c2', userId: null, address: '203.0.113.9' })).toBeNull();
    // And the slot, and the key, expire by themselves within the lease
    const replies = (await ctx.redis.commands.multi().zscore(slot!.key, slot!.member).pttl(slot!.key).time().exec())!.map(([, v]) => v);
    const [score, ttl, time] = replies as [string, number, [string, string]];
    const nowMs = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
    expect(Number(score) - nowMs).toBeGreaterThan(0);
    expect(Number(score) - nowMs).toBeLessThanOrEqual(30_000);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
    await caps.release(slot!);
  });
});

describe('WebSocket connection caps behind a trusted proxy', () => {
  it('keys anonymous callers by the address the proxy reports, as the HTTP rate limits do', async () => {
    // Given a daemon behind one trusted proxy hop that allows one anonymous connection per address
    const s = await startSecurityDaemon('sec-ws-proxy', { ws_max_connections_per_address: 1, trust_proxy: 1 });
    const url = `${s.t.url.replace('http', 'ws')}/v1/ws`;
    const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
    try {
      // When two clients behind the proxy connect, then both are admitted; a second from one of them is not
      const a = await connect(url, from('198.51.100.1'));
      await a.next(ofType('connected'));
      const b = await connect(url, from('198.51.100.2'));
      await b.next(ofType('connected'));
      const again = await connect(url, from('198.51.100.1'));
      expect((await again.closed).code).toBe(CLOSE_CODES.TOO_MANY_CONNECTIONS);
      await Promise.all([a.close(), b.close()]);
    } finally {
      await s.t.close();
    }
  });
});
