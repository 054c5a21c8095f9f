/**
 * Redis connections by role: API-side commands fail fast
 * (no offline queue), BullMQ connections retry forever, subscribers get their own.
 * Every key the service writes goes through `keys()` so one prefix isolates a deployment.
 */
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** The roles a Redis connection can play. */
export type RedisRole = 'command' | 'subscriber' | 'bullmq';

/** Options for the Redis connection factory. */
export interface RedisFactoryOptions {
  url: string;
  prefix: string;
  logger: Logger;
  /**
   * Commands on `command` connections fail with "Command timed out" after this many ms
   * (default 500), so a Redis that accepts connections but never answers cannot stall a
   * request. Not applied to subscriber/bullmq connections (their reads block on purpose).
   */
  commandTimeoutMs?: number;
}

/** Default of RedisFactoryOptions.commandTimeoutMs. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 500;

/** Creates role-specific connections and prefixed key names. */
export interface RedisFactory {
  /**
   * Creates a new connection for `role`; the caller owns and closes it. `commandTimeoutMs`
   * overrides the factory's for a `command` connection whose reads are long on purpose (0: none);
   * `autoPipelining: false` writes each command at once instead of on the next setImmediate.
   */
  connect(role: RedisRole, name: string, overrides?: { commandTimeoutMs?: number; autoPipelining?: boolean }): Redis;
  /** Key under the deployment prefix, e.g. key('rl', 'user', id) → "stockscreen:rl:user:<id>". */
  key(...parts: (string | number)[]): string;
  readonly prefix: string;
  readonly url: string;
}

/** Create the Redis connection factory (connects nothing until asked). */
export function createRedisFactory(options: RedisFactoryOptions): RedisFactory {
  const { url, prefix, logger } = options;
  const commandTimeout = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  return {
    prefix,
    url,
    key: (...parts) => prefix + parts.join(':'),
    connect(role, name, overrides) {
      const base: RedisOptions = {
        connectionName: `stockscreen:${name}`,
        lazyConnect: false,
        retryStrategy: (times) => Math.min(times * 200, 2000),
      };
      const byRole: Record<RedisRole, RedisOptions> = {
        // No ready check: with the offline queue off, ioredis's INFO ready-check rejects unhandled
        // when the socket closes mid-connect; a fail-fast connection does not need it.
        // Auto-pipelining: commands issued in the same tick (revocation checks, rate-limit scripts
        // of concurrent requests) go out in one socket write instead of one write each.
        // A commandTimeoutMs of 0 means none (ioredis would take 0 as "time out at once").
        command: { enableOfflineQueue: false, enableReadyCheck: false, enableAutoPipelining: overrides?.autoPipelining ?? true, maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: positive(overrides?.commandTimeoutMs ?? commandTimeout) },
        // No ready check: a SUBSCRIBE sent while the check is pending would make its INFO fail
        // ("Connection in subscriber mode") and drop the subscription.
        subscriber: { maxRetriesPerRequest: null, enableReadyCheck: false },
        bullmq: { maxRetriesPerRequest: null, enableReadyCheck: false },
      };
      const client = new Redis(url, { ...base, ...byRole[role] });
      let lastError = '';
      client.on('error', (err: Error) => {
        // Log each distinct failure once; reconnect attempts repeat the same error.
        if (err.message !== lastError) logger.warn({ redis: name, err: err.message }, 'redis connection error');
        lastError = err.message;
      });
      client.on('ready', () => {
        if (lastError) logger.info({ redis: name }, 'redis connection restored');
        lastError = '';
      });
      return client;
    },
  };
}

function positive(ms: number): number | undefined {
  return ms > 0 ? ms : undefined;
}

/** Resolves when `client` is ready, or false after `timeoutMs`. Never throws. */
export function waitReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(done, timeoutMs, false);
    timer.unref();
    client.once('ready', () => done(true));
    function done(ok: boolean) {
      clearTimeout(timer);
      client.off('ready', done);
      resolve(ok);
    }
  });
}

/** Close a connection politely, then forcefully; idempotent. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    if (client.status === 'ready') await client.quit();
    else client.disconnect();
  } catch {
    client.disconnect();
  }
}

/** ioredis messages that mean "Redis cannot answer now", not "this command is wrong". */
const UNAVAILABLE_MESSAGE =
  /^(Stream isn't writeable|Connection is closed|Command timed out|Command aborted due to connection close|Reached the max retries per request limit|connect (ETIMEDOUT|ECONNREFUSED)|(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN) )/;

/**
 * True when `err` says Redis is down, unreachable, hung (command timeout) or not ready
 * yet: the request may succeed later, so the edges answer 503 rather than a masked 500.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  return UNAVAILABLE_MESSAGE.test(err.message);
}
