/**
 * Restoration beyond the basics of sessions.test.ts: the current market status on
 * subscribe and after `reconnected`, the snapshot of a truncated market subscription,
 * sequences that never go back on a socket, and sessions of a gateway that died without
 * closing them (checkpoints), restored on another instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarketStatusEvent } from '../../../daemon/kernel/events.js';
import type { Connection } from '../../../daemon/ws/connection.js';
import { connect, ofType, type Msg, type TestClient } from './client.js';
import { closeAndSave, priceEvent, startWsStack, type WsStack } from './harness.js';
import { testPrefix } from '../../helpers/test-daemon.js';

const STATUS_TS = Date.parse('2025-03-04T00:30:00.000Z');
const marketStatus = (): MarketStatusEvent[] => [
  { type: 'market_status', market: 'KOSPI', status: 'open', ts: STATUS_TS },
  { type: 'market_status', market: 'KOSDAQ', status: 'open', ts: STATUS_TS },
];

/** Types (and the market of market_status) of every message so far. */
const kinds = (c: TestClient) => c.messages.map((m) => (m.type === 'market_status' ? `market_status:${m.market}` : m.type));

/** Resolves when `s` wrote a checkpoint of `sessionId` whose connection satisfies `check`. */
function checkpointed(s: WsStack, sessionId: string, check: (conn: Connection) => boolean = () => true): Promise<void> {
  return new Promise((resolve) => {
    const on = (conn: Connection, id: string) => {
      if (id !== sessionId || !check(conn)) return;
      s.gateway.events.off('checkpoint', on);
      resolve();
    };
    s.gateway.events.on('checkpoint', on);
  });
}

async function open(s: WsStack, query = ''): Promise<{ c: TestClient; sessionId: string }> {
  const c = await connect(`${s.wsUrl}/v1/ws${query}`);
  return { c, sessionId: (await c.next(ofType('connected'))).session_id as string };
}

/** Sequence numbers of frames and inner messages in reading order increase by one. */
function expectGapless(c: TestClient): void {
  const seqs = c.ordered.map((m) => m.sequence!);
  expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
}

