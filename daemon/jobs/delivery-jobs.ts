/**
 * The delivery queue (BullMQ queue `deliveries`, shared by every daemon of a deployment):
 *
 * - `collect` — one job per (event, channel), job id `c-<event>-<channel>`: attach the firing to
 *   its channel's group (with no group wait, also its first attempt);
 * - `send` — one job per delivery and redelivery round, job id `s-<delivery>-<round>`: advance the
 *   delivery (close its group, pace, attempt). A wait (the group's window, a pacing slot, a retry's
 *   backoff) moves the same job to the delayed set until then (`moveToDelayed`, not counted as an
 *   attempt), so a delivery keeps one job for all its retries;
 * - two job schedulers, each run by one worker per interval across daemons: `digest-clock` (due
 *   digests) and `delivery-sweep` (work left behind by a daemon that died between two steps).
 *
 * A worker killed during an attempt stops renewing its job's lock; BullMQ's stalled check (run by
 * every worker) hands the job to another worker once the lock lapses (`job_lock_ms`), any number
 * of times (a stall is never a reason to give a delivery up).
 */
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { AppError, isAppError } from '../errors.js';
import type { Clock } from '../infra/clock.js';
import type { RedisFactory } from '../infra/redis.js';
import { settledWithin } from '../infra/shutdown.js';
import { closeAfterHandshake, dropConnections, workerOnceConnected } from './worker-handshake.js';
import type { DeliveryQueuePort, StepResult } from '../notify/delivery-service.js';

/** The delivery queue's name. */
export const DELIVERY_QUEUE = 'deliveries';

/** What the worker runs. */
export interface DeliveryHandlers {
  collect(eventId: string, channelId: string): Promise<{ id: string; round: number; at: number; created: boolean } | null>;
  step(deliveryId: string): Promise<StepResult>;
  digestTick(): Promise<unknown>;
  sweep(): Promise<unknown>;
}

type DeliveryJobData = { event_id: string; channel_id: string } | { id: string } | Record<string, never>;

/** The queue, its port for the delivery service, and the in-process worker. */
export interface DeliveryJobs extends DeliveryQueuePort {
  queue: Queue<DeliveryJobData>;
  /** Start `concurrency` jobs at a time here and (re)declare the two job schedulers, once Redis answers. Never throws, never waits for Redis. */
  start(handlers: DeliveryHandlers, concurrency: number): Promise<void>;
  /** Stop the worker and close the queue; idempotent. `abandon`: do not wait for the jobs under way. */
  close(abandon?: boolean): Promise<void>;
}

/** Options. */
export interface DeliveryJobsOptions {
  redis: RedisFactory;
  logger: Logger;
  /** The daemon's clock: delivery times are on it; BullMQ's delays are real milliseconds. */
  clock: Clock;
  lockMs: number;
  digestIntervalMs: number;
  sweepIntervalMs: number;
}

/** A transient failure of a step (database or Redis down) is retried with this backoff, capped at a minute. */
const capped = (attemptsMade: number) => Math.min(60_000, 1000 * 2 ** Math.max(0, attemptsMade - 1));

/** Real milliseconds until `atMs` of the daemon's clock. */
const delayUntil = (clock: Clock, atMs: number) => Math.max(0, atMs - clock.now());

/** What the worker runs for each job; `send` queues a delivery's send job. */
function processorOf(h: DeliveryHandlers, send: DeliveryQueuePort['send'], clock: Clock, logger: Logger) {
  return async (job: Job<DeliveryJobData>, token?: string): Promise<void> => {
    switch (job.name) {
      case 'collect': {
        const d = job.data as { event_id: string; channel_id: string };
        const next = await h.collect(d.event_id, d.channel_id);
        if (!next) return;
        // A delivery this item opened and that is due now gets its first attempt here; anything else
        // (a wait, a retry, a delivery another item opened) goes to its send job (idempotent per round).
        if (!next.created || next.at > clock.now()) return send(next.id, next.round, next.at);
        const step = await h.step(next.id);
        if (!step.done) await send(next.id, next.round, step.at);
        return;
      }
      case 'send': {
        const next = await h.step((job.data as { id: string }).id);
        if (next.done || !token) return;
        await job.moveToDelayed(Date.now() + delayUntil(clock, next.at), token);
        throw new DelayedError();
      }
      case 'digest-tick':
        await h.digestTick();
        return;
      case 'sweep':
        await h.sweep();
        return;
      default:
        logger.warn({ job: job.name }, 'unknown delivery job');
    }
  };
}

