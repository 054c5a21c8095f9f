/**
 * Decides when Redis is unavailable for the checks that fail open (rate limits, token
 * revocation), from the connection's state and failed commands — never from a deadline
 * measured on our own busy event loop (a deadline that starts while the loop is blocked would report our
 * own load as Redis's outage).
 *
 * - Connection not ready: unavailable at once (nothing is sent).
 * - A reply is late only if it is still missing after the event loop has read its sockets:
 *   when the deadline fires, the verdict waits one `setImmediate` (after the poll phase), so
 *   a reply that arrived while we were busy is used.
 * - After `failuresToTrip` consecutive failed calls (errors or replies that never came) Redis
 *   is treated as down: calls fail at once, except one probe at a time whose success closes
 *   the circuit again.
 */
import type { Redis } from 'ioredis';

/** Thrown when a guarded call cannot be answered; callers fail open on it. */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

/** Options of the guard. */
export interface RedisGuardOptions {
  /** A reply still missing this long after the command was written (and read) is a failure. */
  timeoutMs: number;
  /** Consecutive failed calls after which Redis is treated as down (calls fail at once). */
  failuresToTrip: number;
}

/** The guard over one command connection. */
export interface RedisGuard {
  /**
   * Send a command (the callback must write it synchronously, as ioredis does on a ready
   * connection) and wait for its reply as described in the file comment.
   * @throws RedisUnavailableError when Redis is unavailable or the reply failed or never came
   */
  run<T>(send: () => Promise<T>): Promise<T>;
  /** The guarded connection (commands sent through `run` must use it). */
  readonly redis: Redis;
  /** False while the connection is not ready or the circuit is open. */
  available(): boolean;
}

/** Create a guard over `redis` (a connection without its own command timeout). */
export function createRedisGuard(redis: Redis, options: RedisGuardOptions): RedisGuard {
  let failures = 0;
  let probing = false;
  const tripped = () => failures >= options.failuresToTrip;

  function settle<T>(reply: Promise<T>, probe: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let done = false;
      const finish = (ok: boolean, value?: T, err?: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (probe) probing = false;
        if (ok) {
          failures = 0;
          return resolve(value as T);
        }
        failures++;
        reject(err instanceof RedisUnavailableError ? err : new RedisUnavailableError(err instanceof Error ? err.message : String(err)));
      };
      reply.then((v) => finish(true, v), (e: unknown) => finish(false, undefined, e));
      // After the poll phase: a reply that sat in the socket while we were busy is read by now.
      const timer = setTimeout(() => setImmediate(() => finish(false, undefined, new RedisUnavailableError(`redis did not answer within ${options.timeoutMs} ms`))), options.timeoutMs);
    });
  }

  return {
    redis,
    available: () => redis.status === 'ready' && !tripped(),
    run(send) {
      if (redis.status !== 'ready') return Promise.reject(new RedisUnavailableError(`redis connection ${redis.status}`));
      let probe = false;
      if (tripped()) {
        if (probing) return Promise.reject(new RedisUnavailableError('redis unavailable (recent commands failed)'));
        probing = probe = true;
      }
      let reply: Promise<unknown>;
      try {
        reply = send();
      } catch (err) {
        if (probe) probing = false;
        failures++;
        return Promise.reject(new RedisUnavailableError((err as Error).message));
      }
      return settle(reply as Promise<never>, probe);
    },
  };
}