describe('market status and truncated restores', () => {
  let s: WsStack;
  let observer: TestClient;
  beforeAll(async () => {
    s = await startWsStack('restore-status', { marketStatus, snapshot: async (codes) => codes.map((code) => priceEvent(code, 1234)) });
    observer = (await open(s)).c;
    for (const market of ['KOSPI', 'KOSDAQ']) {
      observer.send({ type: 'subscribe', subscription_type: 'market', targets: [market] });
      await observer.next(ofType('subscribed'));
    }
  });
  afterAll(async () => {
    await observer.close();
    await s.close();
  });

  it('Given a connection, when it subscribes, then the current status of each new market follows the ack, once per market', async () => {
    const { c } = await open(s);
    // stock of KOSPI, another of KOSPI, the KOSDAQ market, a KOSDAQ sector
    for (const [type, target] of [['stock', '005930'], ['stock', '000660'], ['market', 'KOSDAQ'], ['sector', 'Pharma']]) {
      c.send({ type: 'subscribe', subscription_type: type, targets: [target] });
      await c.next(ofType('subscribed', { subscription_type: type }));
    }
    c.send({ type: 'ping' });
    await c.next(ofType('pong'));
    expect(kinds(c)).toEqual(['connected', 'subscribed', 'market_status:KOSPI', 'subscribed', 'subscribed', 'market_status:KOSDAQ', 'subscribed', 'pong']);
    expect(c.messages.find((m) => m.type === 'market_status')).toMatchObject({ market: 'KOSPI', status: 'open', timestamp: new Date(STATUS_TS).toISOString() });
    expectGapless(c);
    await c.close();
  });

  it('Given a sector subscription, when subscribed, then the status of the markets of its members is sent', async () => {
    const { c } = await open(s);
    c.send({ type: 'subscribe', subscription_type: 'sector', targets: ['Semiconductors'] });
    await c.next(ofType('subscribed'));
    expect(await c.next()).toMatchObject({ type: 'market_status', market: 'KOSPI', status: 'open' });
    await c.close();
  });

  it('Given a market subscriber away longer than the history, when it restores, then it gets a snapshot of every member stock and the market status', async () => {
    const { c, sessionId } = await open(s);
    c.send({ type: 'subscribe', subscription_type: 'market', targets: ['KOSDAQ'] });
    await c.next(ofType('subscribed'));
    await s.bus.publish(priceEvent('247540', 1001));
    await c.next(ofType('price_update'));
    await closeAndSave(s, c, sessionId);
    await s.bus.publishMany([priceEvent('247540', 1002), priceEvent('091990', 1003), priceEvent('005930', 1)]);
    await observer.next((m) => m.type === 'price_update' && m.code === '005930' && m.price === 1);
    // The history keeps only the newest entry: the KOSDAQ updates are gone.
    await s.commands.xtrim(s.redis.key('events'), 'MAXLEN', 1);

    const back = await connect(`${s.wsUrl}/v1/ws?session_id=${sessionId}`);
    const reconnected = await back.next();
    expect(reconnected).toMatchObject({
      type: 'reconnected', restored_subscriptions: { market: ['KOSDAQ'] }, history_truncated: true, missed_messages_estimated: true,
      replayed_messages: 0, snapshot_messages: 2, restored_from: 'saved',
    });
    expect(reconnected.missed_messages_count).toBeGreaterThanOrEqual(0);
    const after = [await back.next(), await back.next(), await back.next()];
    expect(after.map((m) => [m.type, m.code ?? m.market, m.price])).toEqual([
      ['price_update', '247540', 1234],
      ['price_update', '091990', 1234],
      ['market_status', 'KOSDAQ', undefined],
    ]);
    await back.close();
  });

  it('Given a restore that is not truncated, when it completes, then the market status follows the replay', async () => {
    const { c, sessionId } = await open(s);
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['035720'] });
    await c.next(ofType('market_status'));
    await closeAndSave(s, c, sessionId);
    await s.bus.publish(priceEvent('035720', 1111));
    await observer.next((m) => m.code === '035720' && m.price === 1111);
    const back = await connect(`${s.wsUrl}/v1/ws?session_id=${sessionId}`);
    const got = [await back.next(), await back.next(), await back.next()];
    expect(got.map((m) => m.type)).toEqual(['reconnected', 'price_update', 'market_status']);
    expect(got[0]).toMatchObject({ missed_messages_count: 1, missed_messages_estimated: false, history_truncated: false });
    expect(got[2]).toMatchObject({ market: 'KOSPI', status: 'open' });
    await back.close();
  });

  it('Given an open socket further ahead than a saved session, when it sends reconnect, then its sequence keeps increasing', async () => {
    const saved = await open(s);
    saved.c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['005930'] });
    await saved.c.next(ofType('subscribed'));
    await closeAndSave(s, saved.c, saved.sessionId);
    const { c } = await open(s);
    for (let i = 0; i < 20; i++) c.send({ type: 'ping' });
    await c.collect(ofType('pong'), 20);
    const before = c.ordered[c.ordered.length - 1]!.sequence!;
    expect(before).toBeGreaterThan(5); // further than the saved session's few messages

    c.send({ type: 'reconnect', session_id: saved.sessionId });
    const reconnected = await c.next(ofType('reconnected'));
    expect(reconnected.sequence).toBeGreaterThan(before);
    c.send({ type: 'ping' });
    await c.next(ofType('pong'));
    expectGapless(c);
    await c.close();
  });

  it('Given a client that read further than its saved session, when it restores with last_sequence, then numbering continues after it', async () => {
    const { c, sessionId } = await open(s);
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['005930'] });
    await c.next(ofType('subscribed'));
    await closeAndSave(s, c, sessionId);
    const back = await connect(`${s.wsUrl}/v1/ws?session_id=${sessionId}&last_sequence=500`);
    expect(await back.next()).toMatchObject({ type: 'reconnected' });
    // The first frame (a batch, or the message itself) takes the next number.
    expect(back.ordered[0]!.sequence).toBe(501);
    expectGapless(back);
    await back.close();
  });
});

