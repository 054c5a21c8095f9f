/** Waits for a market-data job through BullMQ's QueueEvents (no polling, no sleeps). */
import { QueueEvents } from 'bullmq';
import type { Daemon } from '../../daemon/daemon.js';

/** Resolve with the job's return value once it completes; reject with its failure reason. */
export async function waitForJob(daemon: Daemon, id: string, timeoutMs = 120_000): Promise<unknown> {
  const { jobs: { market: jobs }, redis: { factory } } = daemon.context();
  const events = new QueueEvents(jobs.queue.name, { connection: factory.connect('bullmq', 'test-events'), prefix: `${factory.prefix}bull` });
  try {
    await events.waitUntilReady();
    const job = await jobs.queue.getJob(id);
    if (!job) throw new Error(`job ${id} not found`);
    return await job.waitUntilFinished(events, timeoutMs);
  } finally {
    await events.close();
  }
}

/**
 * Resolve once a market-data job is delayed (a source run waiting for the next day's quota),
 * through BullMQ's QueueEvents; reject when it completes or fails instead, or after `timeoutMs`.
 */
export async function waitForDelayed(daemon: Daemon, id: string, timeoutMs = 30_000): Promise<void> {
  const { jobs: { market: jobs }, redis: { factory } } = daemon.context();
  const events = new QueueEvents(jobs.queue.name, { connection: factory.connect('bullmq', 'test-events'), prefix: `${factory.prefix}bull` });
  try {
    await events.waitUntilReady();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`job ${id} not delayed within ${timeoutMs} ms`)), timeoutMs);
      const settle = (fn: () => void) => () => { clearTimeout(timer); fn(); };
      events.on('delayed', ({ jobId }) => { if (jobId === id) settle(resolve)(); });
      events.on('completed', ({ jobId }) => { if (jobId === id) settle(() => reject(new Error(`job ${id} completed instead of waiting`)))(); });
      events.on('failed', ({ jobId, failedReason }) => { if (jobId === id) settle(() => reject(new Error(`job ${id} failed: ${failedReason}`)))(); });
      // It may have been delayed before the listener was ready.
      void jobs.queue.getJob(id).then((job) => job?.getState()).then((state) => { if (state === 'delayed') settle(resolve)(); });
    });
  } finally {
    await events.close();
  }
}

/**
 * The market-data queue's name under `prefix` (each database has its own queue, named by its
 * identity; a test's daemons share one database, so there is one).
 * @throws when no market queue exists under the prefix yet
 */
async function marketQueueAt(connection: import('ioredis').Redis, prefix: string): Promise<string> {
  const metas = await connection.keys(`${prefix}bull:market-*:meta`);
  const name = metas[0]?.slice(`${prefix}bull:`.length, -':meta'.length);
  if (!name || metas.length > 1) throw new Error(`expected one market queue under ${prefix}, found ${metas.length}`);
  return name;
}

/** Like waitForJob for a job of daemons in other processes: their Redis URL and key prefix. */
export async function waitForJobAt(redisUrl: string, prefix: string, id: string, timeoutMs = 120_000): Promise<unknown> {
  const { Queue } = await import('bullmq');
  const { Redis } = await import('ioredis');
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const eventsConnection = connection.duplicate();
  const name = await marketQueueAt(connection, prefix);
  const events = new QueueEvents(name, { connection: eventsConnection, prefix: `${prefix}bull` });
  const queue = new Queue(name, { connection, prefix: `${prefix}bull` });
  try {
    await events.waitUntilReady();
    const job = await queue.getJob(id);
    if (!job) throw new Error(`job ${id} not found`);
    return await job.waitUntilFinished(events, timeoutMs);
  } finally {
    await events.close();
    await queue.close();
    // BullMQ leaves connections it was given open.
    eventsConnection.disconnect();
    connection.disconnect();
  }
}
