/**
 * The result cache as three daemons sharing a database and a Redis see it, with rate limits on:
 * an answer asked for once stays in the daemon that computed it; asked for a second time (on any
 * daemon) it is computed there and shared in Redis; a third daemon then answers it from Redis,
 * read in the rate limiter's own call, without counting the request.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyGeneratedMarket } from '../../helpers/backtest-market.js';
import { startTestDaemon, testRedisUrl, type TestDaemon } from '../../helpers/test-daemon.js';

describe('a screen answer shared between daemons once it is asked for again', () => {
  let a: TestDaemon;
  let b: TestDaemon;
  let c: TestDaemon;
  let redis: Redis;
  let token: string;
  const limits = { rate_limit: { enabled: true, endpoints: { 'POST /screen': 50 } } };

  beforeAll(async () => {
    a = await startTestDaemon('cache-admission', limits);
    await applyGeneratedMarket(a.daemon, ['2026-03-02', '2026-03-03', '2026-03-04']);
    b = await startTestDaemon('cache-admission-b', { ...limits, redis_prefix: a.prefix, ...a.store });
    c = await startTestDaemon('cache-admission-c', { ...limits, redis_prefix: a.prefix, ...a.store });
    token = (await a.login()).access_token;
    redis = new Redis(testRedisUrl());
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await c?.close();
    await b?.close();
    await a?.close();
  });

  /** Answers stored in Redis under the daemons' prefix. */
  const shared = async () => (await redis.keys(`${a.prefix}screen:*`)).length;
  const screen = async (t: TestDaemon) => {
    const res = await t.request('/api/v1/screen', { method: 'POST', json: { filters: { close: { min: 1 } }, sort: [{ field: 'close', direction: 'desc' }], limit: 20 }, token });
    expect(res.status).toBe(200);
    return { cache: res.headers.get('x-cache'), remaining: Number(res.headers.get('x-ratelimit-remaining')), codes: ((await res.json()) as { data: { code: string }[] }).data.map((s) => s.code) };
  };

  it('keeps a first answer in process, shares a second one, and answers a third daemon from Redis for free', async () => {
    // Given a screen nobody ran yet, asked on daemon A
    const first = await screen(a);
    expect(first.cache).toBe('MISS');
    expect(first.codes.length).toBeGreaterThan(0);
    // Then it is computed and counted, and not written to Redis
    expect(await shared()).toBe(0);
    // When it is asked again on daemon B, which never saw it
    const second = await screen(b);
    // Then B computes it (counted) and shares it
    expect(second.cache).toBe('MISS');
    expect(second.remaining).toBe(first.remaining - 1);
    expect(await shared()).toBe(1);
    // And daemon C answers it from Redis, not counting the request
    const third = await screen(c);
    expect(third.cache).toBe('HIT');
    expect(third.remaining).toBe(second.remaining);
    expect(third.codes).toEqual(first.codes);
    // And A answers it from its own memory, not counting it either
    const again = await screen(a);
    expect([again.cache, again.remaining]).toEqual(['HIT', second.remaining]);
  });
});
