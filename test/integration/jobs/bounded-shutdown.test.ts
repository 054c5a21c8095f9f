/**
 * A daemon stops within its shutdown bound (`shutdown_timeout_ms`) in every state: real
 * `bin/stockscreend` processes, each on a private Redis this file may pause or stop.
 *
 * - SIGTERM while a market load runs: the load stops at its next progress report, rolls back and
 *   goes back to the queue (waiting, not failed); the process exits before the bound; nothing of
 *   the load is visible; a restarted daemon runs it to completion.
 * - A second SIGTERM while the shutdown is held up (its Redis frozen) ends the process at once.
 * - SIGTERM after its Redis went away: the process exits before the bound (no endless reconnecting).
 *
 * Moments are exact, not timed: on the job's progress event the test freezes the Redis for
 * writes (CLIENT PAUSE), so the daemon's job stops at its next progress report until unpaused.
 */
import { join } from 'node:path';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type MarketJobs } from '../../../daemon/jobs/market-jobs.js';
import { jobRequestSchema, type JobProgress } from '../../../daemon/jobs/types.js';
import { startDaemonProcess, type DaemonProcess } from '../../helpers/daemon-processes.js';
import { waitForJobAt } from '../../helpers/jobs.js';
import { marketFingerprint as fingerprint, openMarketQueueFixture, type MarketQueueFixture } from '../../helpers/market-queue-fixture.js';
import { startPrivateRedis, type PrivateRedis } from '../../helpers/redis-server.js';
import { testBackend, type TestDb } from '../../helpers/test-store.js';

const bin = inject('redisServerBin');
/** The shutdown bound the daemons are given (ms). */
const BOUND_MS = 15_000;

