/**
 * A load job is all or nothing. A `stockscreend worker` process is SIGKILLed at
 * several points of a sample load and of a file load; every market table (counts and a
 * checksum of every row) is then exactly as before, the job shows `stalled` once its lock
 * lapses (never `active` with nobody working on it), and a new worker runs it from its
 * start to completion.
 *
 * Kill points are exact, not timed: on the job's progress event the test pauses its own
 * Redis for writes (CLIENT PAUSE), so the worker stops at its next progress report, which
 * every phase makes before the commit; then the process is killed.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type MarketJobs } from '../../../daemon/jobs/market-jobs.js';
import { jobRequestSchema, type JobProgress } from '../../../daemon/jobs/types.js';
import { startDaemonProcess, stopAllDaemonProcesses, type DaemonProcess } from '../../helpers/daemon-processes.js';
import { waitForJobAt } from '../../helpers/jobs.js';
import { marketFingerprint as fingerprint, openMarketQueueFixture, type MarketQueueFixture } from '../../helpers/market-queue-fixture.js';
import { type PrivateRedis } from '../../helpers/redis-server.js';
import { testBackend, type TestDb } from '../../helpers/test-store.js';
import { KRX_DIR as KRX_FIXTURES } from '../../helpers/krx-fixtures.js';

const KRX_DIR = KRX_FIXTURES.replace(/\/$/, '');
const LOCK_MS = 1500;
const bin = inject('redisServerBin');

/** Row count and a sha256 of every row of every market table. */
/** Poll `check` until it holds (a condition over other processes; bounded). */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!bin)(`a load job killed at any point leaves the database as it was (${testBackend()})`, () => {
  const prefix = 'killed:';
  let redis: PrivateRedis;
  let admin: Redis;
  let events: QueueEvents;
  let fixture: MarketQueueFixture | undefined;
  let jobs: MarketJobs;
  let store: TestDb;
  let configDir: string;
  let workers = 0;

  const startWorker = (): Promise<DaemonProcess> => startDaemonProcess(`worker-${++workers}`, configDir, {
    ...store.settings, redis_url: redis.url, redis_prefix: prefix, log_level: 'info', workers: 1, import_dirs: [KRX_DIR, configDir], job_lock_ms: LOCK_MS,
  }, { worker: true });

  /** Enqueue `request`; resolves with its id. */
  const enqueue = async (request: unknown) => (await jobs.enqueue(jobRequestSchema.parse(request), null)).id;

  /** Kill `worker` once job `id` reports progress matching `at` (see the file comment). */
  async function killAt(worker: DaemonProcess, id: string, at: (p: JobProgress) => boolean): Promise<JobProgress> {
    const seen = await new Promise<JobProgress>((resolve) => {
      const onProgress = ({ jobId, data }: { jobId: string; data: unknown }) => {
        const p = data as JobProgress;
        if (jobId !== id || !at(p)) return;
        events.off('progress', onProgress);
        // Freeze the worker at its next Redis write (its next report: before any commit), then kill it.
        void admin.call('CLIENT', 'PAUSE', '60000', 'WRITE').then(() => resolve(p));
      };
      events.on('progress', onProgress);
    });
    await worker.kill();
    await admin.call('CLIENT', 'UNPAUSE');
    return seen;
  }

  /** After a kill: the job shows `stalled` once its lock lapsed, nobody working on it. */
  const untilStalled = (id: string) => until(`job ${id} stalled`, async () => (await jobs.get(id)).state === 'stalled')
    .catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(await jobs.get(id))}`);
    });

  beforeAll(async () => {
    ({ redis, admin, store, configDir, jobs, events } = fixture = await openMarketQueueFixture(bin!, 'killed', prefix));
    // A folder of three real daily files (a full market each): enough for a kill on the third.
    await mkdir(join(configDir, 'listing'));
    for (const day of ['09', '10', '11']) await copyFile(join(KRX_DIR, `listing/2026-03-${day}.csv`), join(configDir, `listing/2026-03-${day}.csv`));
  }, 60_000);
  afterAll(() => fixture?.close());

  it('sample market: killed while loading and while computing indicators, then completed on restart', async () => {
    // Given a database holding a small sample market
    let worker = await startWorker();
    await waitForJobAt(redis.url, prefix, await enqueue({ type: 'load-sample', seed: 1, stocks: 40, days: 60 }));
    const before = await fingerprint(store);
    expect(before.daily_prices).toMatch(/^2[0-9]{3}:/);

    // When a bigger sample market replacing it (two batches of stocks: a progress report between them) is killed in its
    // load phase, and again (its second run) while computing indicators
    const id = await enqueue({ type: 'load-sample', seed: 2, stocks: 100, days: 120, replace: true });
    expect(await killAt(worker, id, (p) => p.phase === 'load' && p.rows_ok > 0)).toMatchObject({ phase: 'load' });
    // Then nothing of it is visible, and the job is not shown active beyond its lock
    expect(await fingerprint(store)).toEqual(before);
    await untilStalled(id);

    worker = await startWorker();
    expect(await killAt(worker, id, (p) => p.phase === 'indicators')).toMatchObject({ phase: 'indicators' });
    expect(await fingerprint(store)).toEqual(before);
    await untilStalled(id);

    // When a worker comes back, the job runs from its start and completes
    await startWorker();
    const result = (await waitForJobAt(redis.url, prefix, id, 120_000)) as { indicators: { stocks: number } };
    // (the first sample market replaced by the second in the same transaction)
    const after = await fingerprint(store);
    expect(after.stocks).toMatch(new RegExp(`^${result.indicators.stocks}:`));
    expect(after.stock_indicators).toMatch(new RegExp(`^${result.indicators.stocks}:`));
    expect(result.indicators.stocks).toBe(100);
    await stopAllDaemonProcesses();
  }, 240_000);

  it('real files: killed on its third file and while building the index, then completed on restart', async () => {
    // Given the same database, now holding real files (the sample replaced by one listing file)
    let worker = await startWorker();
    await waitForJobAt(redis.url, prefix, await enqueue({
      type: 'load-files', paths: [join(KRX_DIR, 'listing/2026-03-09.csv')], compute: false, replace_sample: true,
    }));
    const before = await fingerprint(store);
    expect(before.stocks).not.toMatch(/^0:/);
    expect(before.market_meta).toMatch(/^1:/);

    // When a folder load is killed on its third file, and on its second run while building the index
    const id = await enqueue({ type: 'load-files', paths: [join(configDir, 'listing')] });
    expect(await killAt(worker, id, (p) => p.phase === 'load' && p.done === 2)).toMatchObject({ done: 2 });
    expect(await fingerprint(store)).toEqual(before);
    await untilStalled(id);

    worker = await startWorker();
    await killAt(worker, id, (p) => p.phase === 'index');
    expect(await fingerprint(store)).toEqual(before);
    await untilStalled(id);

    // Then a new worker completes it from its start
    await startWorker();
    const result = (await waitForJobAt(redis.url, prefix, id, 120_000)) as { files: unknown[]; indicators: { stocks: number } };
    expect(result.files).toHaveLength(3);
    expect(result.indicators.stocks).toBeGreaterThan(2000);
    await stopAllDaemonProcesses();
  }, 240_000);
});
