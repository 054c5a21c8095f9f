/**
 * The market-data queue (BullMQ): producers enqueue load/compute jobs; workers run
 * in this process (--workers N) or in `stockscreend worker` processes sharing Redis.
 *
 * Concurrency model: the queue's global concurrency is 1, so exactly one market-data
 * job runs at a time across every worker of every process. A load job loads its files
 * (each in one transaction) and then computes indicators in the same job, so a
 * computation never reads a load half-done and two loads never race on the same stock
 * rows (the latest quote file's name, board and shares must win; with one writer on
 * sqlite and SERIALIZABLE transactions on PostgreSQL, parallel whole-file loads would
 * only wait on or abort each other).
 * What more workers give: the work moves off the API daemons, and another worker takes
 * the next job (or a crashed worker's stalled one) when one is busy or gone. What they
 * do not give: parallel loads. Jobs queue up and run one after another.
 */
import { Queue, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { AppError, isAppError, notFound } from '../errors.js';
import type { RedisFactory } from '../infra/redis.js';
import { settledWithin } from '../infra/shutdown.js';
import { dropConnections } from './worker-handshake.js';
import { createMarketWorkers, type JobData } from './market-workers.js';
import type { MarketProcessorDeps } from './processors/market-processor.js';
import type { JobView } from '../contract/jobs.js';
import { MARKET_QUEUE, type JobProgress, type JobRequest, type JobResult } from './types.js';

/** A job as the API shows it (daemon/contract/jobs.ts). */
export type { JobView } from '../contract/jobs.js';

/** Producer side plus optional in-process workers. */
export interface MarketJobs {
  enqueue(request: JobRequest, requestedBy: string | null): Promise<JobView>;
  list(limit: number): Promise<JobView[]>;
  /** @throws AppError NOT_FOUND */
  get(id: string): Promise<JobView>;
  /** Wait (at most `timeoutMs`) for the queue connection to initialise; never throws. */
  ready(timeoutMs: number): Promise<void>;
  /**
   * Start `n` workers in this process (each with concurrency 1) and wait at most
   * `readyTimeoutMs` (default 2000) for their Redis connections; resolves true when they
   * are ready. Never waits longer: with Redis unreachable the workers connect (and start
   * taking jobs) once it comes back, and the daemon serves meanwhile.
   */
  startWorkers(n: number, deps: MarketProcessorDeps, readyTimeoutMs?: number): Promise<boolean>;
  /** Wait for a job to finish (tests, CLI --wait go through HTTP polling/events instead). */
  queue: Queue<JobData, JobResult>;
  /**
   * Hand running jobs back to the queue and close, within `timeoutMs` (default 10 s): what has not
   * closed by then (Redis gone, a job not reaching its next checkpoint) is dropped. Idempotent; never throws.
   */
  close(timeoutMs?: number): Promise<void>;
}

/** Stored job data: the request plus who asked. */
export type { JobData } from './market-workers.js';

const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : null);

/**
 * The API view of a job. The job's hash is read before its state, so a job that
 * finished in between would show `completed` with no result: such a job is read again.
 */
async function view(fetched: Job<JobData, JobResult>, queue: Queue<JobData, JobResult>): Promise<JobView> {
  let job = fetched;
  // A state that cannot be read is an outage (the caller answers 503 and retries), not a state.
  let state: JobView['state'] = await job.getState();
  if ((state === 'completed' || state === 'failed') && !job.finishedOn) job = (await queue.getJob(String(job.id))) ?? job;
  if (state === 'active' && !(await hasLock(queue, String(job.id)))) state = 'stalled';
  const { requested_by = null, ...data } = job.data;
  return {
    id: String(job.id),
    type: data.type,
    state,
    data: data as JobRequest,
    progress: typeof job.progress === 'object' ? (job.progress as unknown as JobProgress) : null,
    result: job.returnvalue ?? null,
    failed_reason: job.failedReason || null,
    attempts: job.attemptsMade,
    created_at: new Date(job.timestamp).toISOString(),
    started_at: iso(job.processedOn),
    finished_at: iso(job.finishedOn),
    requested_by,
  };
}

/** True while a worker holds (renews) the job's lock. */
async function hasLock(queue: Queue<JobData, JobResult>, id: string): Promise<boolean> {
  const client = (await queue.client) as unknown as { exists(key: string): Promise<number> };
  return (await client.exists(`${queue.toKey(id)}:lock`)) > 0;
}

