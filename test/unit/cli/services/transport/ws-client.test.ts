/**
 * The WebSocket client against a tiny scripted `ws` server on port 0: batch unwrapping,
 * sequence checks, subscribe after hello, reconnection with session restoration.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { backoffDelay, createWsClient, missingSubscriptions, websocketUrl, type WsClient, type WsClientEvent, type WsClientOptions } from '../../../../../cli/services/transport/ws-client.js';
import { CliError } from '../../../../../cli/services/session/errors.js';

/** One server-side connection: its URL and the messages the client sent. */
interface ServerConn {
  ws: WebSocket;
  url: URL;
  received: Record<string, unknown>[];
  nextMessage(): Promise<Record<string, unknown>>;
  send(m: object): void;
}

interface FakeGateway {
  baseUrl: string;
  nextConnection(): Promise<ServerConn>;
  close(): Promise<void>;
}

/** A `ws` server whose connections the test drives. */
async function fakeGateway(options: { autoPong?: boolean } = {}): Promise<FakeGateway> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http, path: '/v1/ws', autoPong: options.autoPong ?? true });
  const pending: ServerConn[] = [];
  const waiting: ((c: ServerConn) => void)[] = [];
  wss.on('connection', (ws, req) => {
    const received: Record<string, unknown>[] = [];
    const readers: ((m: Record<string, unknown>) => void)[] = [];
    let read = 0;
    ws.on('message', (data) => {
      received.push(JSON.parse(data.toString()));
      readers.splice(0).forEach((r) => r(received[read++]!));
    });
    const conn: ServerConn = {
      ws, received, url: new URL(req.url!, 'http://x'),
      nextMessage: () => (read < received.length ? Promise.resolve(received[read++]!) : new Promise((r) => readers.push(r))),
      send: (m) => ws.send(JSON.stringify(m)),
    };
    const w = waiting.shift();
    if (w) w(conn);
    else pending.push(conn);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    nextConnection: () => {
      const c = pending.shift();
      return c ? Promise.resolve(c) : new Promise((r) => waiting.push(r));
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      await new Promise((r) => wss.close(r));
      await new Promise((r) => http.close(r));
    },
  };
}

/** Everything a client reported, and a way to await an event. */
function recorder(client: WsClient) {
  const events: WsClientEvent[] = [];
  const waiters: { pred: (e: WsClientEvent) => boolean; resolve: (e: WsClientEvent) => void }[] = [];
  client.on((e) => {
    events.push(e);
    for (const w of [...waiters]) if (w.pred(e)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(e);
    }
  });
  return {
    events,
    messages: () => events.flatMap((e) => (e.type === 'message' ? [e.message] : [])),
    anomalies: () => events.filter((e) => e.type === 'anomaly'),
    states: () => events.flatMap((e) => (e.type === 'status' ? [e.status.state] : [])),
    /** The first event so far matching `pred`, or the next one to come. */
    waitFor: (pred: (e: WsClientEvent) => boolean) =>
      new Promise<WsClientEvent>((resolve) => {
        const seen = events.find(pred);
        if (seen) resolve(seen);
        else waiters.push({ pred, resolve });
      }),
  };
}

const isStatus = (state: string) => (e: WsClientEvent) => e.type === 'status' && e.status.state === state;
const isMessage = (type: string) => (e: WsClientEvent) => e.type === 'message' && e.message.type === type;

