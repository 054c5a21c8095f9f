import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../helpers/redis-server.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

describe('health endpoints', () => {
  const bin = inject('redisServerBin');
  let redis: PrivateRedis;
  let t: TestDaemon;
  beforeAll(async () => {
    if (!bin) return;
    redis = await startPrivateRedis(bin);
    t = await startTestDaemon('health', { redis_url: redis.url });
  });
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  it.skipIf(!bin)('reports healthy, connected db and connected redis', async () => {
    const health = await t.request('/health');
    expect(health.status).toBe(200);
    const body = (await health.json()) as any;
    expect(body.status).toBe('healthy');
    expect(Date.parse(body.timestamp)).not.toBeNaN();
    expect(((await (await t.request('/health/db')).json()) as any)).toMatchObject({ status: 'healthy', database: 'connected' });
    expect(((await (await t.request('/health/redis')).json()) as any)).toMatchObject({ status: 'healthy', redis: 'connected' });
  });

  it.skipIf(!bin)('answers 503 unhealthy/disconnected for Redis when it stops, and keeps serving', async () => {
    await redis.stop();
    const res = await t.request('/health/redis');
    expect(res.status).toBe(503);
    expect((await res.json()) as any).toMatchObject({ status: 'unhealthy', redis: 'disconnected' });
    // The daemon itself and the database stay up; accounts still work.
    expect((await t.request('/health')).status).toBe(200);
    expect((await t.request('/health/db')).status).toBe(200);
    const reg = await t.request('/api/v1/auth/register', { method: 'POST', json: { email: 'r@example.com', password: 'long enough pw' } });
    expect(reg.status).toBe(201);
  });
});

describe('health with a Redis that never answered', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon('health-unreachable', { redis_url: 'redis://127.0.0.1:1' });
  });
  afterAll(() => t.close());

  it('starts anyway and reports Redis as disconnected', async () => {
    expect((await t.request('/health')).status).toBe(200);
    const res = await t.request('/health/redis');
    expect(res.status).toBe(503);
    expect(((await res.json()) as any).redis).toBe('disconnected');
  });
});
