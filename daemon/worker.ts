/**
 * `stockscreend worker`: a process that only runs jobs, sharing Redis (and the database) with
 * the daemons, so loading and indicator computation scale out. Built from the daemon's own core
 * builder; it announces each computed snapshot version. With `worker_backtests` > 0 it also runs
 * backtest jobs (reading its own copy of the market history).
 */
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { systemClock } from './infra/clock.js';
import { createConfiguredLogger } from './infra/logger.js';
import { createPartList } from './infra/parts.js';
import { buildCore } from './wiring/core.js';
import { SNAPSHOT_CHANNEL } from './wiring/snapshot-version.js';
import { buildWorkerBacktests } from './wiring/backtests.js';
import { buildJobs } from './wiring/market.js';
import { buildSources } from './wiring/sources.js';
import { createMarketStore } from './wiring/store.js';
import { createSourceDatesRepo } from './store/source-dates-repo.js';

/** A running worker process. */
export interface WorkerProcess {
  close(): Promise<void>;
}

/**
 * Build and start `config.workers` (at least 1) job workers. The parts, in starting order:
 * database, redis, notifier, sources, jobs, backtests (when asked); they stop in the reverse order.
 * @throws when the database cannot be opened or a part cannot start (what was opened is closed first)
 */
export async function startWorker(config: Config, logger: Logger = createConfiguredLogger(config)): Promise<WorkerProcess> {
  const list = createPartList();
  // Bounded like the daemon's: jobs go back to the queue first, then pub/sub, Redis, the database.
  const bound = config.shutdown_timeout_ms;
  const stop = () => list.stop(logger, { deadline: Date.now() + bound - Math.min(3000, bound / 5) });
  const workers = Math.max(1, config.workers);
  try {
    const base = await buildCore(config, { clock: systemClock, logger, connectionName: 'worker-api' }, list);
    // Only the market data's repositories: a worker serves no accounts, alerts or notifications.
    const market = createMarketStore(base.db);
    const sources = buildSources({ ...base, store: { db: base.db, sourceDates: createSourceDatesRepo(base.db) } });
    list.add({ name: 'sources', stop: () => sources.close() });
    await buildJobs(base, market.marketData, workers, (run) => base.redis.notifier.publish(SNAPSHOT_CHANNEL, run.version), list, sources);
    if (config.worker_backtests > 0) await buildWorkerBacktests(base, market, config.worker_backtests, list);
  } catch (err) {
    await list.stop(logger, { level: 'warn', message: 'cleanup after a failed start failed' });
    throw err;
  }
  try {
    await list.start();
  } catch (err) {
    await stop();
    throw err;
  }
  logger.info({ workers, backtests: config.worker_backtests }, 'stockscreend worker ready');
  return { close: stop };
}