describe('ws client', () => {
  let gw: FakeGateway;
  let client: WsClient | undefined;
  const start = async (options: Partial<WsClientOptions> = {}, server: { autoPong?: boolean } = {}) => {
    gw = await fakeGateway(server);
    client = createWsClient({ baseUrl: gw.baseUrl, subscriptions: [{ subscription_type: 'stock', targets: ['005930', '000660', '035720'] }], backoff: { initialMs: 5, jitter: 0 }, ...options });
    return recorder(client);
  };
  afterEach(async () => {
    await client?.stop();
    client = undefined;
    await gw?.close();
  });

  it('subscribes after the hello (chunked by the server limit), unwraps batches and sees no gap', async () => {
    const rec = await start();
    const started = client!.start();
    const conn = await gw.nextConnection();
    conn.send({ type: 'connected', session_id: 'S1', max_targets_per_request: 2, sequence: 1 });
    await started;
    // 3 targets, at most 2 per request → two subscribe messages.
    expect(await conn.nextMessage()).toEqual({ type: 'subscribe', subscription_type: 'stock', targets: ['005930', '000660'] });
    expect(await conn.nextMessage()).toEqual({ type: 'subscribe', subscription_type: 'stock', targets: ['035720'] });
    conn.send({ type: 'batch', sequence: 2, batch_size: 2, messages: [{ type: 'price_update', code: '005930', price: 1, sequence: 3 }, { type: 'price_update', code: '000660', price: 2, sequence: 4 }] });
    conn.send({ type: 'orderbook_update', code: '005930', bids: [], asks: [], sequence: 5 });
    await rec.waitFor(isMessage('orderbook_update'));
    expect(rec.messages().map((m) => [m.type, m.sequence])).toEqual([['connected', 1], ['price_update', 3], ['price_update', 4], ['orderbook_update', 5]]);
    expect(rec.anomalies()).toEqual([]);
    expect(client!.status()).toEqual({ state: 'connected', sessionId: 'S1' });
  });

  it('reports a sequence gap', async () => {
    const rec = await start();
    const started = client!.start();
    const conn = await gw.nextConnection();
    conn.send({ type: 'connected', session_id: 'S1', sequence: 1 });
    await started;
    conn.send({ type: 'batch', sequence: 2, messages: [{ type: 'price_update', sequence: 3 }, { type: 'price_update', sequence: 5 }] });
    const anomaly = await rec.waitFor((e) => e.type === 'anomaly');
    expect(anomaly).toEqual({ type: 'anomaly', anomaly: { kind: 'gap', expected: 4, got: 5 } });
  });

  it('reconnects after a drop with its session id and token, and resubscribes only what was not restored', async () => {
    let tokens = 0;
    const rec = await start({ token: async () => `T${++tokens}` });
    const started = client!.start();
    const first = await gw.nextConnection();
    expect(first.url.searchParams.get('token')).toBe('T1');
    expect(first.url.searchParams.has('session_id')).toBe(false);
    first.send({ type: 'connected', session_id: 'S1', sequence: 1 });
    await started;
    await first.nextMessage();
    first.send({ type: 'price_update', code: '005930', sequence: 2 });
    await rec.waitFor(isMessage('price_update'));

    // When the server side drops the connection
    first.ws.terminate();
    const second = await gw.nextConnection();
    // Then the client comes back with the session id and a fresh token
    expect(second.url.searchParams.get('session_id')).toBe('S1');
    expect(second.url.searchParams.get('token')).toBe('T2');
    second.send({ type: 'reconnected', session_id: 'S1', restored_subscriptions: { stock: ['005930', '000660'], market: [], sector: [] }, missed_messages_count: 2, sequence: 3 });
    second.send({ type: 'batch', sequence: 4, messages: [{ type: 'price_update', code: '005930', sequence: 5 }, { type: 'price_update', code: '000660', sequence: 6 }] });
    expect(await second.nextMessage()).toEqual({ type: 'subscribe', subscription_type: 'stock', targets: ['035720'] });
    await rec.waitFor((e) => e.type === 'message' && e.message.sequence === 6);

    expect(rec.states()).toEqual(['connecting', 'connected', 'reconnecting', 'connecting', 'restored']);
    expect(client!.status()).toEqual({ state: 'restored', sessionId: 'S1', missed: 2, estimated: false, historyTruncated: false });
    expect(rec.anomalies()).toEqual([]);
    const reconnecting = rec.events.find((e) => e.type === 'status' && e.status.state === 'reconnecting');
    expect(reconnecting).toMatchObject({ status: { attempt: 1, delayMs: 5 } });
  });

  it('subscribes afresh when the session could not be restored', async () => {
    const rec = await start();
    const started = client!.start();
    const first = await gw.nextConnection();
    first.send({ type: 'connected', session_id: 'S1', sequence: 1 });
    await started;
    await first.nextMessage();
    first.ws.close(1001, 'going away');
    const second = await gw.nextConnection();
    // The gateway sends the new session's hello first, then the failure.
    second.send({ type: 'connected', session_id: 'S2', sequence: 1 });
    second.send({ type: 'error', code: 'SESSION_RESTORATION_FAILED', message: 'Session expired', details: { reason: 'expired' }, sequence: 2 });
    expect(await second.nextMessage()).toEqual({ type: 'subscribe', subscription_type: 'stock', targets: ['005930', '000660', '035720'] });
    await rec.waitFor(isMessage('error'));
    expect(client!.status()).toEqual({ state: 'connected', sessionId: 'S2', restoreFailed: 'expired' });
    // The new session numbers from 1 again: not a gap.
    expect(rec.anomalies()).toEqual([]);
    expect(rec.events.find((e) => e.type === 'status' && e.status.state === 'reconnecting')).toMatchObject({ status: { reason: 'connection closed (1001 going away)' } });
  });

  it('keeps a quiet connection that answers its pings', async () => {
    const rec = await start({ idleTimeoutMs: 60 });
    const started = client!.start();
    const conn = await gw.nextConnection();
    conn.send({ type: 'connected', session_id: 'S1', sequence: 1 });
    await started;
    // Five client pings (one per 20 ms of silence) span well over the 60 ms idle timeout.
    await new Promise<void>((resolve) => {
      let pings = 0;
      conn.ws.on('ping', () => ++pings === 5 && resolve());
    });
    expect(rec.states()).toEqual(['connecting', 'connected']);
  });

  it('drops a connection that stays silent although pinged, and reconnects', async () => {
    const rec = await start({ idleTimeoutMs: 50 }, { autoPong: false });
    const started = client!.start();
    const first = await gw.nextConnection();
    first.send({ type: 'connected', session_id: 'S1', sequence: 1 });
    await started;
    const reconnecting = await rec.waitFor(isStatus('reconnecting'));
    expect(reconnecting).toMatchObject({ status: { reason: 'no data or heartbeat for 0.05 s' } });
    expect((await gw.nextConnection()).url.searchParams.get('session_id')).toBe('S1');
  });

  it('fails fast when the first connection cannot be made', async () => {
    // A port nobody listens on: open a server and close it again.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    gw = await fakeGateway();
    client = createWsClient({ baseUrl: `http://127.0.0.1:${port}`, subscriptions: [] });
    const err = await client.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).message).toBe(`cannot reach stockscreend at http://127.0.0.1:${port}`);
    expect(client.status().state).toBe('closed');
  });

  it('fails fast when the server refuses the upgrade', async () => {
    gw = await fakeGateway();
    client = createWsClient({ baseUrl: gw.baseUrl, path: '/elsewhere', subscriptions: [] });
    await expect(client.start()).rejects.toThrow(`${gw.baseUrl} refused the WebSocket connection (HTTP 400)`);
  });

  it('stops with a normal close, once', async () => {
    const rec = await start();
    const started = client!.start();
    const conn = await gw.nextConnection();
    conn.send({ type: 'connected', session_id: 'S1', sequence: 1 });
    await started;
    const closed = new Promise<number>((r) => conn.ws.on('close', (code) => r(code)));
    await client!.stop();
    await client!.stop();
    expect(await closed).toBe(1000);
    expect(rec.states().filter((s) => s === 'closed')).toHaveLength(1);
  });
});

