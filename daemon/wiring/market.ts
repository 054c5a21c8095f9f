/**
 * Market-data wiring: repositories and the market-data service over an open database, the
 * screening snapshot and service, and the job queue with its in-process workers.
 */
import { createBacktestService, type BacktestService } from '../backtest/backtest-service.js';
import { createAsOfService, type AsOfService } from '../history/as-of-service.js';
import { loadMarketHistory } from '../history/history-loader.js';
import { INDICATOR_IDS } from '../indicators/registry.js';
import { JOB_STATES, registerJobCounts, registerMemoryBudget } from '../infra/metrics.js';
import type { PartList } from '../infra/parts.js';
import { closeRedis } from '../infra/redis.js';
import { backtestQueueName, createBacktestJobs, type BacktestJobs } from '../jobs/backtest-jobs.js';
import { createMarketJobs, type MarketJobs } from '../jobs/market-jobs.js';
import { marketQueueName } from '../jobs/types.js';
import type { IndicatorRun } from '../store/indicators-repo.js';
import { sampleSource } from '../jobs/sample-source.js';
import { uploadsDir } from '../jobs/uploads.js';
import { createMarketDataService } from '../market/market-data-service.js';
import { checkBacktestBudget } from '../screening/cost.js';
import { createMemoryBudget } from '../screening/memory-budget.js';
import { createScreenService, type ScreenService } from '../screening/screen-service.js';
import type { SnapshotRow } from '../screening/snapshot.js';
import { createSnapshotService, type SnapshotService } from '../screening/snapshot-service.js';
import type { Db } from '../store/db.js';
import { createFinancialsRepo } from '../store/financials-repo.js';
import { createIndexRepo } from '../store/index-repo.js';
import { createIndicatorsRepo } from '../store/indicators-repo.js';
import { createBacktestsRepo } from '../store/backtests-repo.js';
import { createPresetsRepo, type PresetsRepo } from '../store/presets-repo.js';
import { createDesignationsRepo } from '../store/designations-repo.js';
import { createPricesRepo } from '../store/prices-repo.js';
import { createStocksRepo } from '../store/stocks-repo.js';
import { startBacktestWorker } from './backtests.js';
import type { CoreParts } from './core.js';
import { createSnapshotSwaps, type SnapshotSwaps } from './snapshot-version.js';
import { scheduleSources, type SourceParts } from './sources.js';

/** Build the market-data parts over an open database (the daemon, the worker and the benches). */
export function createMarketParts(db: Db) {
  const stocks = createStocksRepo(db);
  const prices = createPricesRepo(db);
  const financials = createFinancialsRepo(db);
  const indicators = createIndicatorsRepo(db);
  const index = createIndexRepo(db);
  const designations = createDesignationsRepo(db);
  const market = createMarketDataService({ db, stocks, prices, financials, index, indicators, designations });
  return { stocks, prices, financials, indicators, index, designations, market };
}

/** The repositories and market-data service. */
export type MarketParts = ReturnType<typeof createMarketParts>;

/** Snapshot rows: every stock with its latest indicators and universe flags. */
export async function loadSnapshotRows(parts: MarketParts): Promise<{ version: string; rows: SnapshotRow[] }> {
  const run = await parts.indicators.latestRun();
  const [stocks, values, halts] = await Promise.all([parts.stocks.all(), parts.indicators.all(), parts.prices.latestHalts()]);
  const rows = stocks.map((s): SnapshotRow => ({
    code: s.code, name: s.name, name_english: s.name_english, market: s.market, sector: s.sector, industry: s.industry, board: s.board,
    flags: { administrative: s.is_administrative, spac: s.is_spac, preferred: s.is_preferred, halted: halts.get(s.code)?.trade_date === run?.as_of },
    values: values.get(s.code) ?? {},
  }));
  return { version: run?.version ?? `none:${stocks.length}`, rows };
}

/** Screening over the market data. */
export interface ScreeningParts {
  parts: MarketParts;
  snapshot: SnapshotService;
  /** The snapshot swap event: every part that follows the snapshot listens to it. */
  swaps: SnapshotSwaps;
  screens: ScreenService;
  presets: PresetsRepo;
  knownFields: ReadonlySet<string>;
  /** As-of snapshots and the market's history. */
  asOf: AsOfService;
  backtests: BacktestService;
  /** The backtest queue shared by every daemon, and this daemon's worker on it. */
  backtestJobs: BacktestJobs;
}

/**
 * Build the repositories, load the first snapshot, the screen service (its cache in Redis), as-of
 * screens and backtests (their queue; the part `backtests` runs `backtest_workers` at a time in this process once started).
 */
