/**
 * The backtest queue's worker in this process (backtest-jobs.ts holds the queue): what it runs
 * for a job (the run, its progress, its checkpoint, its turn), and its lifetime — made once its
 * Redis connection is up, closed on its own (a daemon that stops running backtests) or with the
 * queue.
 */
import { WaitingError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { BacktestJob, PicksCheckpoint, RunHooks } from '../backtest/backtest-service.js';
import { RunInterrupted, RunYielded } from '../backtest/backtest-service.js';
import type { Selected } from '../backtest/types.js';
import { dropRedis } from '../infra/redis.js';
import { settledWithin } from '../infra/shutdown.js';
import type { BacktestPhase, BacktestStatus } from '../store/backtests-repo.js';
import { closeAfterHandshake, readyWithin, workerOnceConnected, type WorkerSettings } from './worker-handshake.js';

/** Runs one job (the backtest service's `run`). */
export type BacktestRunner = (job: BacktestJob, hooks: RunHooks) => Promise<BacktestStatus>;
/** Hears of a job that failed for good (its row is failed with the reason). */
export type BacktestFailed = (job: BacktestJob, reason: string) => Promise<void>;

/** BullMQ's largest priority (2^21). */
export const MAX_PRIORITY = 2_097_152;
/** How much less urgent a run becomes each time its turn ends (a user's next waiting run is 1 less urgent). */
const YIELD_PRIORITY_STEP = 2;
/** Largest selection kept in a checkpoint (top ≤ 500; a `top: "all"` date over this is screened again on resume). */
const MAX_CHECKPOINT_PICKS = 500;
/** A checkpoint outlives its job by at most this (ms): a job that fails for good leaves one behind. */
const CHECKPOINT_TTL_MS = 7 * 86_400_000;

/**
 * A run's selections in a Redis list (one entry per rebalance date, tagged with the data
 * version), readable by whichever daemon takes the run over.
 */
export function redisPicksCheckpoint(client: Redis, key: string): PicksCheckpoint {
  return {
    async load(version) {
      const saved = new Map<number, Selected[]>();
      for (const entry of await client.lrange(key, 0, -1)) {
        const { v, d, p } = JSON.parse(entry) as { v: string; d: number; p: Selected[] };
        if (v === version) saved.set(d, p);
      }
      return saved;
    },
    async save(version, day, picks) {
      if (picks.length > MAX_CHECKPOINT_PICKS) return;
      await client.multi().rpush(key, JSON.stringify({ v: version, d: day, p: picks })).pexpire(key, CHECKPOINT_TTL_MS).exec();
    },
  };
}

/** Settings of the worker (the queue's). */
export interface BacktestWorkerOptions extends WorkerSettings {
  /** Rebalance dates a run screens per turn before it goes back to the queue (0: no turns). */
  sliceDates: number;
  /** Where checkpoints are kept (the queue's connection). */
  checkpoints: Redis;
}

/** What BullMQ calls for a job: the run, with its progress, checkpoint and turn. */
function processorOf(runner: BacktestRunner, options: BacktestWorkerOptions) {
  const { redis, logger, checkpoints, sliceDates } = options;
  return async (job: Job<BacktestJob, BacktestStatus>, token?: string): Promise<BacktestStatus> => {
    // Each change is a BullMQ `progress` event too: what the run is doing before its first date, then done/total.
    const report = (phase: BacktestPhase, done: number, total: number) =>
      job.updateProgress({ phase, done, total }).catch((err: Error) => logger.warn({ backtest: job.id, err: err.message }, 'backtest progress not recorded'));
    const onProgress = (done: number, total: number) => report('screening', done, total);
    const key = redis.key('backtest', job.data.id, 'picks');
    try {
      const status = await runner(job.data, { onProgress, onPhase: report, checkpoint: redisPicksCheckpoint(checkpoints, key), ...(sliceDates > 0 ? { yieldAfter: sliceDates } : {}) });
      await checkpoints.del(key).catch(() => undefined);
      return status;
    } catch (err) {
      if (!(err instanceof RunInterrupted) || !token) throw err;
      // Its turn ended: behind the runs of the same priority and before none of a lower one (a fresh run).
      if (err instanceof RunYielded) await job.changePriority({ priority: Math.min(MAX_PRIORITY, (job.priority || 1) + YIELD_PRIORITY_STEP) });
      // This daemon is stopping, or the turn ended: the run goes back to the queue at once, not counted as an attempt.
      await job.moveToWait(token);
      throw new WaitingError();
    }
  };
}

/** The worker of this process: none until started; started again after closeWorker. */
export interface BacktestWorker {
  /** Start the worker; true once it is connected (at most `readyTimeoutMs`). */
  start(runner: BacktestRunner, onFailed: BacktestFailed, concurrency: number, readyTimeoutMs: number): Promise<boolean>;
  /** Close the worker (it may be started again); `abandon`: do not wait for the run under way. */
  closeWorker(abandon: boolean): Promise<void>;
  /** Close the worker for good (none is made after this), waiting for its run at most 10 s. */
  shutdown(): Promise<void>;
  /** The worker's connection, if it has one (dropped once the queue is closed). */
  connection(): Redis | undefined;
}

/** Create the backtest worker slot of this process. */
export function createBacktestWorker(options: BacktestWorkerOptions): BacktestWorker {
  const { redis, logger } = options;
  let worker: Worker<BacktestJob, BacktestStatus> | undefined;
  let workerConnection: Redis | undefined;
  let shutDown = false;

  function spawn(runner: BacktestRunner, onFailed: BacktestFailed, concurrency: number): Promise<Worker<BacktestJob, BacktestStatus> | null> {
    const connection = (workerConnection = redis.connect('bullmq', 'backtest-worker'));
    return workerOnceConnected(connection, () => shutDown, () => {
      const w = new Worker<BacktestJob, BacktestStatus>(options.queueName, processorOf(runner, options), {
        connection, prefix: options.prefix, concurrency, lockDuration: options.lockMs, stalledInterval: options.lockMs, maxStalledCount: Math.max(1, options.attempts - 1),
      });
      w.on('error', (err) => logger.warn({ err: err.message }, 'backtest worker error'));
      w.on('failed', (job, err) => {
        if (!job) return;
        logger.warn({ backtest: job.id, err: err.message }, 'backtest job failed');
        void job.isFailed().then((final) => (final ? onFailed(job.data, err.message) : undefined)).catch(() => undefined);
      });
      return (worker = w);
    });
  }

  return {
    async start(runner, onFailed, concurrency, readyTimeoutMs) {
      const started = spawn(runner, onFailed, concurrency);
      const ok = await readyWithin(started.then(async (w) => (await w?.waitUntilReady(), w !== null), () => false), readyTimeoutMs);
      if (!ok) logger.warn('backtest worker not connected to redis yet; it takes runs once it is reachable');
      return ok;
    },
    async closeWorker(abandon) {
      const [w, c] = [worker, workerConnection];
      worker = workerConnection = undefined;
      // Redis gone: a polite close would wait for it (QUIT queued for a reconnect that never comes).
      if (w) await closeAfterHandshake(w, c?.status === 'ready', abandon);
      if (c) dropRedis(c);
    },
    async shutdown() {
      shutDown = true;
      await settledWithin(worker ? closeAfterHandshake(worker, workerConnection?.status === 'ready') : Promise.resolve(), 10_000);
    },
    connection: () => workerConnection,
  };
}