describe('backoffDelay', () => {
  const o = { initialMs: 250, maxMs: 10_000, factor: 2, jitter: 0.2 };
  it('doubles from the initial delay up to the cap', () => {
    // 250·2^(n−1): 250, 500, 1000, 2000, 4000, 8000, then 16000 → capped at 10000
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(n, o, 0))).toEqual([250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });
  it('takes off up to `jitter` of the delay at random', () => {
    // 1000 × (1 − 0.2 × 0.5) = 900; the largest draw (→1) takes off almost 20%.
    expect(backoffDelay(3, o, 0.5)).toBe(900);
    expect(backoffDelay(3, o, 0.999)).toBe(800);
  });
});

describe('websocketUrl and missingSubscriptions', () => {
  it('maps http to ws and https to wss with the query parameters', () => {
    expect(websocketUrl('http://127.0.0.1:8000/', '/v1/ws', {})).toBe('ws://127.0.0.1:8000/v1/ws');
    expect(websocketUrl('https://example.com', '/v1/ws', { token: 'a.b', session_id: 'S' })).toBe('wss://example.com/v1/ws?token=a.b&session_id=S');
  });
  it('finds targets a restored session lacks (market names in any case)', () => {
    const wanted = [
      { subscription_type: 'stock' as const, targets: ['005930', '000660'] },
      { subscription_type: 'market' as const, targets: ['kosdaq'] },
    ];
    expect(missingSubscriptions(wanted, { stock: ['005930'], market: ['KOSDAQ'], sector: [] })).toEqual([{ subscription_type: 'stock', targets: ['000660'] }]);
    expect(missingSubscriptions(wanted, undefined)).toEqual(wanted);
  });
});
