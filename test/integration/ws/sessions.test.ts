import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../daemon/infra/clock.js';
import { connect, ofType, type Msg, type TestClient } from './client.js';
import { closeAndSave, newUserId, orderbookEvent, priceEvent, startWsStack, type WsStack } from './harness.js';

async function openSubscribed(s: WsStack, query = ''): Promise<{ c: TestClient; sessionId: string }> {
  const c = await connect(`${s.wsUrl}/v1/ws${query}`);
  const hello = await c.next(ofType('connected'));
  c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['005930'] });
  await c.next(ofType('subscribed'));
  c.send({ type: 'subscribe', subscription_type: 'sector', targets: ['Internet'] });
  await c.next(ofType('subscribed'));
  return { c, sessionId: hello.session_id as string };
}

const lastSequence = (c: TestClient) => c.ordered[c.ordered.length - 1]!.sequence!;
const sequences = (msgs: Msg[]) => msgs.map((m) => m.sequence);

describe('session restoration with replay', () => {
  let s: WsStack;
  let observer: TestClient;
  beforeAll(async () => {
    s = await startWsStack('sessions');
    // Sees every event: once it has one, the gateway has dispatched it (and everything before).
    observer = await connect(`${s.wsUrl}/v1/ws`);
    await observer.next(ofType('connected'));
    for (const market of ['KOSPI', 'KOSDAQ']) {
      observer.send({ type: 'subscribe', subscription_type: 'market', targets: [market] });
      await observer.next(ofType('subscribed'));
    }
  });
  afterAll(async () => {
    await observer.close();
    await s.close();
  });

  /** Publish while a session is away; resolves once the gateway dispatched them all. */
  async function publishAway(events: Parameters<WsStack['bus']['publishMany']>[0]): Promise<void> {
    await s.bus.publishMany(events);
    const last = events[events.length - 1]!;
    await observer.next((m) => 'code' in last && m.code === last.code && (m.price === (last as { price?: number }).price || m.type === 'orderbook_update'));
  }

  it('restores subscriptions from ?session_id and replays what was missed in order, continuing the sequence', async () => {
    const { c, sessionId } = await openSubscribed(s);
    await s.bus.publish(priceEvent('005930', 1001));
    await c.next(ofType('price_update'));
    const before = lastSequence(c);
    await closeAndSave(s, c, sessionId);

    // Missed: 005930 (stock), 035720 (Internet sector), an order book of 005930; not 247540 (KOSDAQ, unsubscribed).
    await publishAway([priceEvent('005930', 1002), priceEvent('247540', 5000), priceEvent('035720', 1003), orderbookEvent('005930', 1001, 1003)]);

    const back = await connect(`${s.wsUrl}/v1/ws?session_id=${sessionId}`);
    const reconnected = await back.next();
    expect(reconnected).toMatchObject({
      type: 'reconnected', session_id: sessionId, restored_subscriptions: { stock: ['005930'], market: [], sector: ['Internet'] },
      missed_messages_count: 3, replayed_messages: 3, history_truncated: false,
    });
    const replay = [await back.next(), await back.next(), await back.next()];
    expect(replay.map((m) => [m.type, m.code])).toEqual([['price_update', '005930'], ['price_update', '035720'], ['orderbook_update', '005930']]);
    expect(replay.map((m) => m.price)).toEqual([1002, 1003, undefined]);
    // The sequence continues from the one before the disconnect, without gaps (frames included).
    expect(sequences(back.ordered)).toEqual(back.ordered.map((_, i) => before + 1 + i));

    // Live updates flow on the restored subscriptions.
    await s.bus.publish(priceEvent('035720', 1004));
    expect(await back.next(ofType('price_update'))).toMatchObject({ code: '035720', price: 1004, sequence: lastSequence(back) });
    await back.close();
  });

  it('restores with a `reconnect` message on an open connection', async () => {
    const { c, sessionId } = await openSubscribed(s);
    const before = lastSequence(c);
    await closeAndSave(s, c, sessionId);
    await publishAway([priceEvent('005930', 1111)]);

    const other = await connect(`${s.wsUrl}/v1/ws`);
    await other.next(ofType('connected'));
    other.send({ type: 'reconnect', session_id: sessionId });
    const reconnected = await other.next(ofType('reconnected'));
    expect(reconnected).toMatchObject({ session_id: sessionId, missed_messages_count: 1 });
    expect(await other.next()).toMatchObject({ type: 'price_update', price: 1111 });
    // After its own `connected` (1), the connection continues the restored session's numbering.
    expect(sequences(other.ordered)).toEqual([1, ...other.ordered.slice(1).map((_, i) => before + 1 + i)]);
    await other.close();
  });

  it('restores a session at most once (while restored, it is in use)', async () => {
    const { c, sessionId } = await openSubscribed(s);
    await closeAndSave(s, c, sessionId);
    const first = await connect(`${s.wsUrl}/v1/ws?session_id=${sessionId}`);
    await first.next(ofType('reconnected'));
    const second = await connect(`${s.wsUrl}/v1/ws?session_id=${sessionId}`);
    expect(await second.next()).toMatchObject({ type: 'connected' });
    expect(await second.next()).toMatchObject({ type: 'error', code: 'SESSION_RESTORATION_FAILED', details: { reason: 'in_use', session_id: sessionId } });
    await first.close();
    await second.close();
  });

  it('fails with SESSION_RESTORATION_FAILED for an unknown or malformed session id and opens a new session', async () => {
    for (const id of [randomUUID(), 'not-a-session']) {
      const c = await connect(`${s.wsUrl}/v1/ws?session_id=${id}`);
      const hello = await c.next();
      expect(hello.type).toBe('connected');
      expect(hello.session_id).not.toBe(id);
      expect(await c.next()).toMatchObject({ type: 'error', code: 'SESSION_RESTORATION_FAILED', details: { reason: 'unknown' } });
      await c.close();
    }
  });

  it("refuses another user's session, and an anonymous attempt, without consuming it", async () => {
    const [alice, bob] = [newUserId(), newUserId()];
    const { c, sessionId } = await openSubscribed(s, `?token=${await s.token(alice)}`);
    await closeAndSave(s, c, sessionId);
    for (const query of [`&token=${await s.token(bob)}`, '']) {
      const thief = await connect(`${s.wsUrl}/v1/ws?session_id=${sessionId}${query}`);
      await thief.next(ofType('connected'));
      expect(await thief.next()).toMatchObject({ type: 'error', code: 'SESSION_RESTORATION_FAILED', details: { reason: 'other_user' } });
      await thief.close();
    }
    const owner = await connect(`${s.wsUrl}/v1/ws?session_id=${sessionId}&token=${await s.token(alice)}`);
    expect(await owner.next()).toMatchObject({ type: 'reconnected', session_id: sessionId });
    await owner.close();
  });

  it('says history_truncated and sends a fresh snapshot when the gap is longer than the history', async () => {
    const snapshotStack = await startWsStack('truncated', { snapshot: async (codes) => codes.map((code) => priceEvent(code, 1234)) });
    try {
      const watcher = await connect(`${snapshotStack.wsUrl}/v1/ws`);
      await watcher.next(ofType('connected'));
      watcher.send({ type: 'subscribe', subscription_type: 'stock', targets: ['000660'] });
      await watcher.next(ofType('subscribed'));
      const c = await connect(`${snapshotStack.wsUrl}/v1/ws`);
      const sessionId = (await c.next(ofType('connected'))).session_id as string;
      c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['005930'] });
      await c.next(ofType('subscribed'));
      await snapshotStack.bus.publish(priceEvent('005930', 1001));
      await c.next(ofType('price_update'));
      await closeAndSave(snapshotStack, c, sessionId);
      await snapshotStack.bus.publishMany([priceEvent('005930', 1002), priceEvent('005930', 1003), priceEvent('000660', 1)]);
      await watcher.next(ofType('price_update')); // the gateway has dispatched all three
      // The history now keeps only the newest entry: 1002 and 1003 are gone.
      await snapshotStack.commands.xtrim(snapshotStack.redis.key('events'), 'MAXLEN', 1);

      const back = await connect(`${snapshotStack.wsUrl}/v1/ws?session_id=${sessionId}`);
      expect(await back.next()).toMatchObject({ type: 'reconnected', history_truncated: true, replayed_messages: 0, snapshot_messages: 1 });
      expect(await back.next()).toMatchObject({ type: 'price_update', code: '005930', price: 1234 });
      await back.close();
      await watcher.close();
    } finally {
      await snapshotStack.close();
    }
  });
});

describe('session expiry (injected clock)', () => {
  const clock = createManualClock(Date.parse('2025-03-04T01:00:00.000Z'));
  let s: WsStack;
  beforeAll(async () => {
    s = await startWsStack('expiry', { clock });
  });
  afterAll(() => s.close());

  it('restores just before 5 minutes and fails with reason expired after', async () => {
    const first = await openSubscribed(s);
    await closeAndSave(s, first.c, first.sessionId);
    clock.advance(299_000);
    const inTime = await connect(`${s.wsUrl}/v1/ws?session_id=${first.sessionId}`);
    expect(await inTime.next()).toMatchObject({ type: 'reconnected' });

    await closeAndSave(s, inTime, first.sessionId);
    clock.advance(300_000);
    const late = await connect(`${s.wsUrl}/v1/ws?session_id=${first.sessionId}`);
    await late.next(ofType('connected'));
    expect(await late.next()).toMatchObject({ type: 'error', code: 'SESSION_RESTORATION_FAILED', details: { reason: 'expired' } });
    await late.close();
  });
});
