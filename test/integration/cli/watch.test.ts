/**
 * `stockscreen watch` and `ws-stats` against a real daemon: ticks ingested through
 * POST /admin/ticks arrive as NDJSON price updates; a connection dropped by the server
 * is re-established and its session restored without sequence gaps.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Connection } from '../../../daemon/ws/connection.js';
import { createWsClient, type WsClientEvent } from '../../../cli/services/transport/ws-client.js';
import { priceNear, startMarketHarness, streamIO, ttyIO, type MarketHarness } from './market-harness.js';

type Msg = Record<string, unknown> & { type: string; sequence: number };

describe('stockscreen watch', () => {
  let h: MarketHarness;
  let volume = 1000;
  /** Day volume must not decrease: every tick adds some. */
  const tick = (code: string, price: number) => h.tick(code, price, (volume += 100));
  /** The daemon-side connections, newest last. */
  const connections: Connection[] = [];

  beforeAll(async () => {
    h = await startMarketHarness('cli-watch');
    h.t.daemon.context().realtime.gateway.events.on('connection', (c: Connection) => connections.push(c));
  });
  afterAll(() => h?.close());

  it('streams the ingested prices as NDJSON and stops after --count messages', async () => {
    const [a, b] = h.stocks as [(typeof h.stocks)[0], (typeof h.stocks)[0]];
    const io = streamIO();
    const done = h.cli(['watch', a.code, b.code, '--json', '--count', '5'], io);
    await io.waitForJson((m) => m.type === 'subscribed');
    const up = await tick(a.code, priceNear(a.close, 2));
    const down = await tick(b.code, priceNear(b.close, -2));
    const { code } = await done;
    expect(code).toBe(0);
    const msgs = io.lines().map((l) => JSON.parse(l) as Msg);
    // After the ack, the current status of the stocks' market (the harness runs always-open).
    expect(msgs.map((m) => m.type)).toEqual(['connected', 'subscribed', 'market_status', 'price_update', 'price_update']);
    expect(msgs[1]).toMatchObject({ subscription_type: 'stock', targets: [a.code, b.code] });
    expect(msgs[2]).toMatchObject({ status: 'open' });
    expect(msgs[3]).toMatchObject({ code: a.code, name: a.name, price: up, change: up - a.close });
    expect(msgs[4]).toMatchObject({ code: b.code, name: b.name, price: down, change: down - b.close });
    // Every message carries a sequence; they only go up (batch frames take the numbers in between).
    const seqs = msgs.map((m) => m.sequence);
    expect(seqs.every((s, i) => i === 0 || s > seqs[i - 1]!)).toBe(true);
    expect(io.err()).toContain(`connected (session ${String(msgs[0]!.session_id)})`);
    expect(io.err()).not.toContain('sequence');
  });

  it('reconnects by itself when the server drops the connection, restores the session and misses nothing', async () => {
    const a = h.stocks[2]!;
    const stop = new AbortController();
    const io = streamIO({ signal: stop.signal });
    const done = h.cli(['watch', a.code, '--json'], io);
    const hello = await io.waitForJson((m) => m.type === 'subscribed').then(() => io.waitForJson((m) => m.type === 'connected'));
    const before = await tick(a.code, priceNear(a.close, 1));
    await io.waitForJson((m) => m.type === 'price_update' && m.price === before);

    // When the daemon closes the socket, and a tick comes while the client is away
    const gone = new Promise((resolve) => h.t.daemon.context().realtime.gateway.events.once('close', resolve));
    connections.at(-1)!.close(4000, 'test drop');
    await gone;
    const during = await tick(a.code, priceNear(a.close, 3));

    // Then the client is back on the same session, and gets that tick and later ones
    const back = await io.waitForJson((m) => m.type === 'reconnected');
    expect(back).toMatchObject({ session_id: hello.session_id, restored_subscriptions: { stock: [a.code], market: [], sector: [] } });
    await io.waitForJson((m) => m.type === 'price_update' && m.price === during);
    const after = await tick(a.code, priceNear(a.close, 4));
    await io.waitForJson((m) => m.type === 'price_update' && m.price === after);
    stop.abort();
    expect((await done).code).toBe(0);

    const msgs = io.lines().map((l) => JSON.parse(l) as Msg);
    // The tick sent while away arrives exactly once (replayed, or live if the client was already back).
    expect(msgs.filter((m) => m.type === 'price_update' && m.price === during)).toHaveLength(1);
    const seqs = msgs.map((m) => m.sequence);
    expect(seqs.every((s, i) => i === 0 || s > seqs[i - 1]!)).toBe(true);
    expect(io.err()).toMatch(/connection lost \(connection closed \(4000 test drop\)\); reconnecting in \d+ms \(attempt 1\)/);
    expect(io.err()).toMatch(new RegExp(`reconnected: session ${String(hello.session_id)} restored, \\d+ missed message\\(s\\) replayed`));
    expect(io.err()).not.toContain('sequence gap');
  });

  it('continues the exact frame numbering across a restoration (client service on the real gateway)', async () => {
    const a = h.stocks[3]!;
    const client = createWsClient({ baseUrl: h.t.url, subscriptions: [{ subscription_type: 'stock', targets: [a.code] }] });
    const events: WsClientEvent[] = [];
    const seen = (pred: (e: WsClientEvent) => boolean) =>
      new Promise<void>((resolve) => {
        if (events.some(pred)) return resolve();
        const off = client.on((e) => pred(e) && (off(), resolve()));
      });
    client.on((e) => events.push(e));
    try {
      await client.start();
      await seen((e) => e.type === 'message' && e.message.type === 'subscribed');
      const p1 = await tick(a.code, priceNear(a.close, -1));
      await seen((e) => e.type === 'message' && e.message.price === p1);
      const gone = new Promise((resolve) => h.t.daemon.context().realtime.gateway.events.once('close', resolve));
      connections.at(-1)!.close(1011, 'test drop');
      await gone;
      await seen((e) => e.type === 'status' && e.status.state === 'restored');
      const p2 = await tick(a.code, priceNear(a.close, -3));
      await seen((e) => e.type === 'message' && e.message.price === p2);
      expect(events.filter((e) => e.type === 'anomaly')).toEqual([]);
      const states = events.flatMap((e) => (e.type === 'status' ? [e.status.state] : []));
      expect(states).toEqual(['connecting', 'connected', 'reconnecting', 'connecting', 'restored']);
    } finally {
      await client.stop();
    }
  });

  it('draws the live screen on a terminal, seeded with the last close, until --count', async () => {
    const [a, b] = [h.stocks[5]!, h.stocks[6]!];
    const io = ttyIO();
    const done = h.cli(['--no-color', 'watch', a.code, b.code, '--count', '4'], io);
    // The server holds the subscription (asked right after the hello): then the tick reaches the screen.
    const gateway = h.t.daemon.context().realtime.gateway;
    await vi.waitFor(() => expect(gateway.connections().flatMap((c) => c.subscriptions.stock)).toEqual([a.code, b.code]), { timeout: 10_000 });
    const price = await tick(a.code, priceNear(a.close, 2));
    expect((await done).code).toBe(0);
    const screen = stripVTControlCharacters(io.out());
    // connected + subscribed + the market status + the price update
    expect(screen).toContain('4 messages');
    expect(screen).toMatch(/K(OSPI|OSDAQ) open/);
    expect(screen).toMatch(new RegExp(`${a.code}\\s+${a.name}\\s+${price.toLocaleString('en-US')}\\s+\\+${(price - a.close).toLocaleString('en-US')}`));
    // b had no tick: its row shows the last close from GET /stocks/{code}/price.
    expect(screen).toMatch(new RegExp(`${b.code}\\s+${b.name}\\s+${b.close.toLocaleString('en-US')}`));
    expect(screen).toContain('red = up, blue = down');
    expect(io.err()).toBe('');
  });

  it('reports usage errors with exit 2 and unknown codes with exit 1', async () => {
    const none = await h.cli(['watch']);
    expect(none.code).toBe(2);
    expect(none.io.err()).toContain('error: nothing to watch');
    const bad = await h.cli(['watch', '5930']);
    expect(bad.code).toBe(2);
    expect(bad.io.err()).toContain('"5930" is not a stock code');
    const market = await h.cli(['watch', '--market', 'NYSE']);
    expect(market.code).toBe(2);
    // Nothing listens on the port of a closed server: the URL tried and how to start the daemon.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const down = await h.cli(['--url', `http://127.0.0.1:${port}`, 'watch', '005930', '--json']);
    expect(down.code).toBe(1);
    expect(down.io.err()).toContain(`error: cannot reach stockscreend at http://127.0.0.1:${port}`);
    expect(down.io.err()).toContain('hint: start it with `stockscreen daemon start`');
    const unknown = await h.cli(['watch', '999999', '--json']);
    expect(unknown.code).toBe(1);
    expect(unknown.io.err()).toMatch(/error: nothing to watch: Unknown stock code\(s\): 999999 \(SUBSCRIPTION_FAILED\)/);
  });

  it('shows /v1/ws/stats: the API body with --json, a raw row when piped, n samples with --watch', async () => {
    const a = h.stocks[0]!;
    const stop = new AbortController();
    const io = streamIO({ signal: stop.signal });
    const done = h.cli(['watch', a.code, '--json'], io);
    await io.waitForJson((m) => m.type === 'subscribed');
    try {
      const res = await h.cli(['--json', 'ws-stats']);
      expect(res.code).toBe(0);
      const body = JSON.parse(res.io.out());
      // The spec's fields at the top level of the body and inside data; reality: one watcher, one stock subscription.
      for (const stats of [body, body.data]) {
        expect(stats).toMatchObject({
          active_connections: 1, total_subscriptions: 1, subscriptions_by_type: { stock: 1, market: 0, sector: 0 },
          batching_enabled: true, batch_interval_ms: 30, rate_limiting_enabled: true, rate_limit: 100,
        });
        for (const f of ['messages_sent', 'saved_sessions', 'queued_messages']) expect(typeof stats[f]).toBe('number');
      }
      const plain = await h.cli(['ws-stats']);
      const row = plain.io.out().trimEnd().split('\t');
      expect(row).toHaveLength(8);
      expect(row.slice(1, 3)).toEqual(['1', '1']);
      const watch = await h.cli(['--json', 'ws-stats', '--watch', '--interval', '100ms', '--count', '2']);
      expect(watch.code).toBe(0);
      expect(watch.io.out().trimEnd().split('\n').map((l) => JSON.parse(l).active_connections)).toEqual([1, 1]);
      const rows = (await h.cli(['ws-stats', '--watch', '--interval', '100ms', '--count', '2'])).io.out().trimEnd().split('\n');
      expect(rows.map((r) => r.split('\t')[1])).toEqual(['1', '1']);
      // On a terminal: the record once, the dashboard with --watch.
      expect((await h.cli(['--no-color', 'ws-stats'], ttyIO())).io.out()).toMatch(/active_connections\s+1\n/);
      const dashboard = stripVTControlCharacters((await h.cli(['--no-color', 'ws-stats', '--watch', '--interval', '100ms', '--count', '2'], ttyIO())).io.out());
      expect(dashboard).toMatch(/connections\s+1\s+▄▄/);
      expect(dashboard).toMatch(/subscriptions\s+1\s+\(stock 1 · market 0 · sector 0\)/);
      expect((await h.cli(['ws-stats', '--watch', '--interval', '10ms'])).code).toBe(2);
    } finally {
      stop.abort();
      await done;
    }
  });
});
