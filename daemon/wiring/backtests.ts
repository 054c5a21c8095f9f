/**
 * Backtest workers: in each daemon (default; it already holds the market history the
 * runs read) and, when `worker_backtests` > 0, in `stockscreend worker` processes, which then
 * read their own copy of the history (≈100 MB for a full market; see daemon/backtest/README.md).
 */
import { createBacktestService, type BacktestService } from '../backtest/backtest-service.js';
import { createAsOfService } from '../history/as-of-service.js';
import { loadMarketHistory, type HistorySources } from '../history/history-loader.js';
import { INDICATOR_IDS } from '../indicators/registry.js';
import type { PartList } from '../infra/parts.js';
import { backtestQueueName, createBacktestJobs, type BacktestJobs, type BacktestRunner } from '../jobs/backtest-jobs.js';
import { parseScreenRequest } from '../screening/request/request.js';
import { createMemoryBudget } from '../screening/engine/memory-budget.js';
import { createBacktestsRepo, type BacktestsRepo } from '../store/backtests-repo.js';
import type { IndicatorsRepo } from '../store/indicators-repo.js';
import type { CoreParts } from './core.js';

/** Run backtest jobs in this process, `concurrency` at a time; a job that failed for good fails its run. */
export function startBacktestWorker(
  parts: { service: BacktestService; jobs: BacktestJobs; repo: BacktestsRepo },
  concurrency: number,
  runner: BacktestRunner = (job, hooks) => parts.service.run(job, hooks),
): Promise<boolean> {
  return parts.jobs.startWorker(runner, (job, reason) => parts.repo.finish(job.id, { error: `failed: ${reason}` }), concurrency);
}

/**
 * Backtests in a `stockscreend worker` process: its own as-of service over the database, on the
 * data version of the latest indicator run (read again before each run).
 */
export async function buildWorkerBacktests(
  core: CoreParts,
  parts: HistorySources & { indicators: Pick<IndicatorsRepo, 'latestRun'> },
  concurrency: number,
  list: PartList,
): Promise<void> {
  const { config, logger, databaseId } = core.core;
  const { db } = core;
  let version = (await parts.indicators.latestRun())?.version ?? 'none';
  const asOf = createAsOfService({ version: () => version, loadHistory: (v) => loadMarketHistory(parts, v), memory: createMemoryBudget(config.memory_budget_mb * 1024 * 1024) });
  const knownFields = new Set<string>(INDICATOR_IDS);
  const repo = createBacktestsRepo(db);
  const backtestJobs = createBacktestJobs({ redis: core.redis.factory, logger, lockMs: config.job_lock_ms, sliceDates: config.backtest_slice_dates, queueName: backtestQueueName(databaseId) });
  const service = createBacktestService({
    // A worker process only runs runs checked when they were asked for.
    asOf, parseScreen: (body) => parseScreenRequest(body, knownFields), presetQuery: async () => undefined,
    repo, riskFreeRate: config.risk_free_rate, queue: backtestJobs, onError: (err, id) => logger.warn({ err, backtest: id }, 'backtest failed'),
  });
  list.add({
    name: 'backtests',
    start: () => startBacktestWorker({ service, jobs: backtestJobs, repo }, concurrency, async (job, hooks) => {
      version = (await parts.indicators.latestRun())?.version ?? version;
      return service.run(job, hooks);
    }),
    // The service before the queue: a run under way stops at its next rebalance date and goes back to the queue.
    async stop() {
      await service.close();
      await backtestJobs.close();
    },
  });
}
