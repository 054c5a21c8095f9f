/**
 * Data-source wiring: the job-run sources (KRX Open API, FinanceDataReader's KRX cache, OpenDART) over their HTTP clients, the status
 * store in Redis, the registry every source's status provider is put in (a real-time feed
 * registers its own), and the daily schedules as BullMQ job schedulers on the market queue
 * (one scheduler per source, the same id from every daemon: one run per slot across them).
 */
import { UnrecoverableError, type Queue } from 'bullmq';
import { mixingProblem } from '../jobs/market-content.js';
import { Gauge, type Registry } from 'prom-client';
import type { SourceSyncRequest } from '../contract/jobs.js';
import type { SourceStatus } from '../contract/sources.js';
import type { MarketDataService } from '../market/market-data-service.js';
import type { SourceDriver } from '../sources/driver.js';
import { createFdrSource } from '../sources/fdr-cache.js';
import { createKrxSource } from '../sources/krx-openapi.js';
import { createDartSource } from '../sources/opendart.js';
import { createProviderHttp } from '../sources/provider-http.js';
import { createSourceRegistry } from '../sources/registry.js';
import { createSourceStatusStore, kstDate, type SourceStatusStore } from '../sources/status-store.js';
import type { SourceDatesRepo } from '../store/source-dates-repo.js';
import type { Config } from '../config.js';
import type { DaemonContext, SourcesContext, StoreContext } from './context.js';

/** Source data over the generated sample market: refused unless asked to replace it (as a file load is). */
async function settleContent(market: MarketDataService, replaceSample: boolean): Promise<void> {
  const content = await market.content();
  const problem = mixingProblem({ type: 'load-files', paths: ['-'], compute: false, replace_sample: replaceSample }, { content, stocks: content === 'empty' ? 0 : await market.stockCount() });
  if (problem) throw new UnrecoverableError(problem.message);
  if (content === 'sample') await market.clear();
  if (content !== 'files') await market.setContent('files');
}

/** Largest provider answer read (a whole market's day is ~1.5 MB). */
const MAX_ANSWER_BYTES = 64 * 2 ** 20;

/** Largest CORPCODE.xml inflated from OpenDART's zip (the real one is about 30 MB for some 100,000 companies). */
const MAX_CORPCODE_XML_BYTES = 256 * 2 ** 20;

/** Calls a day to the FDR cache: it publishes no quota, so a polite ceiling (a backfill of years is ~750 calls a year of dates). */
const FDR_DAILY_CALLS = 20_000;

/** Build the sources (no network until a job or a test runs). */
export function buildSources(ctx: Pick<DaemonContext, 'core' | 'redis'> & { store: Pick<StoreContext, 'db' | 'sourceDates'> }): SourcesContext {
  const { config, clock, logger } = ctx.core;
  const { db, sourceDates: dates } = ctx.store;
  const { commands, factory } = ctx.redis;
  const status = createSourceStatusStore(commands, (...parts) => factory.key(...parts), () => clock.now());
  /** A source's HTTP client: the shared time limit, retries and answer cap, its own pacing, its calls counted under its name. */
  const providerHttp = (source: string, minIntervalMs: number) => createProviderHttp({
    timeoutMs: config.source_timeout_ms, retries: config.source_retries, backoffMs: config.source_retry_base_ms,
    maxBytes: MAX_ANSWER_BYTES, minIntervalMs,
    onCall: () => status.countCalls(source).then(() => undefined, () => undefined),
  });
  const krx = createKrxSource({
    apiKey: config.krx_api_key,
    baseUrl: config.krx_api_url,
    publishTime: config.krx_publish_time,
    staleGraceMinutes: config.sources_stale_grace_min,
    dailyCalls: config.krx_daily_calls,
    http: providerHttp('krx', config.krx_min_interval_ms),
  });
  const fdr = createFdrSource({
    baseUrl: config.fdr_cache_url,
    publishTime: config.fdr_publish_time,
    staleGraceMinutes: config.sources_stale_grace_min,
    dailyCalls: FDR_DAILY_CALLS,
    http: providerHttp('fdr', config.fdr_min_interval_ms),
  });
  const dart = createDartSource({
    apiKey: config.dart_api_key,
    baseUrl: config.dart_api_url,
    runTime: config.dart_publish_time,
    staleGraceMinutes: config.sources_stale_grace_min,
    dailyCalls: config.dart_daily_calls,
    batchSize: config.dart_batch_size,
    maxXmlBytes: MAX_CORPCODE_XML_BYTES,
    fullStatements: config.dart_full_statements,
    http: providerHttp('dart', config.dart_min_interval_ms),
  });
  const drivers = new Map<string, SourceDriver>([[krx.name, krx], [fdr.name, fdr], [dart.name, dart]]);
  const registry = createSourceRegistry();
  for (const driver of drivers.values()) {
    registry.registerSourceStatus(driver.name, {
      status: () => driverStatus(driver, status, dates, clock.now()),
      test: () => driver.test(clock.now()),
    });
  }
  return {
    drivers, status, registry,
    syncDeps: (market) => ({ db, market, dates, status, drivers, logger, now: () => clock.now(), catchUpDays: config.sources_catch_up_days, settleContent }),
    close: async () => void (await Promise.all([...drivers.values()].map((d) => d.close()))),
  };
}

