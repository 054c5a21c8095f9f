import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { createTokenService } from '../../../daemon/auth/tokens.js';
import { buildApp, type BuiltApp } from '../../../daemon/http/app.js';
import { registerAdminTickRoutes } from '../../../daemon/http/routes/admin-ticks.js';
import { systemClock } from '../../../daemon/infra/clock.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { createMetrics } from '../../../daemon/infra/metrics.js';
import type { UsersRepo } from '../../../daemon/store/users-repo.js';
import { openFeedFixture, type FeedFixture } from './feed-fixture.js';

describe('POST /admin/ticks', () => {
  let f: FeedFixture;
  let server: Server;
  let base: string;
  let http: BuiltApp;
  let adminToken: string;
  let userToken: string;

  beforeAll(async () => {
    f = await openFeedFixture('admin-ticks');
    const { feed } = await f.feed({ mode: 'ingest', consumeStream: false });
    await feed.start();
    const tokens = createTokenService({ secret: 'admin-ticks-test-secret-0123456789abcdef', ttlSeconds: 3600, clock: systemClock, isRevoked: async () => false });
    const roles: Record<string, 'admin' | 'user'> = { a1: 'admin', u1: 'user' };
    const users = { findById: async (id: string) => (roles[id] ? { id, role: roles[id], tier: 'pro' } : undefined) } as unknown as UsersRepo;
    http = buildApp({
      logger: createLogger('silent'), metrics: createMetrics(), tokens, users, bodyLimit: '1mb', trustProxy: false, version: 'test',
      isDraining: () => false, health: { pingDb: async () => true, pingRedis: async () => true },
      registrars: [(api) => registerAdminTickRoutes(api, { feed })],
    });
    server = createServer(http.app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    adminToken = (await tokens.sign({ id: 'a1', role: 'admin', tier: 'pro' })).token;
    userToken = (await tokens.sign({ id: 'u1', role: 'user', tier: 'pro' })).token;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await f.close();
  });

  const post = (path: string, body: unknown, token?: string) =>
    fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

  it('accepts one tick with 202 and makes it the live quote', async () => {
    const res = await post('/api/v1/admin/ticks', { code: '005930', price: 72_000, volume: 100 }, adminToken);
    expect(res.status).toBe(202);
    expect(((await res.json()) as any).data).toEqual({ accepted: 1 });
    expect(await f.quotes.getQuote('005930')).toMatchObject({ price: 72_000, volume: 100, change: 2_000 });
  });

  it('accepts a batch under /v1 as well', async () => {
    const res = await post('/v1/admin/ticks', { ticks: [{ code: '035720', price: 40_500, volume: 1 }, { code: '091990', price: 1_999, volume: 3 }] }, adminToken);
    expect(res.status).toBe(202);
    expect(((await res.json()) as any).data).toEqual({ accepted: 2 });
  });

  it('names each bad tick by index, for schema and market-rule problems alike', async () => {
    const schema = await post('/api/v1/admin/ticks', { ticks: [{ code: '005930', price: 72_000, volume: 200 }, { code: '005930', price: 0, volume: 300 }] }, adminToken);
    expect(schema.status).toBe(400);
    const schemaBody = (await schema.json()) as any;
    expect(schemaBody.error.code).toBe('INVALID_REQUEST');
    expect(Object.keys(schemaBody.error.details)).toEqual(['ticks[1].price']);
    // 1,999 → 2,005 crosses into the 5-won band: 2,001 is off the grid; 91,100 is above the 91,000 limit
    const rules = await post('/api/v1/admin/ticks', { ticks: [{ code: '091990', price: 2_001, volume: 4 }, { code: '005930', price: 91_100, volume: 300 }] }, adminToken);
    expect(rules.status).toBe(400);
    const rulesBody = (await rules.json()) as any;
    expect(Object.keys(rulesBody.error.details).sort()).toEqual(['ticks[0].price', 'ticks[1].price']);
    expect(rulesBody.error.details['ticks[1].price']).toMatch(/daily limit 49,000–91,000/);
  });

  it('is admin only', async () => {
    expect((await post('/api/v1/admin/ticks', { code: '005930', price: 72_000, volume: 500 })).status).toBe(401);
    expect((await post('/api/v1/admin/ticks', { code: '005930', price: 72_000, volume: 500 }, userToken)).status).toBe(403);
  });

  it('is documented with its request body', () => {
    const doc = http.openapi() as { paths: Record<string, { post?: { requestBody?: unknown; responses: Record<string, unknown> } }> };
    const op = doc.paths['/api/v1/admin/ticks']?.post;
    expect(op?.requestBody).toBeDefined();
    expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(['202', '400', '401', '403', '503']));
  });
});