/** Row count and a sha256 of every row of every market table. */
/** How long `daemon` took to exit after `send()`; rejects when it is still running after a generous minute. */
async function exitAfter(daemon: DaemonProcess, send: () => void): Promise<{ ms: number; code: number | null; signal: NodeJS.Signals | null }> {
  const started = Date.now();
  send();
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running 60 s after the signal:\n${daemon.log().slice(-30).join('\n')}`)), 60_000);
  });
  try {
    const exit = await Promise.race([daemon.exit, stuck]);
    return { ms: Date.now() - started, ...exit };
  } finally {
    clearTimeout(timer);
  }
}

/** Poll `check` until it holds (a condition over another process; bounded). */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!bin)(`stockscreend stops within its shutdown bound (${testBackend()})`, () => {
  const prefix = 'bounded:';
  let redis: PrivateRedis;
  let admin: Redis;
  let events: QueueEvents;
  let fixture: MarketQueueFixture | undefined;
  let jobs: MarketJobs;
  let store: TestDb;
  let configDir: string;
  let started = 0;

  const daemonConfig = (redisUrl: string) => ({
    ...store.settings, host: '127.0.0.1', port: 0, redis_url: redisUrl, redis_prefix: prefix, log_level: 'info', log_format: 'json',
    jwt_secret: 'bounded-shutdown-secret-0123456789abcdef', feed: 'off', workers: 1, job_lock_ms: 1500, shutdown_timeout_ms: BOUND_MS,
  });
  const startDaemon = (redisUrl = redis.url) => startDaemonProcess(`daemon-${++started}`, configDir, daemonConfig(redisUrl), { timeoutMs: 60_000 });
  const enqueue = async (request: unknown) => (await jobs.enqueue(jobRequestSchema.parse(request), null)).id;

  /** Resolves once job `id` reports progress matching `at`, with this file's Redis then frozen for writes. */
  function freezeAt(id: string, at: (p: JobProgress) => boolean): Promise<JobProgress> {
    return new Promise<JobProgress>((resolve) => {
      const onProgress = ({ jobId, data }: { jobId: string; data: unknown }) => {
        const p = data as JobProgress;
        if (jobId !== id || !at(p)) return;
        events.off('progress', onProgress);
        void admin.call('CLIENT', 'PAUSE', '120000', 'WRITE').then(() => resolve(p));
      };
      events.on('progress', onProgress);
    });
  }

  const shuttingDown = (line: string) => line.includes('SIGTERM received, shutting down');

  beforeAll(async () => {
    ({ redis, admin, store, configDir, jobs, events } = fixture = await openMarketQueueFixture(bin!, 'bounded-shutdown', prefix));
  }, 60_000);
  afterAll(() => fixture?.close());

  it('SIGTERM during a market load: exits within the bound, the load goes back to the queue and completes after a restart', async () => {
    // Given a daemon holding a small sample market, loading a bigger one that replaces it
    let daemon = await startDaemon();
    await waitForJobAt(redis.url, prefix, await enqueue({ type: 'load-sample', seed: 1, stocks: 40, days: 60 }));
    const before = await fingerprint(store);
    // (two batches of stocks: the load reports progress between them, before anything is published)
    const id = await enqueue({ type: 'load-sample', seed: 2, stocks: 100, days: 120, replace: true });
    await freezeAt(id, (p) => p.phase === 'load' && p.rows_ok > 0);

    // When SIGTERM arrives in the middle of the load
    const exit = exitAfter(daemon, () => daemon.signal('SIGTERM'));
    await daemon.waitForLog(shuttingDown);
    await admin.call('CLIENT', 'UNPAUSE');
    const { ms, code } = await exit;

    // Then the process exits, cleanly, before its bound
    expect(ms).toBeLessThan(BOUND_MS);
    expect(code).toBe(0);
    expect(daemon.log().some((l) => l.includes('handed back to the queue'))).toBe(true);
    // Then nothing of the load is visible, and the job waits to run again (not failed)
    expect(await fingerprint(store)).toEqual(before);
    const view = await jobs.get(id);
    expect(view).toMatchObject({ state: 'waiting', failed_reason: null });

    // When the daemon starts again, the load runs from its start to completion
    daemon = await startDaemon();
    const result = (await waitForJobAt(redis.url, prefix, id, 180_000)) as { indicators: { stocks: number } };
    expect(result.indicators.stocks).toBe(100);
    expect((await fingerprint(store)).stocks).toMatch(/^100:/);
    expect((await exitAfter(daemon, () => daemon.signal('SIGTERM'))).ms).toBeLessThan(BOUND_MS);
  }, 300_000);

  it('a second SIGTERM while the shutdown is held up ends the process at once; the load is still whole after a restart', async () => {
    // Given a daemon loading a sample market, its Redis frozen for writes mid-load
    let daemon = await startDaemon();
    const before = await fingerprint(store);
    const id = await enqueue({ type: 'load-sample', seed: 3, stocks: 100, days: 100, replace: true });
    await freezeAt(id, (p) => p.phase === 'load' && p.rows_ok > 0);

    // When SIGTERM starts a shutdown that cannot progress, and a second SIGTERM follows
    daemon.signal('SIGTERM');
    await daemon.waitForLog(shuttingDown);
    const { signal } = await exitAfter(daemon, () => daemon.signal('SIGTERM'));
    await admin.call('CLIENT', 'UNPAUSE');

    // Then the second signal ended the process (its default action), not the shutdown's bound
    expect(signal).toBe('SIGTERM');
    expect(await fingerprint(store)).toEqual(before);
    // Then, its lock lapsed, a restarted daemon completes the load
    await until(`job ${id} stalled`, async () => (await jobs.get(id)).state === 'stalled');
    daemon = await startDaemon();
    const result = (await waitForJobAt(redis.url, prefix, id, 180_000)) as { indicators: { stocks: number } };
    expect(result.indicators.stocks).toBe(100);
    await daemon.stop();
  }, 300_000);

  it('SIGTERM after its Redis went away: exits within the bound instead of reconnecting forever', async () => {
    // Given a daemon whose Redis has gone away
    const own = await startPrivateRedis(bin!);
    try {
      const daemon = await startDaemon(own.url);
      await own.stop();
      await daemon.waitForLog((l) => l.includes('redis connection error'));

      // When SIGTERM arrives
      const { ms } = await exitAfter(daemon, () => daemon.signal('SIGTERM'));

      // Then it exits before its bound
      expect(ms).toBeLessThan(BOUND_MS);
    } finally {
      await own.stop();
    }
  }, 120_000);
});