/** Queue a job, or fail within 2 s when Redis cannot take it (the sweep queues it later). */
async function addFailingFast(queue: Queue<DeliveryJobData>, name: string, data: DeliveryJobData, opts: Record<string, unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError('SERVICE_UNAVAILABLE', 'Delivery queue unavailable (Redis not reachable)')), 2000);
  });
  try {
    await Promise.race([queue.add(name, data, opts), timeout]);
  } catch (err) {
    if (isAppError(err)) throw err;
    throw new AppError('SERVICE_UNAVAILABLE', 'Delivery queue unavailable (Redis not reachable)');
  } finally {
    clearTimeout(timer);
  }
}

const COMMON_OPTIONS = { removeOnComplete: true, removeOnFail: { age: 7 * 86_400, count: 10_000 }, attempts: 1000, backoff: { type: 'capped' } } as const;

/** Create the delivery queue (connects at once; the worker starts with start()). */
export function createDeliveryJobs(options: DeliveryJobsOptions): DeliveryJobs {
  const { redis, logger, clock } = options;
  const prefix = `${redis.prefix}bull`;
  // A BullMQ connection (commands wait for Redis rather than time out): a command timing out inside
  // BullMQ's scheduler upsert surfaces as an unhandled rejection. Producers still fail fast: add() gives up after 2 s.
  const connection = redis.connect('bullmq', 'delivery-queue');
  const queue = new Queue<DeliveryJobData>(DELIVERY_QUEUE, { connection, prefix });
  queue.on('error', (err) => logger.warn({ err: err.message }, 'delivery queue error'));
  const handshake = queue.waitUntilReady().then(() => undefined, () => undefined);
  let worker: Worker<DeliveryJobData> | null = null;
  let workerConnection: ReturnType<RedisFactory['connect']> | undefined;
  let closing: Promise<void> | undefined;

  async function spawnWorker(handlers: DeliveryHandlers, concurrency: number): Promise<void> {
    const conn = (workerConnection = redis.connect('bullmq', 'delivery-worker'));
    const processor = processorOf(handlers, (id, round, atMs) => port.send(id, round, atMs), clock, logger);
    worker = await workerOnceConnected(conn, () => closing !== undefined, () => {
      const w = new Worker<DeliveryJobData>(DELIVERY_QUEUE, processor, {
        connection: conn, prefix, concurrency, lockDuration: options.lockMs, stalledInterval: options.lockMs, maxStalledCount: 1_000_000,
        settings: { backoffStrategy: (attemptsMade: number) => capped(attemptsMade) },
      });
      w.on('error', (err) => logger.warn({ err: err.message }, 'delivery worker error'));
      w.on('failed', (job, err) => {
        if (job && !(err instanceof DelayedError)) logger.warn({ job: job.id, name: job.name, err: err.message }, 'delivery job failed (retried)');
      });
      return w;
    });
  }

  const port: DeliveryJobs = {
    queue,
    async collect(eventId, channelId) {
      await addFailingFast(queue, 'collect', { event_id: eventId, channel_id: channelId }, { ...COMMON_OPTIONS, jobId: `c-${eventId}-${channelId}` });
    },
    async send(deliveryId, round, atMs) {
      await addFailingFast(queue, 'send', { id: deliveryId }, { ...COMMON_OPTIONS, jobId: `s-${deliveryId}-${round}`, delay: delayUntil(clock, atMs) });
    },
    async start(h, concurrency) {
      // Neither step is waited for: with Redis unreachable the daemon serves at once, and they
      // happen once it is back (BullMQ's commands wait for their connection).
      void handshake
        .then(async () => {
          if (closing) return;
          await queue.upsertJobScheduler('digest-clock', { every: options.digestIntervalMs }, { name: 'digest-tick', data: {}, opts: { removeOnComplete: true, removeOnFail: true } });
          await queue.upsertJobScheduler('delivery-sweep', { every: options.sweepIntervalMs }, { name: 'sweep', data: {}, opts: { removeOnComplete: true, removeOnFail: true } });
        })
        .catch((err: Error) => logger.warn({ err: err.message }, 'delivery schedulers not declared (another daemon or the next start declares them)'));
      if (concurrency > 0) void spawnWorker(h, concurrency);
    },
    close(abandon = false) {
      closing ??= (async () => {
        // Redis gone: a polite close would wait for it (QUIT queued for a reconnect that never comes).
        await settledWithin(worker ? closeAfterHandshake(worker, workerConnection?.status === 'ready', abandon) : Promise.resolve(), 10_000);
        if (connection.status === 'ready') {
          await settledWithin(handshake, 2000);
          await settledWithin(queue.close(), 2000);
        }
        dropConnections([connection, workerConnection]);
      })();
      return closing;
    },
  };
  return port;
}
