/**
 * Market-data wiring: the screening snapshot and service, as-of screens and backtests (the role
 * `screening`), and the market job queue with its in-process workers (`jobs.market`).
 */
import { createBacktestService, type BacktestService } from '../backtest/backtest-service.js';
import type { Config } from '../config.js';
import { createAsOfService } from '../history/as-of-service.js';
import { createAsOfThread } from '../history/as-of-thread.js';
import { loadMarketHistory } from '../history/history-loader.js';
import { INDICATOR_IDS } from '../indicators/registry.js';
import { JOB_STATES, registerJobCounts, registerMemoryBudget } from '../infra/metrics.js';
import type { PartList } from '../infra/parts.js';
import { closeRedis } from '../infra/redis.js';
import type { Redis } from 'ioredis';
import { backtestQueueName, createBacktestJobs, type BacktestJobs } from '../jobs/backtest-jobs.js';
import { createMarketJobs, type MarketJobs } from '../jobs/market-jobs.js';
import { marketQueueName } from '../jobs/types.js';
import type { IndicatorRun } from '../store/indicators-repo.js';
import { sampleSource } from '../jobs/sample-source.js';
import { uploadsDir } from '../jobs/uploads.js';
import type { MarketDataService } from '../market/market-data-service.js';
import { checkBacktestBudget } from '../screening/engine/cost.js';
import { createMemoryBudget } from '../screening/engine/memory-budget.js';
import { createScreenService, type ResultCache } from '../screening/engine/screen-service.js';
import type { SnapshotRow } from '../screening/engine/snapshot.js';
import { createSnapshotService } from '../screening/engine/snapshot-service.js';
import { startBacktestWorker } from './backtests.js';
import type { DaemonContext, MarketStore, ScreeningContext, SourcesContext } from './context.js';
import { createSnapshotSwaps } from './snapshot-version.js';
import { scheduleSources } from './sources.js';

/** Snapshot rows: every stock with its latest indicators and universe flags. */
export async function loadSnapshotRows(parts: Pick<MarketStore, 'stocks' | 'indicators' | 'prices'>): Promise<{ version: string; rows: SnapshotRow[] }> {
  const run = await parts.indicators.latestRun();
  const [stocks, values, halts] = await Promise.all([parts.stocks.all(), parts.indicators.all(), parts.prices.latestHalts()]);
  const rows = stocks.map((s): SnapshotRow => ({
    code: s.code, name: s.name, name_english: s.name_english, market: s.market, sector: s.sector, industry: s.industry, board: s.board,
    flags: { administrative: s.is_administrative, spac: s.is_spac, preferred: s.is_preferred, halted: halts.get(s.code)?.trade_date === run?.as_of },
    values: values.get(s.code) ?? {},
  }));
  return { version: run?.version ?? `none:${stocks.length}`, rows };
}

/**
 * Load the first snapshot; build the screen service (its cache in Redis), as-of screens and
 * backtests (their queue; the part `backtests` runs `backtest_workers` at a time in this process once started).
 */
export async function buildScreening(ctx: Pick<DaemonContext, 'core' | 'redis' | 'store'>, list: PartList): Promise<{ screening: ScreeningContext; backtestJobs: BacktestJobs }> {
  const { config, logger, metrics } = ctx.core;
  const { store } = ctx;
  const swaps = createSnapshotSwaps(logger);
  const snapshot = createSnapshotService({ fields: INDICATOR_IDS, loadRows: () => loadSnapshotRows(store), onSwap: (next) => swaps.swapped(next) });
  await snapshot.refresh();
  const knownFields = new Set<string>(INDICATOR_IDS);
  // One byte budget for the as-of series and snapshots, the memo and the answers kept in process.
  const memory = createMemoryBudget(config.memory_budget_mb * 1024 * 1024);
  registerMemoryBudget(metrics.registry, () => memory.stats());
  const builder = config.as_of_thread
    ? createAsOfThread({ memory, onEnded: (err) => logger.warn({ err }, 'the as-of thread stopped; the next as-of request starts it again') })
    : undefined;
  const asOf = createAsOfService({ version: () => snapshot.current().version, loadHistory: (v) => loadMarketHistory(store, v), memory, ...(builder ? { builder } : {}) });
  // Stopped after the backtests (built below, so stopped before): a run under way reads it.
  list.add({ name: 'as-of thread', stop: () => asOf.close() });
  // The result cache's own commands (its reads with rate limits off, writes of shared answers; with
  // limits on the limiter's call reads it) come one or two per request, never many in one tick:
  // written at once, they skip the auto-pipeline's batch object and its extra turn of the event loop
  // (measured as about a tenth of a cache miss's CPU on the shared command connection).
  const cacheConnection = ctx.redis.factory.connect('command', 'screen-cache', { autoPipelining: false });
  list.add({ name: 'redis screen cache', stop: () => closeRedis(cacheConnection) });
  const screens = createScreenService({
    memory,
    snapshot,
    asOf: (date, fields) => asOf.snapshotAt(date, fields),
    knownFields,
    ttlSeconds: config.screen_cache_ttl_s,
    limits: config.screen_limits,
    cache: screenCache(ctx.redis.factory, cacheConnection),
  });
  const { backtestService, backtestJobs } = buildBacktests(ctx, { asOf, screens, knownFields }, list);
  return { screening: { snapshot, swaps, screens, knownFields, asOf, backtestService }, backtestJobs };
}