/** Options of createMarketJobs. */
export interface MarketJobsOptions {
  redis: RedisFactory;
  logger: Logger;
  /** Attempts per job and the first retry's delay (doubling after that); default 3 attempts, 1 s. */
  retry?: { attempts: number; backoffMs: number };
  /**
   * A job's lock (ms, default 30 s): renewed every half while its worker lives; once it lapses
   * the job shows `stalled` and the next stalled check (as often) runs it again from its start.
   */
  lockMs?: number;
  /** The queue's name (default MARKET_QUEUE; daemons use marketQueueName of their database). */
  queueName?: string;
}

/** The API side fails fast when Redis is down: callers get 503, never a hang. */
function guardedBy(logger: Logger) {
  return <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        return await fn(...a);
      } catch (err) {
        if (isAppError(err)) throw err;
        logger.warn({ err: (err as Error).message }, 'job queue unavailable');
        throw new AppError('SERVICE_UNAVAILABLE', 'Job queue unavailable (Redis not reachable)');
      }
    };
}

/** The producer side over `queue`: enqueue, list and read jobs. */
function producerOf(queue: Queue<JobData, JobResult>, retry: { attempts: number; backoffMs: number }, logger: Logger): Pick<MarketJobs, 'enqueue' | 'list' | 'get'> {
  const guarded = guardedBy(logger);
  return {
    enqueue: guarded(async (request: JobRequest, requestedBy: string | null) => {
      // One job at a time across every worker (see the file comment).
      await queue.setGlobalConcurrency(1);
      const job = await queue.add(request.type, { ...request, requested_by: requestedBy }, {
        // Transient faults (database or Redis briefly gone) are retried; bad input throws
        // UnrecoverableError in the processor and fails at once.
        attempts: retry.attempts,
        backoff: { type: 'exponential', delay: retry.backoffMs },
        removeOnComplete: { count: 200 },
        removeOnFail: { count: 200 },
      });
      return view(job, queue);
    }),
    list: guarded(async (limit: number) => {
      const jobs = await queue.getJobs(['active', 'waiting', 'delayed', 'prioritized', 'completed', 'failed'], 0, limit - 1, false);
      const views = await Promise.all(jobs.filter(Boolean).map((j) => view(j, queue)));
      return views.sort((a, b) => b.created_at.localeCompare(a.created_at) || Number(b.id) - Number(a.id)).slice(0, limit);
    }),
    get: guarded(async (id: string) => {
      const job = await queue.getJob(id);
      if (!job) throw notFound('Job', { id });
      return view(job, queue);
    }),
  };
}

/** Create the market job system. */
export function createMarketJobs(options: MarketJobsOptions): MarketJobs {
  const { redis, logger } = options;
  const retry = options.retry ?? { attempts: 3, backoffMs: 1000 };
  const prefix = `${redis.prefix}bull`;
  // BullMQ does not close a connection it was given: keep it to close it ourselves.
  const queueConnection = redis.connect('command', 'queue');
  const queueName = options.queueName ?? MARKET_QUEUE;
  const queue = new Queue<JobData, JobResult>(queueName, { connection: queueConnection, prefix });
  queue.on('error', (err) => logger.warn({ err: err.message }, 'market queue error'));
  const workers = createMarketWorkers({ redis, logger, queueName, prefix, lockMs: options.lockMs ?? 30_000, attempts: retry.attempts });
  let closing: Promise<void> | undefined;

  return {
    queue,
    async ready(timeoutMs) {
      await Promise.race([queue.waitUntilReady().catch(() => undefined), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    },
    ...producerOf(queue, retry, logger),
    startWorkers: (n, deps, readyTimeoutMs = 2000) => workers.start(n, deps, readyTimeoutMs),
    close(timeoutMs = 10_000) {
      closing ??= (async () => {
        const until = Date.now() + (Number.isFinite(timeoutMs) ? timeoutMs : 10_000);
        await workers.stop(until);
        if (queueConnection.status === 'ready') await settledWithin(queue.close(), until - Date.now());
        dropConnections([queueConnection, ...workers.connections]);
      })();
      return closing;
    },
  };
}