describe('sessions of a gateway that died without closing them', () => {
  const prefix = testPrefix('ws-crash');
  let a: WsStack;
  let b: WsStack;
  let watcher: TestClient;
  beforeAll(async () => {
    // A checkpoints only on changes during the test (a long interval), and proves dead 300 ms after its last liveness refresh.
    a = await startWsStack('crash-a', { prefix, cleanup: false, options: { checkpointMs: 60_000, instanceTtlMs: 300 } });
    b = await startWsStack('crash-b', { prefix, options: { ownerWaitMs: 300 } });
    watcher = (await open(b)).c;
    watcher.send({ type: 'subscribe', subscription_type: 'market', targets: ['KOSPI'] });
    await watcher.next(ofType('subscribed'));
  });
  afterAll(async () => {
    await watcher.close();
    await a.close();
    await b.close();
  });

  it('Given a live session on one instance, when another tries to restore it, then it is refused as in use and the connection keeps working', async () => {
    const { c, sessionId } = await open(a);
    const written = checkpointed(a, sessionId, (conn) => conn.subscriptions.has('stock', '000660'));
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['000660'] });
    await c.next(ofType('subscribed'));
    await written;
    const thief = await connect(`${b.wsUrl}/v1/ws?session_id=${sessionId}`);
    await thief.next(ofType('connected'));
    expect(await thief.next()).toMatchObject({ type: 'error', code: 'SESSION_RESTORATION_FAILED', details: { reason: 'in_use' } });
    await a.bus.publish(priceEvent('000660', 2001));
    expect(await c.next(ofType('price_update'))).toMatchObject({ code: '000660', price: 2001 });
    await thief.close();
    await c.close();
  });

  it('Given a killed instance, when its client reconnects to another, then the session restores from its checkpoint with what it missed', async () => {
    // Given a subscribed client whose subscription was checkpointed, and one more update it read
    const { c, sessionId } = await open(a);
    const written = checkpointed(a, sessionId, (conn) => conn.subscriptions.has('stock', '005930'));
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['005930'] });
    await c.next(ofType('subscribed'));
    await written;
    await a.bus.publish(priceEvent('005930', 1001));
    await c.next(ofType('price_update'));
    const lastSeen = c.ordered[c.ordered.length - 1]!.sequence!;

    // When the instance dies (nothing more reaches Redis from it, the socket drops) and the market moves on
    a.kill();
    c.ws.terminate();
    await c.closed;
    await b.bus.publish(priceEvent('005930', 1002));
    await watcher.next((m: Msg) => m.code === '005930' && m.price === 1002);
    const back = await connect(`${b.wsUrl}/v1/ws?session_id=${sessionId}&last_sequence=${lastSeen}`);

    // Then B restores it from the checkpoint: the subscription, and a replay from the checkpoint's
    // position — the update the client had read (repeated) and the one it missed
    const reconnected = await back.next();
    expect(reconnected).toMatchObject({
      type: 'reconnected', session_id: sessionId, restored_from: 'checkpoint', restored_subscriptions: { stock: ['005930'], market: [], sector: [] },
      history_truncated: false, missed_messages_count: 2,
    });
    expect(back.ordered[0]!.sequence).toBe(lastSeen + 1);
    const replay = [await back.next(), await back.next()];
    expect(replay.map((m) => m.price)).toEqual([1001, 1002]);
    await b.bus.publish(priceEvent('005930', 1003));
    expect(await back.next(ofType('price_update'))).toMatchObject({ price: 1003 });
    expectGapless(back);
    await back.close();
  });
});
