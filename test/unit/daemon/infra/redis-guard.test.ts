/** The Redis guard: late replies read after our own busy spells count; only repeated failures open the circuit. */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedisGuard, RedisUnavailableError } from '../../../../daemon/infra/redis-guard.js';

/** Block the event loop for `ms` (a busy daemon), synchronously. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // nothing
  }
}

describe('redis guard', () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis(inject('redisUrl'), { enableAutoPipelining: false });
    await redis.ping();
  });
  afterAll(() => redis.disconnect());

  it('uses a reply that arrived while the event loop was blocked past the deadline', async () => {
    const guard = createRedisGuard(redis, { timeoutMs: 5, failuresToTrip: 1 });
    const reply = guard.run(() => redis.ping());
    spin(50); // the deadline passes while the reply waits in the socket
    await expect(reply).resolves.toBe('PONG');
    expect(guard.available()).toBe(true);
  });

  it('fails a call whose reply never comes, and opens the circuit after consecutive failures', async () => {
    const guard = createRedisGuard(redis, { timeoutMs: 10, failuresToTrip: 2 });
    const never = () => new Promise<string>(() => undefined);
    await expect(guard.run(never)).rejects.toBeInstanceOf(RedisUnavailableError);
    expect(guard.available()).toBe(true);
    await expect(guard.run(never)).rejects.toBeInstanceOf(RedisUnavailableError);
    expect(guard.available()).toBe(false);
    // Open: one probe goes out; a second call meanwhile fails at once without being sent.
    let sent = 0;
    const probe = guard.run(() => (sent++, redis.ping()));
    await expect(guard.run(() => (sent++, redis.ping()))).rejects.toThrow(/recent commands failed/);
    await expect(probe).resolves.toBe('PONG');
    expect(sent).toBe(1);
    expect(guard.available()).toBe(true);
  });

  it('refuses at once, sending nothing, while the connection is not ready', async () => {
    const closed = new Redis(inject('redisUrl'), { lazyConnect: true });
    const guard = createRedisGuard(closed, { timeoutMs: 1000, failuresToTrip: 3 });
    let sent = false;
    await expect(guard.run(() => ((sent = true), closed.ping()))).rejects.toThrow(/connection wait/);
    expect(sent).toBe(false);
    closed.disconnect();
  });
});
