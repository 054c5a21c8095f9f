/**
 * What the tests of market-load jobs in `stockscreend` processes share: a private Redis (so a test
 * may pause its writes), a test database, a config folder for the processes, the database's market
 * queue with its progress events, and a fingerprint of every market table to compare the database
 * before and after a load.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { createLogger } from '../../daemon/infra/logger.js';
import { createRedisFactory } from '../../daemon/infra/redis.js';
import { createMarketJobs, type MarketJobs } from '../../daemon/jobs/market-jobs.js';
import { marketQueueName } from '../../daemon/jobs/types.js';
import { MARKET_TABLES } from '../../daemon/store/market-meta-repo.js';
import { createSecretsRepo } from '../../daemon/store/secrets-repo.js';
import { stopAllDaemonProcesses } from './daemon-processes.js';
import { startPrivateRedis, type PrivateRedis } from './redis-server.js';
import { openTestDb, type TestDb } from './test-store.js';

/** The parts a market-queue test works with. */
export interface MarketQueueFixture {
  redis: PrivateRedis;
  /** A plain client of the private Redis (CLIENT PAUSE, UNPAUSE). */
  admin: Redis;
  store: TestDb;
  configDir: string;
  jobs: MarketJobs;
  events: QueueEvents;
  /** Stops every daemon process the test started, then closes and removes everything above. */
  close(): Promise<void>;
}

/** Open the fixture: `label` names the database and the config folder, `prefix` the Redis keys. */
export async function openMarketQueueFixture(redisServerBin: string, label: string, prefix: string): Promise<MarketQueueFixture> {
  const logger = createLogger('silent');
  const redis = await startPrivateRedis(redisServerBin);
  const admin = new Redis(redis.url);
  const store = await openTestDb(label);
  const configDir = await mkdtemp(join(tmpdir(), `${label}-`));
  // The processes' queue is their database's: the identity they will read from it.
  const queueName = marketQueueName(await createSecretsRepo(store.db).getOrCreate('database_id', () => randomUUID()));
  const jobs = createMarketJobs({ redis: createRedisFactory({ url: redis.url, prefix, logger }), logger, queueName });
  const eventsConnection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const events = new QueueEvents(queueName, { connection: eventsConnection, prefix: `${prefix}bull` });
  await events.waitUntilReady();
  return {
    redis, admin, store, configDir, jobs, events,
    async close() {
      // A test that failed while Redis was paused must not leave the next steps waiting on it.
      await admin.call('CLIENT', 'UNPAUSE').catch(() => undefined);
      await stopAllDaemonProcesses();
      await events.close();
      // BullMQ leaves a connection it was given open.
      eventsConnection.disconnect();
      await jobs.close();
      admin.disconnect();
      await store.close();
      await redis.stop();
      await rm(configDir, { recursive: true, force: true });
    },
  };
}

/** Every market table's row count and a hash of its rows, to compare a database before and after. */
export async function marketFingerprint(store: TestDb): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of MARKET_TABLES) {
    const rows = (await store.db.all(`SELECT * FROM ${table}`)).map((r) => JSON.stringify(r)).sort();
    out[table] = `${rows.length}:${createHash('sha256').update(rows.join('\n')).digest('hex').slice(0, 16)}`;
  }
  return out;
}
