/**
 * The market-data queue's workers in this process (market-jobs.ts holds the queue): each made
 * once its Redis connection is up, each run tracked so a close waits for the hand-back of the
 * job under way rather than for BullMQ's whole close.
 */
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { settledWithin } from '../infra/shutdown.js';
import { closeAfterHandshake, readyWithin, workerOnceConnected, type WorkerSettings } from './worker-handshake.js';
import { createMarketProcessor, type MarketProcessorDeps } from './processors/market-processor.js';
import type { JobRequest, JobResult } from './types.js';

/** Stored job data: the request plus who asked. */
export type JobData = JobRequest & { requested_by?: string | null };

/** Settings of the workers (the queue's). */
export type MarketWorkersOptions = WorkerSettings;

/** The workers of this process. */
export interface MarketWorkers {
  /** Start `n` more workers; true once they are connected (at most `readyTimeoutMs`). */
  start(n: number, deps: MarketProcessorDeps, readyTimeoutMs: number): Promise<boolean>;
  /** Hand the running jobs back and close the workers, by `until` (epoch ms); their connections stay for `drop`. */
  stop(until: number): Promise<void>;
  /** Every connection the workers were given (dropped last, after the queue is closed). */
  readonly connections: readonly Redis[];
}

/** Create the (not yet started) workers of the market queue. */
export function createMarketWorkers(options: MarketWorkersOptions): MarketWorkers {
  const { redis, logger } = options;
  const workers: Worker[] = [];
  const connections: Redis[] = [];
  const running = new Set<Promise<JobResult>>();
  let stopping = false;

  function spawn(connection: Redis, processor: (job: Job<JobData, JobResult>, token?: string, signal?: AbortSignal) => Promise<JobResult>): Promise<Worker | null> {
    return workerOnceConnected(connection, () => stopping, () => {
      const worker = new Worker<JobData, JobResult>(options.queueName, processor, {
        connection,
        prefix: options.prefix,
        concurrency: 1,
        // The lock is renewed every lockDuration/2 while the worker lives (the processor yields
        // to the event loop often); a killed worker's job is taken back after it lapses.
        lockDuration: options.lockMs,
        stalledInterval: options.lockMs,
        // A job whose worker died counts as an attempt: it runs at most `attempts` times in all.
        maxStalledCount: Math.max(1, options.attempts - 1),
      });
      worker.on('error', (err) => logger.warn({ err: err.message }, 'market worker error'));
      worker.on('failed', (job, err) => logger.warn({ job: job?.id, err: err.message }, 'market job failed'));
      workers.push(worker);
      return worker;
    });
  }

  return {
    connections,
    async start(n, deps, readyTimeoutMs) {
      const processJob = createMarketProcessor(deps);
      // (Three parameters: BullMQ passes the abort signal only to a processor that declares it.)
      const processor = (job: Job<JobData, JobResult>, token?: string, signal?: AbortSignal): Promise<JobResult> => {
        const run = processJob(job, token, signal);
        running.add(run);
        void run.then(() => running.delete(run), () => running.delete(run));
        return run;
      };
      const started = Array.from({ length: n }, (_, i) => {
        const connection = redis.connect('bullmq', `worker-${i}`);
        connections.push(connection);
        return spawn(connection, processor);
      });
      const ready = Promise.all(started.map(async (w) => (await w)?.waitUntilReady())).then(() => true, () => false);
      const ok = await readyWithin(ready, readyTimeoutMs);
      if (!ok) logger.warn({ workers: n }, 'job workers not connected to redis yet; they take jobs once it is reachable');
      return ok;
    },
    async stop(until) {
      stopping = true;
      // A running job stops at its next progress report, rolls back and goes back to the queue
      // (market-processor.ts): most of the time is for that, not for the whole job.
      for (const w of workers) {
        // Paused first (it sets a flag; nothing waits): a worker would otherwise take the job it just
        // handed back straight up again, this time with nobody to stop it.
        void w.pause(true).catch(() => undefined);
        w.cancelAllJobs('shutdown');
      }
      const handedBack = await settledWithin(Promise.allSettled([...running]), (until - Date.now()) * 0.7);
      if (!handedBack) logger.warn('a running job did not stop in time (the database or Redis not answering); it runs again once its lock lapses');
      // Redis gone: a polite close would wait for it (QUIT queued for a reconnect that never comes).
      const connected = connections.every((c) => c.status === 'ready');
      await settledWithin(Promise.all(workers.map((w) => closeAfterHandshake(w, connected, !handedBack))), (until - Date.now()) * 0.7);
    },
  };
}
