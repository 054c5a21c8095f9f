/**
 * Retries of market-data jobs against a real Redis: a transient fault is retried with
 * backoff and then succeeds; bad input fails at once (UnrecoverableError), never retried.
 * The market service is a stand-in so the first attempt can be made to fail.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueueEvents } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../daemon/infra/logger.js';
import { createRedisFactory } from '../../../daemon/infra/redis.js';
import { createMarketJobs, type MarketJobs } from '../../../daemon/jobs/market-jobs.js';
import { MARKET_QUEUE, type JobRequest } from '../../../daemon/jobs/types.js';
import type { ApplyResult, MarketDataService } from '../../../daemon/market/market-data-service.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';

const logger = createLogger('silent');
const NOTHING: ApplyResult = { stocks: 0, bars: 0, halts: 0, financials: 0, index: 0, unknown_codes: [] };

describe('market-data job retries', () => {
  let prefix: string;
  let jobs: MarketJobs;
  let events: QueueEvents;
  let dir: string;
  /** Calls of the stand-in service's apply(). */
  let applyCalls: number;
  /** Errors the stand-in throws on its next apply() calls, in order. */
  let faults: Error[];

  const market: MarketDataService = {
    async apply() {
      applyCalls += 1;
      const fault = faults.shift();
      if (fault) throw fault;
      return NOTHING;
    },
    // Parses the file for real (so bad rows fail as they would), writes nothing.
    async applyAll(open, hooks = {}) {
      for await (const batch of open()) await hooks.onBatch?.(batch, NOTHING);
      await hooks.beforeCommit?.();
    },
    fillComputedIndex: async () => 0,
    atomically: (fn) => fn(market),
    staged: (_options, fn) => fn(market),
    tidy: async () => undefined,
    content: async () => 'empty',
    stockCount: async () => 0,
    setContent: async () => undefined,
    clear: async () => undefined,
    computeIndicators: async () => ({ version: 'v', as_of: null, stocks: 0, duration_ms: 0, computed_at: new Date().toISOString() }),
  };

  beforeEach(async () => {
    applyCalls = 0;
    faults = [];
    prefix = testPrefix('retry');
    dir = await mkdtemp(join(tmpdir(), 'retry-'));
    const redis = createRedisFactory({ url: testRedisUrl(), prefix, logger });
    // A short first backoff keeps the test quick; the production default is 1 s, doubling.
    jobs = createMarketJobs({ redis, logger, retry: { attempts: 3, backoffMs: 50 } });
    await jobs.startWorkers(1, { market, sample: () => [{ stocks: [], bars: [], halts: [], financials: [], index: [] }], logger, onIndicatorsComputed: async () => undefined, importDirs: [dir] });
    events = new QueueEvents(MARKET_QUEUE, { connection: redis.connect('bullmq', 'test-events'), prefix: `${prefix}bull` });
    await events.waitUntilReady();
  });
  afterEach(async () => {
    await events?.close();
    await jobs?.close();
    await deleteKeys(testRedisUrl(), prefix);
    await rm(dir, { recursive: true, force: true });
  });

  /** Enqueue, and collect the job's 'delayed' (backoff) events until it finishes. */
  async function run(request: JobRequest) {
    // Listening before the job exists: its first attempt may fail before enqueue() returns.
    const seen: string[] = [];
    events.on('delayed', ({ jobId }) => void seen.push(jobId));
    const view = await jobs.enqueue(request, null);
    const job = await jobs.queue.getJob(view.id);
    const outcome = await job!.waitUntilFinished(events, 30_000).then((value: unknown) => ({ value }), (error: Error) => ({ error }));
    return { outcome, delayed: seen.filter((id) => id === view.id), view: await jobs.get(view.id) };
  }

  it('retries a transient fault with backoff, then succeeds', async () => {
    // Given a database connection that drops on the first attempt only
    faults = [Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' })];
    // When a load is enqueued
    const { outcome, delayed, view } = await run({ type: 'load-sample', seed: 1, compute: false, replace: false });
    // Then it completes on the second attempt, after waiting in the delayed set (the backoff)
    expect(outcome).toHaveProperty('value');
    expect(view.state).toBe('completed');
    expect(applyCalls).toBe(2);
    expect(delayed).toHaveLength(1);
    expect(view.result).toMatchObject({ files: [expect.objectContaining({ file: 'sample' })] });
  });

  it('fails a file with bad rows at once, without a retry, with every reason', async () => {
    // Given a history file whose three rows all have high < open
    const file = join(dir, '005930.csv');
    await writeFile(file, ['Date,Open,High,Low,Close,Volume', '2026-03-18,100,90,80,95,1', '2026-03-19,100,90,80,95,1', '2026-03-20,100,90,80,95,1'].join('\n'));
    // When it is loaded
    const { outcome, delayed, view } = await run({ type: 'load-files', paths: [file], compute: false, replace_sample: false });
    // Then the job failed on its first attempt and was never scheduled again
    expect(outcome).toHaveProperty('error');
    expect(view.state).toBe('failed');
    expect(view.attempts).toBe(1);
    expect(delayed).toEqual([]);
    expect(view.failed_reason?.split('\n')).toEqual([
      `${file}: 3 of 3 rows invalid (100.0% > 5%); file rejected`,
      `  ${file}:2: high 90 below max(open 100, close 95)`,
      `  ${file}:3: high 90 below max(open 100, close 95)`,
      `  ${file}:4: high 90 below max(open 100, close 95)`,
    ]);
  });
});
