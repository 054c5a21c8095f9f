import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../../daemon/errors.js';
import type { PriceEvent } from '../../../daemon/kernel/events.js';
import { applyTicks, type TickInput } from '../../../daemon/market/feed/ingest.js';
import type { FeedStock } from '../../../daemon/market/feed/types.js';
import { createApiClient } from '../../../loadtest/api.js';
import { ingestTickSource } from '../../../loadtest/ws/tick-source.js';

// Prices in three tick bands: 1,995 (tick 1), 71,500 (tick 100), 512,000 (tick 1,000).
const STOCKS: FeedStock[] = [
  { code: '005930', name: 'Samsung', market: 'KOSPI', sector: null, prev_close: 71_500 },
  { code: '091990', name: 'Celltrion H', market: 'KOSDAQ', sector: null, prev_close: 1_995 },
  { code: '000660', name: 'SK hynix', market: 'KOSPI', sector: null, prev_close: 512_000 },
];

/**
 * A stand-in for the daemon's two endpoints the ingest source uses: GET …/price (the close)
 * and POST /admin/ticks validated by the daemon's own `applyTicks` (grid, ±30 %, volume).
 */
interface Stub {
  server: Server;
  url: string;
  accepted: TickInput[];
  /** Ticks per POST, in arrival order (accepted or not). */
  batches: number[];
  rejections: unknown[];
  /** Resolves once `n` more POSTs (from now) have been answered. */
  posts(n: number): Promise<void>;
}

function startStub(): Promise<Stub> {
  const quotes = new Map<string, PriceEvent>();
  const accepted: TickInput[] = [];
  const batches: number[] = [];
  const rejections: unknown[] = [];
  const waiters: { until: number; resolve: () => void }[] = [];
  const answered = () => {
    for (const w of waiters.splice(0)) (batches.length >= w.until ? w.resolve() : waiters.push(w));
  };
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const price = /^\/api\/v1\/stocks\/(\w+)\/price$/.exec(req.url ?? '');
    if (req.method === 'GET' && price) {
      // Like the daemon: the live quote when ticks arrived today, else the last close.
      const s = STOCKS.find((x) => x.code === price[1]);
      const live = quotes.get(price[1]!);
      if (live) return send(200, { data: { price: live.price, volume: live.volume } });
      return s ? send(200, { data: { price: s.prev_close, volume: 1000 } }) : send(404, {});
    }
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/api/v1/admin/ticks') return send(404, {});
      const { ticks } = JSON.parse(text) as { ticks: TickInput[] };
      batches.push(ticks.length);
      res.once('finish', answered);
      if (req.headers.authorization !== 'Bearer admin-token-123') return send(401, {});
      try {
        const events = applyTicks(ticks, { lookup: (c) => STOCKS.find((s) => s.code === c) ?? null, current: (c) => quotes.get(c) ?? null, now: Date.now() }, true);
        for (const e of events) if (e.type === 'price') quotes.set(e.code, e);
        accepted.push(...ticks);
        send(202, { data: { accepted: ticks.length } });
      } catch (err) {
        rejections.push(isAppError(err) ? err.details : String(err));
        send(400, { error: { code: 'INVALID_REQUEST' } });
      }
    });
  });
  const posts = (n: number) => new Promise<void>((resolve) => waiters.push({ until: batches.length + n, resolve }));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, accepted, batches, rejections, posts })));
}

describe('ingest tick source', () => {
  let stub: Awaited<ReturnType<typeof startStub>>;
  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(() => new Promise((r) => stub.server.close(r)));

  it('offers the asked rate of ticks that pass the daemon\'s ingest rules, round-robin over the stocks', async () => {
    // Given a source asked for 200 ticks/s
    const source = ingestTickSource(createApiClient(stub.url), 'admin-token-123', 'user-token');
    const before = stub.batches.length;
    const twenty = stub.posts(20);
    await source.start(STOCKS.map((s) => s.code), 200);
    // When twenty of its POSTs have been answered
    await twenty;
    const stats = await source.stop();
    expect(stub.rejections).toEqual([]);
    expect(stats.rejected).toBe(0);
    // Then each carries one interval's share of the rate: 200 ticks/s × 50 ms = 10 ticks (the rate, without a clock)
    expect(new Set(stub.batches.slice(before))).toEqual(new Set([10]));
    expect(stats.accepted).toBe(stub.accepted.length);
    const perCode = STOCKS.map((s) => stub.accepted.filter((t) => t.code === s.code).length);
    expect(Math.max(...perCode) - Math.min(...perCode)).toBeLessThanOrEqual(1);
    // Prices alternate between the close and one tick above it.
    expect(new Set(stub.accepted.filter((t) => t.code === '005930').map((t) => t.price))).toEqual(new Set([71_500, 71_600]));
    expect(new Set(stub.accepted.filter((t) => t.code === '000660').map((t) => t.price))).toEqual(new Set([512_000, 513_000]));
  });

  it('continues with rising volume after a pause, and a new source continues from the live quote', async () => {
    const codes = STOCKS.map((s) => s.code);
    const source = ingestTickSource(createApiClient(stub.url), 'admin-token-123', 'user-token');
    const running = async (s: typeof source) => {
      const some = stub.posts(4);
      await s.start(codes, 100);
      await some;
      return s.stop();
    };
    await running(source);
    expect((await running(source)).rejected).toBe(0); // the storm stops and restarts its source
    const next = ingestTickSource(createApiClient(stub.url), 'admin-token-123', 'user-token'); // the next scenario's
    expect((await running(next)).rejected).toBe(0);
    expect(stub.rejections).toEqual([]);
  });

  it('counts rejected ticks with the reason', async () => {
    const source = ingestTickSource(createApiClient(stub.url), 'wrong-admin-token', 'user-token');
    const refused = stub.posts(2);
    await source.start(['005930'], 100);
    await refused;
    const stats = await source.stop();
    expect(stats.accepted).toBe(0);
    expect(stats.rejected).toBeGreaterThan(0);
    expect(stats.lastError).toMatch(/401/);
  });
});
