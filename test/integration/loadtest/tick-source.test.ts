import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../../daemon/errors.js';
import type { PriceEvent } from '../../../daemon/market/events.js';
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
function startStub(): Promise<{ server: Server; url: string; accepted: TickInput[]; rejections: unknown[] }> {
  const quotes = new Map<string, PriceEvent>();
  const accepted: TickInput[] = [];
  const rejections: unknown[] = [];
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
    if (req.method !== 'POST' || req.url !== '/api/v1/admin/ticks' || req.headers.authorization !== 'Bearer admin-token-123') return send(401, {});
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const { ticks } = JSON.parse(text) as { ticks: TickInput[] };
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
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, accepted, rejections })));
}

describe('ingest tick source', () => {
  let stub: Awaited<ReturnType<typeof startStub>>;
  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(() => new Promise((r) => stub.server.close(r)));

  it('offers about the asked rate of ticks that pass the daemon\'s ingest rules, round-robin over the stocks', async () => {
    const source = ingestTickSource(createApiClient(stub.url), 'admin-token-123', 'user-token');
    await source.start(STOCKS.map((s) => s.code), 200);
    await new Promise((r) => setTimeout(r, 1000));
    const stats = await source.stop();
    expect(stub.rejections).toEqual([]);
    expect(stats.rejected).toBe(0);
    // 200 ticks/s for ~1 s (sent every 50 ms)
    expect(stats.accepted / stats.elapsedS).toBeGreaterThan(150);
    expect(stats.accepted / stats.elapsedS).toBeLessThan(220);
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
    await source.start(codes, 100);
    await new Promise((r) => setTimeout(r, 300));
    await source.stop();
    await source.start(codes, 100); // the storm stops and restarts its source
    await new Promise((r) => setTimeout(r, 300));
    expect((await source.stop()).rejected).toBe(0);
    const next = ingestTickSource(createApiClient(stub.url), 'admin-token-123', 'user-token'); // the next scenario's
    await next.start(codes, 100);
    await new Promise((r) => setTimeout(r, 300));
    expect((await next.stop()).rejected).toBe(0);
    expect(stub.rejections).toEqual([]);
  });

  it('counts rejected ticks with the reason', async () => {
    const source = ingestTickSource(createApiClient(stub.url), 'wrong-admin-token', 'user-token');
    await source.start(['005930'], 100);
    await new Promise((r) => setTimeout(r, 200));
    const stats = await source.stop();
    expect(stats.accepted).toBe(0);
    expect(stats.rejected).toBeGreaterThan(0);
    expect(stats.lastError).toMatch(/401/);
  });
});
