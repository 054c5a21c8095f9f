/**
 * An Idempotency-Key whose first request met a paused Redis stays usable. The daemon's command
 * connection gives up on a paused Redis (503), but Redis still runs the queued SET NX once the
 * pause ends: the key must not then stay "still being answered" for the pending entry's whole
 * lifetime (the CLI's `load --wait` would hear 409 on every retry for a minute).
 */
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isAppError } from '../../../daemon/errors.js';
import { createIdempotencyStore } from '../../../daemon/http/idempotency.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { createRedisFactory } from '../../../daemon/infra/redis.js';
import { startPrivateRedis, type PrivateRedis } from '../../helpers/redis-server.js';

const bin = inject('redisServerBin');

describe.skipIf(!bin)('an Idempotency-Key claimed while Redis is paused', () => {
  let redis: PrivateRedis;
  let admin: Redis;
  let commands: Redis;

  beforeAll(async () => {
    redis = await startPrivateRedis(bin!);
    admin = new Redis(redis.url);
    // The daemon's own kind of connection: commands time out instead of waiting for Redis.
    const factory = createRedisFactory({ url: redis.url, prefix: 'idem-pause:', logger: createLogger('silent'), commandTimeoutMs: 200 });
    commands = factory.connect('command', 'idem-pause');
    await once(commands, 'ready');
  });
  afterAll(async () => {
    await admin?.call('CLIENT', 'UNPAUSE').catch(() => undefined);
    admin?.disconnect();
    commands?.disconnect();
    await redis?.stop();
  });

  it('answers 503 during the pause, and the same key is free for the retry once Redis answers again', async () => {
    const store = createIdempotencyStore(commands, (...parts) => `idem-pause:${parts.join(':')}`, 'admin-jobs');
    const body = { type: 'compute-indicators' };
    // Given Redis paused for writes longer than the daemon waits for a command
    await admin.call('CLIENT', 'PAUSE', '60000', 'WRITE');
    // When a request claims its key: the daemon cannot tell whether the claim was taken
    const refused = await store.claim('user-1', 'key-1', body).then(() => null, (err: unknown) => err);
    expect(isAppError(refused) && refused.code).toBe('SERVICE_UNAVAILABLE');
    // Then once Redis answers again, the retry with the same key is a new request, not "in progress"
    await admin.call('CLIENT', 'UNPAUSE');
    const retry = await store.claim('user-1', 'key-1', body);
    expect(retry.kind).toBe('new');
    // And the key it took is its own: a third try hears that it is being answered
    const third = await store.claim('user-1', 'key-1', body).then(() => null, (err: unknown) => err);
    expect(isAppError(third) && third.details.in_progress).toBe(true);
  });
});
