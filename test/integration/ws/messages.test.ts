import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, ofType, type Msg, type TestClient } from './client.js';
import { newUserId, orderbookEvent, priceEvent, startWsStack, statusEvent, type WsStack } from './harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every message (frames and inner messages, in reading order) carries sequence 1, 2, 3… and an ISO UTC timestamp. */
function expectGaplessSequences(c: TestClient): void {
  expect(c.ordered.map((m) => m.sequence)).toEqual(c.ordered.map((_, i) => i + 1));
  for (const m of c.ordered) expect(new Date(m.timestamp!).toISOString()).toBe(m.timestamp);
}

async function open(s: WsStack, query = ''): Promise<TestClient> {
  const c = await connect(`${s.wsUrl}/v1/ws${query}`);
  await c.next(ofType('connected'));
  return c;
}

async function subscribe(c: TestClient, subscription_type: string, targets: string[]): Promise<Msg> {
  c.send({ type: 'subscribe', subscription_type, targets });
  return c.next((m) => m.type === 'subscribed' || m.type === 'error');
}

describe('WebSocket messages', () => {
  let s: WsStack;
  const clients: TestClient[] = [];
  const track = (c: TestClient) => (clients.push(c), c);
  beforeAll(async () => {
    s = await startWsStack('messages');
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await s.close();
  });

  it('sends `connected` with a session id first, on every WebSocket path', async () => {
    for (const path of ['/v1/ws', '/api/v1/ws', '/ws/market']) {
      const c = track(await connect(s.wsUrl + path));
      const m = await c.next();
      expect(m.type).toBe('connected');
      expect(m.session_id).toMatch(UUID);
      expect(m.sequence).toBe(1);
      expect(m).toMatchObject({ user_id: null, batching_enabled: true, batch_interval_ms: 30, rate_limit: 100, max_subscriptions: 200, max_targets_per_request: 50 });
    }
  });

  it('negotiates per-message deflate without context takeover and compresses through the shared pool', async () => {
    // A default client and one asking for a small server window (a second pool).
    const plain = track(await connect(`${s.wsUrl}/v1/ws`));
    const small = track(await connect(`${s.wsUrl}/v1/ws`, { perMessageDeflate: { serverMaxWindowBits: 10, threshold: 0 } }));
    for (const c of [plain, small]) {
      expect(c.extensions).toContain('permessage-deflate');
      expect(c.extensions).toContain('server_no_context_takeover');
      expect(c.extensions).toContain('client_no_context_takeover');
    }
    expect(small.extensions).toContain('server_max_window_bits=10');
    for (const c of [plain, small]) {
      await c.next(ofType('connected'));
      c.send({ type: 'subscribe', subscription_type: 'market', targets: ['KOSPI'] }); // compressed by `small` (threshold 0)
      await c.next(ofType('subscribed'));
    }
    // 150 updates in one flush make batch frames well over the 16 KB compression threshold.
    await s.bus.publishMany(Array.from({ length: 150 }, (_, i) => priceEvent('035720', 1000 + i)));
    // Compressed batch frames decode to the same protocol messages.
    for (const c of [plain, small]) {
      expect((await c.collect(ofType('price_update'), 150)).map((m) => m.price)).toEqual(Array.from({ length: 150 }, (_, i) => 1000 + i));
    }
    const { compression } = await s.gateway.stats();
    expect(compression!.contexts).toBeGreaterThanOrEqual(2); // one per window size, shared by all connections
    expect(compression!.contexts).toBeLessThanOrEqual(2 * 8);
  });

  it('refuses other upgrade paths with 404', async () => {
    await expect(connect(`${s.wsUrl}/v1/websocket`)).rejects.toThrow('HTTP 404');
  });

  it('answers ping with pong and acknowledges subscribe/unsubscribe echoing type and targets', async () => {
    const c = track(await open(s));
    c.send({ type: 'ping' });
    expect((await c.next()).type).toBe('pong');
    expect(await subscribe(c, 'stock', ['005930', '000660'])).toMatchObject({ type: 'subscribed', subscription_type: 'stock', targets: ['005930', '000660'] });
    c.send({ type: 'unsubscribe', subscription_type: 'stock', targets: ['000660'] });
    expect(await c.next()).toMatchObject({ type: 'unsubscribed', subscription_type: 'stock', targets: ['000660'] });

    // When prices of both codes are published, only the one still subscribed arrives.
    await s.bus.publish(priceEvent('000660', 990));
    await s.bus.publish(priceEvent('005930', 1015));
    const update = await c.next(ofType('price_update'));
    expect(update.code).toBe('005930');
    expect(c.messages.filter((m) => m.code === '000660')).toEqual([]);
    expectGaplessSequences(c);
  });

  it('delivers price_update and orderbook_update with exactly the spec fields', async () => {
    const c = track(await open(s));
    await subscribe(c, 'stock', ['005930']);
    await s.bus.publish(priceEvent('005930', 1015));
    await s.bus.publish(orderbookEvent('005930', 1010, 1020));
    const price = await c.next(ofType('price_update'));
    // prev_close 1000 → change 15, change_percent 15/1000 = 1.5 %
    expect(price).toEqual({
      type: 'price_update', code: '005930', name: 'Samsung Electronics', price: 1015, change: 15, change_percent: 1.5, volume: 10,
      timestamp: '2025-03-04T01:00:00.000Z', sequence: expect.any(Number),
    });
    const book = await c.next(ofType('orderbook_update'));
    expect(book).toEqual({
      type: 'orderbook_update', code: '005930', bids: [{ price: 1010, quantity: 5 }], asks: [{ price: 1020, quantity: 7 }],
      timestamp: '2025-03-04T01:00:01.000Z', sequence: expect.any(Number),
    });
    expectGaplessSequences(c);
  });

  it('fans market and sector subscriptions out to their member stocks, once per connection', async () => {
    const kosdaq = track(await open(s));
    const semis = track(await open(s));
    const both = track(await open(s));
    const idle = track(await open(s));
    await subscribe(kosdaq, 'market', ['kosdaq']); // market names are case-insensitive
    await subscribe(semis, 'sector', ['Semiconductors']);
    await subscribe(both, 'stock', ['005930']);
    await subscribe(both, 'market', ['KOSPI']);

    await s.bus.publishMany([priceEvent('005930', 1001), priceEvent('247540', 1002), priceEvent('000660', 1003), statusEvent('KOSPI', 'open')]);
    const codesBefore = async (c: TestClient) => {
      const status = await c.next(ofType('market_status'));
      expect(status).toMatchObject({ market: 'KOSPI', status: 'open', timestamp: '2025-03-04T00:00:00.000Z' });
      return c.messages.filter((m) => m.type === 'price_update').map((m) => m.code);
    };
    expect(await codesBefore(kosdaq)).toEqual(['247540']);
    expect(await codesBefore(semis)).toEqual(['005930', '000660']);
    // 005930 matches both the stock and the KOSPI subscription but arrives once.
    expect(await codesBefore(both)).toEqual(['005930', '000660']);

    // A connection without subscriptions gets no market data at all.
    idle.send({ type: 'ping' });
    await idle.next(ofType('pong'));
    expect(idle.messages.map((m) => m.type)).toEqual(['connected', 'pong']);
  });

  it('sends an alert only to the connections of its owner', async () => {
    const [u1, u2] = [newUserId(), newUserId()];
    const a = track(await open(s, `?token=${await s.token(u1)}`));
    const a2 = track(await open(s, `?token=${await s.token(u1)}`));
    const b = track(await open(s, `?token=${await s.token(u2)}`));
    const anon = track(await open(s));
    const alert = (user_id: string, threshold: number) => ({
      type: 'alert' as const, user_id, alert_id: newUserId(), code: '005930', alert_type: 'price_above', threshold, current_price: 1015,
      message: `005930 above ${threshold}`, ts: Date.parse('2025-03-04T01:02:03.000Z'),
    });
    await s.bus.publish(alert(u1, 1010));
    await s.bus.publish(alert(u2, 1012));
    for (const c of [a, a2]) {
      expect(await c.next(ofType('alert'))).toEqual({
        type: 'alert', code: '005930', alert_type: 'price_above', threshold: 1010, current_price: 1015, message: '005930 above 1010',
        timestamp: '2025-03-04T01:02:03.000Z', sequence: expect.any(Number),
      });
    }
    // u2's alert was published after u1's: had u1's reached b, it would have come first.
    expect((await b.next(ofType('alert'))).threshold).toBe(1012);
    expect(b.messages.filter((m) => m.type === 'alert')).toHaveLength(1);
    anon.send({ type: 'ping' });
    await anon.next(ofType('pong'));
    expect(anon.messages.some((m) => m.type === 'alert')).toBe(false);
  });

  it('reports INVALID_MESSAGE for malformed JSON, a missing or unknown type, and bad fields', async () => {
    const c = track(await open(s));
    const cases: [unknown, string][] = [
      ['{"type": "subscribe",', 'Malformed JSON'],
      [{ subscription_type: 'stock', targets: ['005930'] }, 'Missing message type'],
      [{ type: 'teleport' }, 'Unknown message type: teleport'],
      [{ type: 'subscribe', subscription_type: 'crypto', targets: ['BTC'] }, 'Invalid subscribe message'],
      [{ type: 'subscribe', subscription_type: 'stock' }, 'Invalid subscribe message'],
      ['[1,2,3]', 'A message must be a JSON object'],
    ];
    for (const [sent, text] of cases) {
      c.send(sent);
      const err = await c.next();
      expect(err).toMatchObject({ type: 'error', code: 'INVALID_MESSAGE', message: text });
      expect(typeof err.details).toBe('object');
    }
    // The connection is still usable.
    c.send({ type: 'ping' });
    expect((await c.next()).type).toBe('pong');
    expectGaplessSequences(c);
  });

  it('reports INVALID_TOKEN for a bad token and keeps the connection open as anonymous', async () => {
    const c = track(await connect(`${s.wsUrl}/v1/ws?token=not.a.jwt`));
    expect(await c.next()).toMatchObject({ type: 'connected', user_id: null });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'INVALID_TOKEN', details: { reason: 'invalid' } });
    expect(await subscribe(c, 'stock', ['005930'])).toMatchObject({ type: 'subscribed' });
  });

  it('accepts a valid token at connect time and names the user in `connected`', async () => {
    const user = newUserId();
    const c = track(await connect(`${s.wsUrl}/v1/ws?token=${await s.token(user)}`));
    expect(await c.next()).toMatchObject({ type: 'connected', user_id: user });
  });

  it('refreshes the token of the same user and refuses invalid or foreign tokens with TOKEN_REFRESH_ERROR', async () => {
    const user = newUserId();
    const c = track(await open(s, `?token=${await s.token(user)}`));
    c.send({ type: 'refresh_token', token: await s.token(user) });
    const ok = await c.next();
    expect(ok).toMatchObject({ type: 'token_refreshed', user_id: user });
    expect(Date.parse(ok.expires_at as string)).toBeGreaterThan(Date.now());
    c.send({ type: 'refresh_token', token: 'garbage' });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'TOKEN_REFRESH_ERROR', details: { reason: 'invalid' } });
    c.send({ type: 'refresh_token', token: await s.token(newUserId()) });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'TOKEN_REFRESH_ERROR', details: { reason: 'different_user' } });
  });

  it('lets an anonymous connection authenticate with refresh_token and then receive its alerts', async () => {
    const user = newUserId();
    const c = track(await open(s));
    c.send({ type: 'refresh_token', token: await s.token(user) });
    expect(await c.next()).toMatchObject({ type: 'token_refreshed', user_id: user });
    await s.bus.publish({ type: 'alert', user_id: user, alert_id: 'a1', code: '000660', alert_type: 'price_above', threshold: 1, current_price: 2, message: 'm', ts: 0 });
    expect(await c.next(ofType('alert'))).toMatchObject({ code: '000660', timestamp: '1970-01-01T00:00:00.000Z' });
  });

  it('subscribes the valid targets and names the unknown ones in SUBSCRIPTION_FAILED', async () => {
    const c = track(await open(s));
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['005930', '999999', 'ABC'] });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subscription_type: 'stock', targets: ['005930'] });
    expect(await c.next()).toMatchObject({
      type: 'error', code: 'SUBSCRIPTION_FAILED', details: { reason: 'unknown_targets', subscription_type: 'stock', targets: ['999999', 'ABC'] },
    });
    c.send({ type: 'subscribe', subscription_type: 'sector', targets: ['Shipbuilding'] });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'SUBSCRIPTION_FAILED', details: { targets: ['Shipbuilding'] } });
    c.send({ type: 'subscribe', subscription_type: 'market', targets: ['NASDAQ', 'KOSPI'] });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subscription_type: 'market', targets: ['KOSPI'] });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'SUBSCRIPTION_FAILED', details: { targets: ['NASDAQ'] } });
    expectGaplessSequences(c);
  });
});
