/**
 * The backtest queue (BullMQ): `POST /screen/backtest` enqueues a long run (job id =
 * run id); a worker inside a daemon — which already holds the market history as-of snapshots
 * are built from — runs it and reports progress. Every daemon of a deployment shares the queue
 * (same Redis prefix), so any daemon runs a run another enqueued; the `backtests` row is the
 * truth the API reads, the job carries only the id, the owner and the preset's query.
 *
 * Crash and stop: a daemon that stops gracefully gives its run back at the next rebalance date
 * (moveToWait: not counted as an attempt) and another worker takes it at once; a daemon that
 * dies stops renewing the job's lock, BullMQ's stalled check (any worker's) puts the job back,
 * and another worker runs it again, resuming after the last rebalance date whose selection was
 * saved (redisPicksCheckpoint). A job stalled more than `attempts − 1`
 * times, or failing `attempts` times on a transient fault, fails; its row then says why.
 */
import { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { AppError, isAppError } from '../errors.js';
import type { BacktestJob, BacktestQueue, QueuedState } from '../backtest/backtest-service.js';
import type { RedisFactory } from '../infra/redis.js';
import { settledWithin } from '../infra/shutdown.js';
import type { BacktestStatus } from '../store/backtests-repo.js';
import { createBacktestWorker, MAX_PRIORITY, type BacktestFailed, type BacktestRunner } from './backtest-worker.js';
import { dropConnections } from './worker-handshake.js';

/** The backtest queue's name (a database's queue adds its identity: backtestQueueName). */
export const BACKTEST_QUEUE = 'backtests';

/**
 * The backtest queue of one database: daemons sharing a Redis but not a database never see, or
 * run, each other's backtests.
 */
export function backtestQueueName(databaseId: string): string {
  return `${BACKTEST_QUEUE}-${databaseId}`;
}

/** Runs one job (the backtest service's `run`). */
export type { BacktestRunner } from './backtest-worker.js';

/** The queue, the in-process worker, and the port the backtest service uses. */
export interface BacktestJobs extends BacktestQueue {
  queue: Queue<BacktestJob, BacktestStatus>;
  /** Wait (at most `timeoutMs`) for the queue connection; never throws. */
  ready(timeoutMs: number): Promise<void>;
  /**
   * Start `concurrency` runs at a time in this process; `onFailed` hears of a job that failed for
   * good (its row is failed with the reason). Resolves true once connected (at most `readyTimeoutMs`).
   */
  startWorker(runner: BacktestRunner, onFailed: BacktestFailed, concurrency?: number, readyTimeoutMs?: number): Promise<boolean>;
  /**
   * Stop the worker (startWorker may start it again). `abandon`: do not wait for the run under
   * way (what a killed daemon does; tests) — its lock lapses and another daemon's worker takes it again.
   */
  closeWorker(abandon?: boolean): Promise<void>;
  /** Close the worker (waiting for its run to stop) and the queue. Idempotent. */
  close(): Promise<void>;
}

/** Options of createBacktestJobs. */
export interface BacktestJobsOptions {
  redis: RedisFactory;
  logger: Logger;
  /** A job's lock (ms, default 30 s): once a dead worker's lock lapses, the next stalled check gives the job to another. */
  lockMs?: number;
  /** Runs of a job in all (stalls and transient faults), default 3; then it fails. */
  attempts?: number;
  /** Rebalance dates a run screens per turn before it goes back to the queue (0: no turns; see RunYielded). */
  sliceDates?: number;
  /** The queue's name (default BACKTEST_QUEUE; daemons use backtestQueueName of their database). */
  queueName?: string;
}

/** A run's selections kept in Redis for whichever daemon takes the run over. */
export { redisPicksCheckpoint } from './backtest-worker.js';

const STATES: Record<string, QueuedState['state']> = { waiting: 'waiting', delayed: 'waiting', prioritized: 'waiting', active: 'active', completed: 'completed', failed: 'failed' };

/** Create the backtest queue (connects at once; the worker starts with startWorker). */
export function createBacktestJobs(options: BacktestJobsOptions): BacktestJobs {
  const { redis, logger } = options;
  const attempts = options.attempts ?? 3;
  const prefix = `${redis.prefix}bull`;
  const queueConnection = redis.connect('command', 'backtest-queue');
  const queueName = options.queueName ?? BACKTEST_QUEUE;
  const queue = new Queue<BacktestJob, BacktestStatus>(queueName, { connection: queueConnection, prefix });
  queue.on('error', (err) => logger.warn({ err: err.message }, 'backtest queue error'));
  // Closing the queue during its connection handshake would interrupt it (an unhandled rejection): close() waits for it, briefly.
  const handshake = queue.waitUntilReady().then(() => undefined, () => undefined);
  const worker = createBacktestWorker({
    redis, logger, queueName, prefix, attempts, lockMs: options.lockMs ?? 30_000, sliceDates: options.sliceDates ?? 0, checkpoints: queueConnection,
  });
  let closing: Promise<void> | undefined;

  const unavailable = (err: unknown): never => {
    if (isAppError(err)) throw err;
    logger.warn({ err: (err as Error).message }, 'backtest queue unavailable');
    throw new AppError('SERVICE_UNAVAILABLE', 'Backtest queue unavailable (Redis not reachable)');
  };

  return {
    queue,
    async ready(timeoutMs) {
      await Promise.race([handshake, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    },
    async enqueue(job, priority = 1) {
      await queue.add('backtest', job, {
        jobId: job.id, attempts, backoff: { type: 'exponential', delay: 1000 }, priority: Math.min(MAX_PRIORITY, Math.max(1, priority)),
        // The row keeps the result; a failed job is kept a while so any daemon can read why.
        removeOnComplete: true, removeOnFail: { age: 7 * 86_400, count: 1000 },
      }).catch(unavailable);
    },
    async state(id) {
      const job = await queue.getJob(id);
      if (!job) return null;
      const state = await job.getState();
      return { state: STATES[state] ?? 'other', reason: job.failedReason || null };
    },
    async remove(id) {
      // A job a worker holds is locked: remove() refuses, and the run stops on its own (its row is cancelled).
      await queue.remove(id).catch(() => 0);
    },
    startWorker: (runner, onFailed, concurrency = 1, readyTimeoutMs = 2000) => worker.start(runner, onFailed, concurrency, readyTimeoutMs),
    closeWorker: (abandon = false) => worker.closeWorker(abandon),
    close() {
      closing ??= (async () => {
        await worker.shutdown();
        // Redis unreachable: no handshake to wait for (its wait is left pending: dropConnections).
        if (queueConnection.status === 'ready') {
          await settledWithin(handshake, 2000);
          await settledWithin(queue.close(), 2000);
        }
        dropConnections([queueConnection, worker.connection()]);
      })();
      return closing;
    },
  };
}
