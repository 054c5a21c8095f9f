/**
 * Building runs nothing: a daemon built but not listening has no repeating timer, no Redis
 * subscription, no stream reader blocked on the market bus, no job worker and no gateway
 * liveness key; listen() starts them all and close() stops them and closes every connection. The daemon runs on a private
 * Redis so that every client CLIENT LIST shows is this daemon's.
 */
import { rm } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { parseConfig } from '../../../daemon/config.js';
import { buildDaemon, type BuiltDaemon } from '../../../daemon/daemon.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { startPrivateRedis, type PrivateRedis } from '../../helpers/redis-server.js';
import { freshStoreSettings } from '../../helpers/test-store.js';

const bin = inject('redisServerBin');

/** One CLIENT LIST entry as field → value. */
type Client = Record<string, string>;

async function clients(admin: Redis): Promise<Client[]> {
  const list = (await admin.call('CLIENT', 'LIST')) as string;
  return list.trim().split('\n').map((line) => Object.fromEntries(line.split(' ').map((kv) => {
    const at = kv.indexOf('=');
    return [kv.slice(0, at), kv.slice(at + 1)];
  })));
}

/** What of the daemon runs in Redis: subscribers, readers blocked on a stream, the job workers of its queues, gateway liveness keys. */
async function runningInRedis(admin: Redis, built: BuiltDaemon, prefix: string) {
  const all = (await clients(admin)).filter((c) => c.name !== 'probe');
  const { jobs } = built.context;
  const workers = await Promise.all([jobs.market.queue.getWorkers(), jobs.delivery.queue.getWorkers(), jobs.backtest.queue.getWorkers()]);
  return {
    subscribers: all.filter((c) => Number(c.sub) > 0 || Number(c.psub) > 0).length,
    streamReaders: all.filter((c) => c.cmd === 'xread').length,
    workers: workers.map((w) => w.length),
    liveness: (await admin.keys(`${prefix}ws:gateway:*`)).length,
  };
}

describe.skipIf(!bin)('a built daemon that does not listen', () => {
  const prefix = 'runs-nothing:';
  let redis: PrivateRedis;
  let admin: Redis;
  let dataDir = '';
  // Every repeating timer set in this process and not cleared yet.
  const intervals = new Set<unknown>();

  beforeAll(async () => {
    redis = await startPrivateRedis(bin!);
    admin = new Redis(redis.url, { connectionName: 'probe' });
    const setInterval = globalThis.setInterval;
    const clearInterval = globalThis.clearInterval;
    vi.spyOn(globalThis, 'setInterval').mockImplementation(((...args: Parameters<typeof setInterval>) => {
      const timer = setInterval(...args);
      intervals.add(timer);
      return timer;
    }) as typeof setInterval);
    vi.spyOn(globalThis, 'clearInterval').mockImplementation((timer) => {
      intervals.delete(timer);
      clearInterval(timer);
    });
  }, 30_000);
  afterAll(async () => {
    vi.restoreAllMocks();
    admin?.disconnect();
    await redis?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('runs no timer, subscription, stream reader or worker until listen(), and close() stops what listen() started', async () => {
    // Given a daemon with every moving part switched on: the simulator feed on an open market,
    // market, delivery and backtest workers
    const store = await freshStoreSettings('runs-nothing');
    dataDir = store.data_dir;
    const config = parseConfig({
      host: '127.0.0.1', port: 0, redis_url: redis.url, redis_prefix: prefix, log_level: 'silent', ...store,
      jwt_secret: 'test-secret-test-secret-test-secret-0123456789', workers: 1, delivery_workers: 1, backtest_workers: 1,
      feed: 'simulator', market_clock: 'always-open', feed_interval_ms: 100, rate_limit: { enabled: false },
    });

    // When it is built
    const built = await buildDaemon(config, { logger: createLogger('silent') });
    try {
      // Then nothing of it runs
      expect(intervals.size).toBe(0);
      expect(await runningInRedis(admin, built, prefix)).toEqual({ subscribers: 0, streamReaders: 0, workers: [0, 0, 0], liveness: 0 });
      expect(built.context.realtime.bus.position()).toBeNull();

      // When it listens, every part runs (the check above could fail)
      await built.listen();
      expect(intervals.size).toBeGreaterThan(0);
      await vi.waitFor(async () => {
        const running = await runningInRedis(admin, built, prefix);
        expect(running.subscribers).toBeGreaterThan(0);
        expect(running.streamReaders).toBe(1);
        expect(running.workers.every((n) => n > 0)).toBe(true);
        expect(running.liveness).toBe(1);
      }, { timeout: 10_000, interval: 50 });
    } finally {
      // When it closes
      await built.close();
    }
    // Then what listen() started is stopped, and every connection building opened is closed
    expect(intervals.size).toBe(0);
    await vi.waitFor(async () => expect((await clients(admin)).filter((c) => c.name !== 'probe')).toEqual([]), { timeout: 10_000, interval: 50 });
    expect(await admin.keys(`${prefix}ws:gateway:*`)).toEqual([]);
  }, 60_000);
});
