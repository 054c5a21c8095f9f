/**
 * One slow Redis reply must not drop the feed leadership. A private Redis
 * (CLIENT PAUSE stalls every client of the server, so not the shared one) is paused for less
 * than the lease: the renewals time out, the lease stays ours, leadership never flips. Paused
 * for longer than the lease, leadership is lost, and taken back afterwards.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLeaderLease, type LeaderLease } from '../../../daemon/market/feed/leader-lease.js';
import { startPrivateRedis, type PrivateRedis } from '../../helpers/redis-server.js';

/** A logger that resolves a promise when a message is logged. */
function recordingLogger() {
  const messages: string[] = [];
  const waiters: { text: string; resolve: () => void }[] = [];
  const log = (_obj: unknown, msg?: string) => {
    messages.push(msg ?? '');
    for (const w of waiters.splice(0)) (msg === w.text ? w.resolve() : waiters.push(w));
  };
  const logger = { info: log, warn: log, error: log, debug: log } as unknown as Logger;
  return { logger, messages, logged: (text: string) => new Promise<void>((resolve) => waiters.push({ text, resolve })) };
}

describe('feed leader lease under a slow Redis', () => {
  const bin = inject('redisServerBin');
  let redis: PrivateRedis;
  let admin: Redis;
  const open: { lease: LeaderLease; conn: Redis }[] = [];

  beforeAll(async () => {
    if (!bin) return;
    redis = await startPrivateRedis(bin);
    admin = new Redis(redis.url);
  });
  afterEach(async () => {
    for (const { lease, conn } of open.splice(0)) {
      await lease.stop();
      conn.disconnect();
    }
  });
  afterAll(async () => {
    admin?.disconnect();
    await redis?.stop();
  });

  /** A lease on an API-style command connection (fails fast: 100 ms command timeout). */
  function lease(leaseMs: number) {
    const conn = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 100 });
    conn.on('error', () => undefined);
    const log = recordingLogger();
    const changes: boolean[] = [];
    const waiting: { value: boolean; resolve: () => void }[] = [];
    const l = createLeaderLease({
      redis: conn, key: `lease-${leaseMs}`, instanceId: 'a', leaseMs, renewMs: Math.floor(leaseMs * 0.3), logger: log.logger,
      onChange: (leader) => {
        changes.push(leader);
        for (const w of waiting.splice(0)) (w.value === leader ? w.resolve() : waiting.push(w));
      },
    });
    open.push({ lease: l, conn });
    const became = (value: boolean) => new Promise<void>((resolve) => waiting.push({ value, resolve }));
    return { l, log, changes, became };
  }

  it.skipIf(!bin)('keeps the leadership through renewals that time out while the lease is still ours', async () => {
    // Given a leader on a 1.5 s lease renewed every 450 ms
    const { l, log, changes, became } = lease(1500);
    const acquired = became(true);
    l.start();
    await acquired;
    // When Redis stalls every reply for 700 ms (less than the lease)
    const failed = log.logged('feed lease: renewal failed; the lease is still ours, retrying');
    const renewed = log.logged('feed lease: renewed again; leadership kept');
    await admin.call('CLIENT', 'PAUSE', '700', 'ALL');
    // Then a renewal fails, the next one after the pause succeeds, and leadership never flipped
    await failed;
    await renewed;
    expect(changes).toEqual([true]);
    expect(l.isLeader()).toBe(true);
    expect(log.messages).not.toContain('feed leadership lost');
  });

  it.skipIf(!bin)('loses the leadership when Redis stalls past the lease, and takes it back afterwards', async () => {
    // Given a leader on a 600 ms lease
    const { l, changes, became } = lease(600);
    const acquired = became(true);
    l.start();
    await acquired;
    // When Redis stalls for 1.5 s (longer than the lease)
    const lost = became(false);
    const back = lost.then(() => became(true));
    await admin.call('CLIENT', 'PAUSE', '1500', 'ALL');
    // Then the leadership ends (the lease may have expired in Redis) and returns when Redis answers again
    await lost;
    await back;
    expect(changes).toEqual([true, false, true]);
  });
});
