/**
 * Closing a BullMQ worker during its connection handshake kills the process: the worker opens a
 * second (blocking) connection of its own, close() removes every listener of it, and the
 * handshake still under way then rejects into an 'error' event nobody listens to. So each worker's
 * handshake is remembered when it is made, and waited for (briefly, and only while Redis is up)
 * before the worker is closed.
 */
import type { Worker } from 'bullmq';
import { settledWithin } from '../infra/shutdown.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyWorker = Worker<any, any>;

const handshakes = new WeakMap<AnyWorker, Promise<unknown>>();

/** The most a close waits for a handshake (ms). */
const HANDSHAKE_WAIT_MS = 2000;

/** Remember `worker`'s handshake; call right after making it. Returns the worker. */
export function trackHandshake<W extends AnyWorker>(worker: W): W {
  handshakes.set(worker, worker.waitUntilReady().catch(() => undefined));
  return worker;
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
