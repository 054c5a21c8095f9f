/**
 * The parts every process of a deployment needs (the daemon and `stockscreend worker`):
 * clock, logger, metrics, the database, Redis and its pub/sub notifier (the roles `core` and
 * `redis` of the context, and the database the `store` is built over). Built first, so they
 * are the first parts started and the last stopped.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../infra/clock.js';
import { createMetrics } from '../infra/metrics.js';
import { createNotifier } from '../infra/notifier.js';
import { closeRedis, createRedisFactory, waitReady } from '../infra/redis.js';
import type { PartList } from '../infra/parts.js';
import type { Db } from '../store/db.js';
import { openStore } from '../store/open.js';
import { createSecretsRepo } from '../store/secrets-repo.js';
import { sharedDirectoryMode } from '../store/private-files.js';
import type { CoreContext, RedisContext } from './context.js';

/** Redis pub/sub channel announcing a revoked access token ({jti, exp}) to every daemon. */
export const REVOKED_CHANNEL = 'revoked';

/** How long a start waits for Redis to answer before it serves without it (ms). */
export const REDIS_START_GRACE_MS = 2000;

/** What every process builds first: the core, Redis and the open database. */
export interface CoreParts {
  core: CoreContext;
  redis: RedisContext;
  db: Db;
}

/** How this process names itself to Redis (`CLIENT LIST` shows it). */
export interface CoreOptions {
  clock: Clock;
  logger: Logger;
  connectionName: string;
}

/**
 * Open the data dir, the database and Redis.
 * @throws when the data dir cannot be created or the database cannot be opened
 */
export async function buildCore(config: Config, options: CoreOptions, parts: PartList): Promise<CoreParts> {
  const { clock, logger } = options;
  await mkdir(config.data_dir, { recursive: true, mode: 0o700 });
  const shared = await sharedDirectoryMode(config.data_dir);
  if (shared) logger.warn({ data_dir: config.data_dir, mode: shared }, 'the data directory is open to other users: chmod 700 it (it holds the database and the JWT secret)');
  const db = await openStore(config, (err) => logger.warn({ err: err.message }, 'database connection lost; reconnecting on next use'));
  parts.add({ name: 'database', stop: () => db.close() });
  const databaseId = await createSecretsRepo(db).getOrCreate('database_id', () => randomUUID());
  logger.info({ database: db.label, database_id: databaseId }, 'database open');
  const metrics = createMetrics();
  // API-side commands give up after redis_command_timeout_ms: a hung Redis cannot stall a request or a job's reporting.
  const factory = createRedisFactory({ url: config.redis_url, prefix: config.redis_prefix, logger, commandTimeoutMs: config.redis_command_timeout_ms });
  const commands = factory.connect('command', options.connectionName);
  parts.add({ name: 'redis', stop: () => closeRedis(commands) });
  const reachable = await waitReady(commands, REDIS_START_GRACE_MS);
  if (!reachable) {
    logger.warn({ redis_url: config.redis_url }, 'redis not reachable yet; serving anyway (rate limits fail open, /health/redis reports it)');
  }
  // Channels subscribed while building are listened to once the process starts.
  const notifier = createNotifier(factory, commands, logger, { deferred: true });
  parts.add({ name: 'notifier', start: () => notifier.start(), stop: () => notifier.close() });
  return { core: { config, clock, logger, metrics, databaseId }, redis: { factory, commands, notifier, startupWaitMs: reachable ? REDIS_START_GRACE_MS : 0 }, db };
}