/**
 * Screen answers kept in Redis under the deployment prefix, on `connection`; the rate limiter reads
 * them (and counts the requests for them) under the keys `redisKeys` names.
 */
function screenCache(factory: DaemonContext['redis']['factory'], connection: Redis): ResultCache {
  return {
    get: (key) => connection.getBuffer(factory.key('screen', key)),
    set: async (key, value, ttl) => void (await connection.set(factory.key('screen', key), value, 'EX', ttl)),
    redisKeys: (key) => ({ value: factory.key('screen', key), asked: factory.key('screen-asked', key) }),
  };
}

/** The backtest service and queue (part `backtests`: this daemon's worker on the queue once started). */
function buildBacktests(
  ctx: Pick<DaemonContext, 'core' | 'redis' | 'store'>,
  screening: Pick<ScreeningContext, 'asOf' | 'screens' | 'knownFields'>,
  list: PartList,
): { backtestService: BacktestService; backtestJobs: BacktestJobs } {
  const { config, logger, metrics, databaseId } = ctx.core;
  const { presets, backtests: repo } = ctx.store;
  const { asOf, screens, knownFields } = screening;
  const backtestJobs = createBacktestJobs({ redis: ctx.redis.factory, logger, lockMs: config.job_lock_ms, sliceDates: config.backtest_slice_dates, queueName: backtestQueueName(databaseId) });
  registerJobCounts(metrics.registry, () => backtestJobs.queue.getJobCounts(...JOB_STATES), 500, { name: 'stockscreen_backtest_jobs', queue: 'backtests' });
  const backtestService = createBacktestService({
    asOf, parseScreen: (body, caller) => screens.parse(body, caller), presetQuery: async (userId, id) => (await presets.get(userId, id))?.query,
    repo, riskFreeRate: config.risk_free_rate, onError: (err, id) => logger.warn({ err, backtest: id }, 'backtest failed'),
    checkCost: (query, signals, tier) => checkBacktestBudget(query, knownFields, signals, config.screen_limits[tier], tier),
    queue: backtestJobs, limits: { perTier: config.backtest_limits, queued: config.backtest_queue_max }, planWaitMs: config.backtest_plan_wait_ms,
  });
  list.add({
    name: 'backtests',
    // Not waited for: with Redis unreachable the worker connects (and takes runs) once it is back.
    start: () => void (config.backtest_workers > 0 && startBacktestWorker({ service: backtestService, jobs: backtestJobs, repo }, config.backtest_workers)),
    // A backtest under way stops at its next rebalance date and goes back to the queue, where
    // another daemon's worker takes it; then this daemon's worker and the queue close.
    async stop() {
      await backtestService.close();
      await backtestJobs.close();
    },
  });
  return { backtestService, backtestJobs };
}

/** Where job files may come from. */
export function importRootsOf(config: Config) {
  return { importDirs: config.import_dirs, uploadsDir: uploadsDir(config.data_dir) };
}

/**
 * The job queue and its counts in /metrics; the part `jobs` starts `workers` in-process workers
 * (none when 0) and registers the data sources' daily runs. `onIndicatorsComputed` runs before a
 * compute job completes. A load under way when the part stops rolls back and goes back to the queue.
 */
export async function buildJobs(
  ctx: Pick<DaemonContext, 'core' | 'redis'>,
  marketData: MarketDataService,
  workers: number,
  onIndicatorsComputed: (run: IndicatorRun) => Promise<void>,
  list: PartList,
  sources?: SourcesContext,
): Promise<MarketJobs> {
  const { config, logger, metrics, databaseId } = ctx.core;
  const jobs = createMarketJobs({ redis: ctx.redis.factory, logger, lockMs: config.job_lock_ms, queueName: marketQueueName(databaseId) });
  list.add({
    name: 'jobs',
    async start() {
      if (workers > 0) {
        await jobs.startWorkers(workers, { market: marketData, sample: sampleSource, logger, ...importRootsOf(config), onIndicatorsComputed, sources: sources?.syncDeps(marketData) }, ctx.redis.startupWaitMs);
      }
      // Not waited for: with Redis unreachable the schedulers are registered by the next daemon start.
      if (sources) await scheduleSources(jobs.queue, sources.drivers, config).catch((err: Error) => logger.warn({ err: err.message }, 'data-source schedules not registered'));
    },
    stop: (ms) => jobs.close(ms),
  });
  registerJobCounts(metrics.registry, () => jobs.queue.getJobCounts(...JOB_STATES));
  // Let BullMQ finish its connection handshake so an early close() cannot interrupt it.
  await jobs.ready(ctx.redis.startupWaitMs);
  return jobs;
}
