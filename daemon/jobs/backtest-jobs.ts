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
import { Queue, WaitingError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { AppError, isAppError } from '../errors.js';
import type { Redis } from 'ioredis';
import type { BacktestJob, BacktestQueue, PicksCheckpoint, QueuedState, RunHooks } from '../backtest/backtest-service.js';
import { RunInterrupted, RunYielded } from '../backtest/backtest-service.js';
import type { Selected } from '../backtest/types.js';
import { dropRedis, type RedisFactory } from '../infra/redis.js';
import { settledWithin } from '../infra/shutdown.js';
import { closeAfterHandshake, trackHandshake } from './worker-handshake.js';
import type { BacktestPhase, BacktestStatus } from '../store/backtests-repo.js';

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
export type BacktestRunner = (job: BacktestJob, hooks: RunHooks) => Promise<BacktestStatus>;

/** The queue, the in-process worker, and the port the backtest service uses. */
export interface BacktestJobs extends BacktestQueue {
  queue: Queue<BacktestJob, BacktestStatus>;
  /** Wait (at most `timeoutMs`) for the queue connection; never throws. */
  ready(timeoutMs: number): Promise<void>;
  /**
   * Start `concurrency` runs at a time in this process; `onFailed` hears of a job that failed for
   * good (its row is failed with the reason). Resolves true once connected (at most `readyTimeoutMs`).
   */
  startWorker(runner: BacktestRunner, onFailed: (job: BacktestJob, reason: string) => Promise<void>, concurrency?: number, readyTimeoutMs?: number): Promise<boolean>;
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

/** BullMQ's largest priority (2^21). */
const MAX_PRIORITY = 2_097_152;
/** How much less urgent a run becomes each time its turn ends (a user's next waiting run is 1 less urgent). */
const YIELD_PRIORITY_STEP = 2;

const STATES: Record<string, QueuedState['state']> = { waiting: 'waiting', delayed: 'waiting', prioritized: 'waiting', active: 'active', completed: 'completed', failed: 'failed' };

/** Create the backtest queue (connects at once; the worker starts with startWorker). */
export function createBacktestJobs(options: BacktestJobsOptions): BacktestJobs {
  const { redis, logger } = options;
  const lockMs = options.lockMs ?? 30_000;
  const sliceDates = options.sliceDates ?? 0;
  const attempts = options.attempts ?? 3;
  const prefix = `${redis.prefix}bull`;
  const queueConnection = redis.connect('command', 'backtest-queue');
  const queueName = options.queueName ?? BACKTEST_QUEUE;
  const queue = new Queue<BacktestJob, BacktestStatus>(queueName, { connection: queueConnection, prefix });
  queue.on('error', (err) => logger.warn({ err: err.message }, 'backtest queue error'));
  // Closing the queue during its connection handshake would interrupt it (an unhandled rejection): close() waits for it, briefly.
  const handshake = queue.waitUntilReady().then(() => undefined, () => undefined);
  let worker: Worker<BacktestJob, BacktestStatus> | undefined;
  let workerConnection: ReturnType<RedisFactory['connect']> | undefined;
  let closing: Promise<void> | undefined;

  const unavailable = (err: unknown): never => {
    if (isAppError(err)) throw err;
    logger.warn({ err: (err as Error).message }, 'backtest queue unavailable');
    throw new AppError('SERVICE_UNAVAILABLE', 'Backtest queue unavailable (Redis not reachable)');
  };

  function processorOf(runner: BacktestRunner) {
    return async (job: Job<BacktestJob, BacktestStatus>, token?: string): Promise<BacktestStatus> => {
      // Each change is a BullMQ `progress` event too: what the run is doing before its first date, then done/total.
      const report = (phase: BacktestPhase, done: number, total: number) =>
        job.updateProgress({ phase, done, total }).catch((err: Error) => logger.warn({ backtest: job.id, err: err.message }, 'backtest progress not recorded'));
      const onProgress = (done: number, total: number) => report('screening', done, total);
      const key = redis.key('backtest', job.data.id, 'picks');
      try {
        const status = await runner(job.data, { onProgress, onPhase: report, checkpoint: redisPicksCheckpoint(queueConnection, key), ...(sliceDates > 0 ? { yieldAfter: sliceDates } : {}) });
        await queueConnection.del(key).catch(() => undefined);
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

  async function spawn(runner: BacktestRunner, onFailed: (job: BacktestJob, reason: string) => Promise<void>, concurrency: number): Promise<Worker<BacktestJob, BacktestStatus> | null> {
    const connection = (workerConnection = redis.connect('bullmq', 'backtest-worker'));
    // Made once its connection is up: a BullMQ worker still waiting for Redis when closed fails unhandled.
    const up = await new Promise<boolean>((resolve) => {
      if (connection.status === 'ready') return resolve(true);
      connection.once('ready', () => resolve(true));
      connection.once('end', () => resolve(false));
    });
    if (!up || closing) return null;
    const w = trackHandshake(new Worker<BacktestJob, BacktestStatus>(queueName, processorOf(runner), {
      connection, prefix, concurrency, lockDuration: lockMs, stalledInterval: lockMs, maxStalledCount: Math.max(1, attempts - 1),
    }));
    w.on('error', (err) => logger.warn({ err: err.message }, 'backtest worker error'));
    w.on('failed', (job, err) => {
      if (!job) return;
      logger.warn({ backtest: job.id, err: err.message }, 'backtest job failed');
      void job.isFailed().then((final) => (final ? onFailed(job.data, err.message) : undefined)).catch(() => undefined);
    });
    return (worker = w);
  }

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
    async startWorker(runner, onFailed, concurrency = 1, readyTimeoutMs = 2000) {
      const started = spawn(runner, onFailed, concurrency);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => (timer = setTimeout(resolve, readyTimeoutMs, false)));
      const ok = await Promise.race([started.then(async (w) => (await w?.waitUntilReady(), w !== null), () => false), timedOut]);
      clearTimeout(timer);
      if (!ok) logger.warn('backtest worker not connected to redis yet; it takes runs once it is reachable');
      return ok;
    },
    async closeWorker(abandon = false) {
      const [w, c] = [worker, workerConnection];
      worker = workerConnection = undefined;
      // Redis gone: a polite close would wait for it (QUIT queued for a reconnect that never comes).
      if (w) await closeAfterHandshake(w, c?.status === 'ready', abandon);
      if (c) dropRedis(c);
    },
    close() {
      closing ??= (async () => {
        await settledWithin(worker ? closeAfterHandshake(worker, workerConnection?.status === 'ready') : Promise.resolve(), 10_000);
        // Redis unreachable: no handshake to wait for (its wait is left pending, see below).
        if (queueConnection.status === 'ready') {
          await settledWithin(handshake, 2000);
          await settledWithin(queue.close(), 2000);
        }
        for (const c of [queueConnection, workerConnection]) {
          if (!c) continue;
          if (c.status !== 'ready') c.removeAllListeners('end');
          dropRedis(c);
        }
      })();
      return closing;
    },
  };
}
