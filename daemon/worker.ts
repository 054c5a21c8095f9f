/**
 * `stockscreend worker`: a process that only runs market-data jobs, sharing Redis (and
 * the database) with the daemons, so loading and indicator computation scale out.
 */
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createMarketParts, SNAPSHOT_CHANNEL } from './daemon.js';
import { createConfiguredLogger } from './infra/logger.js';
import { createNotifier } from './infra/notifier.js';
import { closeRedis, createRedisFactory } from './infra/redis.js';
import { createMarketJobs } from './jobs/market-jobs.js';
import { sampleSource } from './jobs/sample-source.js';
import { uploadsDir } from './jobs/uploads.js';
import { openStore } from './store/open.js';
import { runShutdownSteps } from './infra/shutdown.js';

/** A running worker process. */
export interface WorkerProcess {
  close(): Promise<void>;
}

/** Start `config.workers` (at least 1) job workers. @throws when the database cannot be opened */
export async function startWorker(config: Config, logger: Logger = createConfiguredLogger(config)): Promise<WorkerProcess> {
  const db = await openStore(config, (err) => logger.warn({ err: err.message }, 'database connection lost; reconnecting on next use'));
  logger.info({ database: db.label }, 'database open');
  // Like the daemon's: API-side commands give up after redis_command_timeout_ms (a hung Redis cannot stall a job's reporting).
  const redis = createRedisFactory({ url: config.redis_url, prefix: config.redis_prefix, logger, commandTimeoutMs: config.redis_command_timeout_ms });
  const commands = redis.connect('command', 'worker-api');
  const notifier = createNotifier(redis, commands, logger);
  const parts = createMarketParts(db);
  const jobs = createMarketJobs({ redis, logger, lockMs: config.job_lock_ms });
  await jobs.startWorkers(Math.max(1, config.workers), {
    market: parts.market,
    sample: sampleSource,
    logger,
    importDirs: config.import_dirs,
    uploadsDir: uploadsDir(config.data_dir),
    onIndicatorsComputed: (run) => notifier.publish(SNAPSHOT_CHANNEL, run.version),
  });
  logger.info({ workers: Math.max(1, config.workers) }, 'stockscreend worker ready');
  let closing: Promise<void> | undefined;
  return {
    close: () =>
      (closing ??= runShutdownSteps(
        [
          ['jobs', () => jobs.close()],
          ['notifier', () => notifier.close()],
          ['redis', () => closeRedis(commands)],
          ['database', () => db.close()],
        ],
        logger,
      )),
  };
}