export async function buildScreening(core: CoreParts, list: PartList): Promise<ScreeningParts> {
  const { config, db, redis, logger } = core;
  const parts = createMarketParts(db);
  const swaps = createSnapshotSwaps(logger);
  const snapshot = createSnapshotService({ fields: INDICATOR_IDS, loadRows: () => loadSnapshotRows(parts), onSwap: (next) => swaps.swapped(next) });
  await snapshot.refresh();
  const knownFields = new Set<string>(INDICATOR_IDS);
  // One byte budget for the as-of series and snapshots, the memo and the answers kept in process.
  const memory = createMemoryBudget(config.memory_budget_mb * 1024 * 1024);
  registerMemoryBudget(core.metrics.registry, () => memory.stats());
  const asOf = createAsOfService({ version: () => snapshot.current().version, loadHistory: (v) => loadMarketHistory(parts, v), memory });
  // The result cache's commands come one or two per request, never many in one tick: written at
  // once, they skip the auto-pipeline's batch object and its extra turn of the event loop (measured
  // as about a tenth of a cache miss's CPU on the shared command connection).
  const cacheConnection = redis.connect('command', 'screen-cache', { autoPipelining: false });
  list.add({ name: 'redis screen cache', stop: () => closeRedis(cacheConnection) });
  const screens = createScreenService({
    memory,
    snapshot,
    asOf: (date, fields) => asOf.snapshotAt(date, fields),
    knownFields,
    ttlSeconds: config.screen_cache_ttl_s,
    limits: config.screen_limits,
    cache: {
      get: (key) => cacheConnection.getBuffer(redis.key('screen', key)),
      set: async (key, value, ttl) => void (await cacheConnection.set(redis.key('screen', key), value, 'EX', ttl)),
      redisKeys: (key) => ({ value: redis.key('screen', key), asked: redis.key('screen-asked', key) }),
    },
  });
  const presets = createPresetsRepo(db);
  const repo = createBacktestsRepo(db);
  const backtestJobs = createBacktestJobs({ redis, logger, lockMs: config.job_lock_ms, sliceDates: config.backtest_slice_dates, queueName: backtestQueueName(core.databaseId) });
  registerJobCounts(core.metrics.registry, () => backtestJobs.queue.getJobCounts(...JOB_STATES), 500, { name: 'stockscreen_backtest_jobs', queue: 'backtests' });
  const backtests = createBacktestService({
    asOf, parseScreen: (body, caller) => screens.parse(body, caller), presetQuery: async (userId, id) => (await presets.get(userId, id))?.query,
    repo, riskFreeRate: config.risk_free_rate, onError: (err, id) => logger.warn({ err, backtest: id }, 'backtest failed'),
    checkCost: (query, signals, tier) => checkBacktestBudget(query, knownFields, signals, config.screen_limits[tier], tier),
    queue: backtestJobs, limits: { perTier: config.backtest_limits, queued: config.backtest_queue_max }, planWaitMs: config.backtest_plan_wait_ms,
  });
  list.add({
    name: 'backtests',
    // Not waited for: with Redis unreachable the worker connects (and takes runs) once it is back.
    start: () => void (config.backtest_workers > 0 && startBacktestWorker({ backtests, backtestJobs, repo }, config.backtest_workers)),
    // A backtest under way stops at its next rebalance date and goes back to the queue, where
    // another daemon's worker takes it; then this daemon's worker and the queue close.
    async stop() {
      await backtests.close();
      await backtestJobs.close();
    },
  });
  return { parts, snapshot, swaps, screens, presets, knownFields, asOf, backtests, backtestJobs };
}

/** Where job files may come from. */
export function importRootsOf(config: CoreParts['config']) {
  return { importDirs: config.import_dirs, uploadsDir: uploadsDir(config.data_dir) };
}

/**
 * The job queue and its counts in /metrics; the part `jobs` starts `workers` in-process workers
 * (none when 0) and registers the data sources' daily runs. `onIndicatorsComputed` runs before a
 * compute job completes. A load under way when the part stops rolls back and goes back to the queue.
 */
export async function buildJobs(
  core: CoreParts,
  parts: MarketParts,
  workers: number,
  onIndicatorsComputed: (run: IndicatorRun) => Promise<void>,
  list: PartList,
  sources?: SourceParts,
): Promise<MarketJobs> {
  const { config, logger, redis, metrics } = core;
  const jobs = createMarketJobs({ redis, logger, lockMs: config.job_lock_ms, queueName: marketQueueName(core.databaseId) });
  list.add({
    name: 'jobs',
    async start() {
      if (workers > 0) {
        await jobs.startWorkers(workers, { market: parts.market, sample: sampleSource, logger, ...importRootsOf(config), onIndicatorsComputed, sources: sources?.syncDeps(parts.market) });
      }
      // Not waited for: with Redis unreachable the schedulers are registered by the next daemon start.
      if (sources) await scheduleSources(jobs.queue, sources.drivers, config).catch((err: Error) => logger.warn({ err: err.message }, 'data-source schedules not registered'));
    },
    stop: (ms) => jobs.close(ms),
  });
  registerJobCounts(metrics.registry, () => jobs.queue.getJobCounts(...JOB_STATES));
  // Let BullMQ finish its connection handshake so an early close() cannot interrupt it.
  await jobs.ready(2000);
  return jobs;
}
