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
import { runShutdownSteps, type ShutdownStep } from './infra/shutdown.js';
import { buildCore, SNAPSHOT_CHANNEL } from './wiring/core.js';
import { buildWorkerBacktests } from './wiring/backtests.js';
import { buildJobs, createMarketParts } from './wiring/market.js';
import { buildSources } from './wiring/sources.js';

/** A running worker process. */
export interface WorkerProcess {
  close(): Promise<void>;
}

/** Start `config.workers` (at least 1) job workers. @throws when the database cannot be opened */
export async function startWorker(config: Config, logger: Logger = createConfiguredLogger(config)): Promise<WorkerProcess> {
  const opened: ShutdownStep[] = [];
  try {
    const core = await buildCore(config, { clock: systemClock, logger, connectionName: 'worker-api' }, opened);
    const parts = createMarketParts(core.db);
    const workers = Math.max(1, config.workers);
    const sources = buildSources(core);
    opened.push(['sources', () => sources.close()]);
    await buildJobs(core, parts, workers, (run) => core.notifier.publish(SNAPSHOT_CHANNEL, run.version), opened, sources);
    if (config.worker_backtests > 0) await buildWorkerBacktests(core, parts, config.worker_backtests, opened);
    logger.info({ workers, backtests: config.worker_backtests }, 'stockscreend worker ready');
  } catch (err) {
    await runShutdownSteps(opened.reverse(), logger, { level: 'warn', message: 'cleanup after a failed start failed' });
    throw err;
  }
  // Jobs first (they go back to the queue), then pub/sub, Redis, the database; bounded like the daemon's.
  const steps = opened.slice().reverse();
  let closing: Promise<void> | undefined;
  const close = () => {
    const bound = config.shutdown_timeout_ms;
    return runShutdownSteps(steps, logger, { deadline: Date.now() + bound - Math.min(3000, bound / 5) });
  };
  return { close: () => (closing ??= close()) };
}