/** A job-run source's status: configured, last success, last error, calls today, staleness against the calendar. */
export async function driverStatus(driver: SourceDriver, status: SourceStatusStore, dates: SourceDatesRepo, nowMs: number): Promise<SourceStatus> {
  const [stored, latest] = await Promise.all([status.read(driver.name), dates.latest(driver.name)]);
  const expected = driver.expectedLatest(nowMs);
  const lastSuccessAt = stored.last_success_at ?? latest.loaded_at;
  // Statements have no trading date: what is delivered is the day (KST) of the last complete run.
  const delivered = driver.kind === 'financials' ? (lastSuccessAt ? kstDate(Date.parse(lastSuccessAt)) : null) : latest.unit;
  const stale = driver.configured && (delivered === null || delivered < expected);
  const why = driver.kind === 'financials'
    ? `last complete run ${delivered ?? 'never'}, expected one on ${expected} (daily, in the evening)`
    : `latest data ${delivered ?? 'none'}, expected ${expected} (published the next morning)`;
  return {
    name: driver.name,
    kind: driver.kind,
    configured: driver.configured,
    last_success_at: lastSuccessAt,
    last_success_date: delivered,
    last_error: stored.last_error,
    calls_today: stored.calls_today,
    stale,
    stale_reason: stale ? why : null,
  };
}

/** The data of a source's daily run: its range is decided when it runs (the published dates not stored yet). */
export function scheduledRunData(source: string): SourceSyncRequest {
  return { type: 'source-sync', source, from: '', to: '', compute: true, replace_sample: false, scheduled: true };
}

/** Register (or update) each configured source's daily run on the market queue. */
export async function scheduleSources(queue: Queue, drivers: ReadonlyMap<string, SourceDriver>, config: Config): Promise<void> {
  if (!config.sources_schedule) return;
  const patterns: Record<string, string> = { krx: config.krx_schedule, fdr: config.fdr_schedule, dart: config.dart_schedule };
  for (const driver of drivers.values()) {
    const pattern = patterns[driver.name];
    if (!driver.configured || !pattern) continue;
    await queue.upsertJobScheduler(`source-daily:${driver.name}`, { pattern, tz: 'Asia/Seoul' }, {
      name: 'source-sync',
      data: scheduledRunData(driver.name),
      opts: { attempts: 3, backoff: { type: 'exponential', delay: 60_000 }, removeOnComplete: { count: 200 }, removeOnFail: { count: 200 } },
    });
  }
}

/** Close of a trading date in KST (15:30), ms: what the age of a source's latest data is measured from. */
function closeOf(date: string): number {
  return Date.parse(`${date}T15:30:00+09:00`);
}

/** /metrics: `stockscreen_source_data_age_seconds{source}` and `stockscreen_source_stale{source}` (configured sources). */
export function registerSourceMetrics(registry: Registry, sources: SourcesContext, now: () => number): void {
  const read = async () => (await sources.registry.statuses()).filter((s) => s.configured);
  new Gauge({
    name: 'stockscreen_source_data_age_seconds', help: "Age of each data source's latest data (since that trading day's close)", labelNames: ['source'], registers: [registry],
    async collect() {
      this.reset();
      for (const s of await read().catch(() => [])) if (s.last_success_date) this.set({ source: s.name }, Math.max(0, Math.round((now() - closeOf(s.last_success_date)) / 1000)));
    },
  });
  new Gauge({
    name: 'stockscreen_source_stale', help: '1 while a data source is older than the trading calendar says it should be', labelNames: ['source'], registers: [registry],
    async collect() {
      this.reset();
      for (const s of await read().catch(() => [])) this.set({ source: s.name }, s.stale ? 1 : 0);
    },
  });
}
