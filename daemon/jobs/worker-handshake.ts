/**
 * Closing a BullMQ worker during its connection handshake kills the process: the worker opens a
 * second (blocking) connection of its own, close() removes every listener of it, and the
 * handshake still under way then rejects into an 'error' event nobody listens to. So each worker's
 * handshake is remembered when it is made, and waited for (briefly, and only while Redis is up)
 * before the worker is closed. Making one has its own step for the same reason (a worker is made
 * only once its connection is up), and so does dropping the connections at the end. The three
 * queues (market data, backtests, deliveries) share these steps.
 */
import { isNotConnectionError, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisFactory } from '../infra/redis.js';
import { dropRedis } from '../infra/redis.js';
import { settledWithin } from '../infra/shutdown.js';

/** What every queue's workers are made with (the queue's settings). */
export interface WorkerSettings {
  redis: RedisFactory;
  logger: Logger;
  queueName: string;
  prefix: string;
  lockMs: number;
  /** Runs of a job in all: a job whose worker died counts as one. */
  attempts: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyWorker = Worker<any, any>;

const handshakes = new WeakMap<AnyWorker, Promise<unknown>>();

/** The most a close waits for a handshake (ms). */
const HANDSHAKE_WAIT_MS = 2000;

/** Remember `worker`'s handshake; call right after making it. Returns the worker. */
export function trackHandshake<W extends AnyWorker>(worker: W): W {
  handshakes.set(worker, worker.waitUntilReady().catch(() => undefined));
  stopRetryingWhenClosing(worker);
  return worker;
}

/** The step BullMQ's worker runs its Redis calls through, retrying those that fail on the connection. */
type RetryStep = (fn: () => Promise<unknown>, opts: unknown) => Promise<unknown>;

/**
 * BullMQ's worker retries a call that failed on the connection (scheduling a job scheduler's next
 * run, say) until it succeeds, pausing between tries only while the worker is not closing. Closed
 * with Redis gone, that is a loop of at once rejected promises that never yields to the event loop:
 * the process stops answering, even its shutdown timer. Once closing, a call that failed on the
 * connection is given up instead (what it would have written, a scheduler's next run, is declared
 * again at the next start).
 * Kept to the worker's own step, when the installed BullMQ has one by that name.
 */
function stopRetryingWhenClosing(worker: AnyWorker): void {
  const target = worker as unknown as { retryIfFailed?: RetryStep; closing?: unknown };
  const retry = target.retryIfFailed;
  if (typeof retry !== 'function') return;
  target.retryIfFailed = (fn, opts) => retry.call(worker, async () => {
    try {
      return await fn();
    } catch (err) {
      // Anything else (or any failure while not closing) goes to BullMQ's own handling, unchanged.
      if (target.closing && err instanceof Error && !isNotConnectionError(err)) return undefined;
      throw err;
    }
  }, opts);
}

/**
 * Close `worker` once its handshake is over. With Redis down the handshake cannot finish and a
 * polite close would wait for it (QUIT queued for a reconnect that never comes): closed at once.
 * `abandon`: do not wait for the job under way either.
 */
export async function closeAfterHandshake(worker: AnyWorker, redisUp: boolean, abandon = false): Promise<void> {
  if (redisUp) await settledWithin(handshakes.get(worker) ?? Promise.resolve(), HANDSHAKE_WAIT_MS);
  await worker.close(abandon || !redisUp);
}

/**
 * Make a worker once `connection` is up, and remember its handshake; null when the connection
 * ended first or `closing()` says the owner is closing by then. A BullMQ worker still waiting for
 * Redis when it is closed fails into an emitter without listeners (an unhandled rejection), so
 * none is made before its connection answers.
 */
export async function workerOnceConnected<W extends AnyWorker>(connection: Redis, closing: () => boolean, make: () => W): Promise<W | null> {
  const up = await new Promise<boolean>((resolve) => {
    if (connection.status === 'ready') return resolve(true);
    connection.once('ready', () => resolve(true));
    connection.once('end', () => resolve(false));
  });
  if (!up || closing()) return null;
  return trackHandshake(make());
}

/** Whether `ready` resolved true within `ms` (false when it resolved false or took longer). */
export async function readyWithin(ready: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  const ok = await Promise.race([ready, timedOut]);
  clearTimeout(timer);
  return ok;
}

/**
 * Drop the connections of a queue and its workers, the last step of a close. One that never
 * reached Redis has BullMQ still waiting for it, and on its 'end' that wait fails into an emitter
 * whose listeners close() removed (an unhandled rejection): its 'end' listeners go first, leaving
 * that wait pending.
 */
export function dropConnections(connections: ReadonlyArray<Redis | undefined>): void {
  for (const c of connections) {
    if (!c) continue;
    if (c.status !== 'ready') c.removeAllListeners('end');
    dropRedis(c);
  }
}
