/**
 * A data-source run inside a market-data job: for each unit (trading date) from `from` to `to`,
 * fetch it (outside any transaction), compare its content hash with the stored one (same:
 * nothing is written), else write its records and its source_dates row in ONE transaction — the
 * 5 % rule decided over the whole date before the commit — so a date is all there or not at all,
 * and a backfill of years holds the database one date at a time. After each commit the job's
 * data records `resume_after`: a run stopped by a crash, a kill or a retry goes on after the last
 * committed date. The provider's daily call budget is checked before each date; when it is used
 * up (or the provider says so) the job waits, delayed, until the next KST day and goes on.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { SourceSyncRequest } from '../contract/jobs.js';
import type { SourceSyncSummary } from '../contract/sources.js';
import { assertBadRowRatio, REASONS_LISTED, rejectUnlisted } from '../../loaders/result.js';
import type { RejectedRow } from '../../loaders/types.js';
import { isAppError, type AppError } from '../errors.js';
import { createMarketDataService, marketDataDeps, type MarketDataService } from '../market/market-data-service.js';
import type { FileOutcome, JobProgress, JobResult } from '../contract/jobs.js';
import { transactionDb, type Db, type Queryable } from '../store/db.js';
import type { IndicatorRun } from '../store/indicators-repo.js';
import type { SourceDatesRepo } from '../store/source-dates-repo.js';
import { createStocksRepo } from '../store/stocks-repo.js';
import { partsSource, type FetchedUnit, type PlannedRun, type SourceDriver } from './driver.js';
import { ProviderError } from './provider-http.js';
import { kstDate, type SourceStatusStore } from './status-store.js';

/** Collaborators of a run. */
export interface SourceSyncDeps {
  db: Db;
  market: MarketDataService;
  dates: SourceDatesRepo;
  status: SourceStatusStore;
  drivers: ReadonlyMap<string, SourceDriver>;
  logger: Logger;
  now: () => number;
  /** Most dates a scheduled run catches up on after an outage. */
  catchUpDays: number;
  /**
   * Inside a date's transaction, before its rows: refuse (throw) when real data would mix with
   * the generated sample market, or remove the sample when `replaceSample`; record that the
   * market holds real data.
   */
  settleContent(market: MarketDataService, replaceSample: boolean): Promise<void>;
}

type Report = (patch: Partial<JobProgress>) => Promise<void>;
type SyncJob = Job<SourceSyncRequest & { requested_by?: string | null }, JobResult>;

const MAX_REJECTED_KEPT = 200;

/** Start of the next KST day (ms), plus a minute: when a daily quota is reset. */
function nextKstDay(nowMs: number): number {
  const kstMidnight = Date.parse(`${kstDate(nowMs)}T00:00:00+09:00`);
  return kstMidnight + 86_400_000 + 60_000;
}

/** The range a scheduled run covers: after the latest stored date up to the latest published, at most catchUpDays dates. */
async function scheduledRange(deps: SourceSyncDeps, driver: SourceDriver): Promise<{ from: string; to: string } | null> {
  const to = driver.lastPublished(deps.now());
  const { unit: latest } = await deps.dates.latest(driver.name);
  if (latest !== null && latest >= to) return null;
  const units = driver.units(latest ?? to, to).filter((u) => latest === null || u > latest).slice(-deps.catchUpDays);
  return units.length === 0 ? null : { from: units[0]!, to: units[units.length - 1]! };
}

/** The failure message of a refused date: the reason and up to REASONS_LISTED rejected rows. */
function refusedMessage(unit: string, err: AppError): string {
  const listed = Array.isArray(err.details.first_reasons) ? (err.details.first_reasons as Partial<RejectedRow>[]) : [];
  return [`${unit}: ${err.message}`, ...listed.map((r) => `  ${r.file ?? unit}:${String(r.line)}: ${String(r.reason)}`)].join('\n');
}

/** Write one fetched date in one transaction (records, then its source_dates row). */
async function commitUnit(deps: SourceSyncDeps, driver: SourceDriver, data: SourceSyncRequest, fetched: FetchedUnit): Promise<FileOutcome> {
  const { unit, batches, hash } = fetched;
  let outcome!: FileOutcome;
  await deps.db.transaction(async (tx) => {
    const market = createMarketDataService(marketDataDeps(transactionDb(tx, deps.db.label)));
    await deps.settleContent(market, data.replace_sample);
    const reasons: RejectedRow[] = [];
    await market.applyAll(
      () => {
        // PostgreSQL may run the transaction again: count afresh.
        outcome = { file: `${driver.name}:${unit}`, format: batches[0]?.format ?? driver.name, rows_total: 0, rows_ok: 0, rows_rejected: 0, rejected: [], skipped: [], written: { stocks: 0, bars: 0, halts: 0, financials: 0, index: 0 }, unknown_codes: [] };
        reasons.length = 0;
        return batches.map((b) => ({ ...b, rejected: [...b.rejected] }));
      },
      {
        onBatch(batch, written) {
          rejectUnlisted(batch, new Set(written.unknown_codes));
          outcome.rows_total += batch.rows_total;
          outcome.rows_ok += batch.rows_ok;
          outcome.rows_rejected += batch.rejected.length;
          for (const r of batch.rejected) if (outcome.rejected.length < MAX_REJECTED_KEPT) outcome.rejected.push({ line: r.line, reason: `${r.file}: ${r.reason}` });
          if (reasons.length < REASONS_LISTED) reasons.push(...batch.rejected.slice(0, REASONS_LISTED - reasons.length));
          for (const s of batch.skipped) {
            const same = outcome.skipped.find((x) => x.reason === s.reason);
            if (same) same.count += s.count;
            else outcome.skipped.push({ ...s });
          }
          for (const k of ['stocks', 'bars', 'halts', 'financials', 'index'] as const) outcome.written[k] += written[k];
          outcome.unknown_codes = [...new Set([...outcome.unknown_codes, ...written.unknown_codes])].slice(0, 100);
        },
        beforeCommit() {
          // The loaders' 5 % rule over the whole date (every market's answer), unknown codes included.
          assertBadRowRatio({
            file: `${driver.name}:${unit}`, format: 'krx-openapi', rows_total: outcome.rows_total,
            rows_skipped: outcome.skipped.reduce((n, s) => n + s.count, 0), rows_rejected: outcome.rows_rejected, first_reasons: reasons,
          });
        },
      },
    );
    await deps.dates.record(tx, { source: driver.name, unit, content_hash: hash, rows_ok: outcome.rows_ok, rows_rejected: outcome.rows_rejected, loaded_at: new Date(deps.now()).toISOString() });
    await recordParts(deps, driver, fetched, tx);
  });
  return outcome;
}

/** The unit's parts in the source's parts ledger (inside the unit's transaction when it commits). */
async function recordParts(deps: SourceSyncDeps, driver: SourceDriver, fetched: FetchedUnit, tx: Queryable): Promise<void> {
  const loadedAt = new Date(deps.now()).toISOString();
  for (const part of fetched.parts ?? []) {
    await deps.dates.record(tx, { source: partsSource(driver.name), unit: part.unit, content_hash: part.hash, rows_ok: 0, rows_rejected: 0, loaded_at: loadedAt });
  }
}

/** Record a provider failure and turn it into the job's failure (or a wait for the next day's quota). */
async function fail(deps: SourceSyncDeps, driver: SourceDriver, job: SyncJob, token: string | undefined, err: unknown, report: Report): Promise<never> {
  if (err instanceof ProviderError) {
    await deps.status.recordError(driver.name, { code: err.code, message: err.message }).catch(() => undefined);
    if (err.failure === 'quota') return waitForQuota(deps, job, token, report);
    if (err.failure === 'transient') throw new Error(`${err.code}: ${err.message}`);
    throw new UnrecoverableError(`${driver.name} ${err.code}: ${err.message}`);
  }
  if (isAppError(err) && err.code === 'INVALID_REQUEST') {
    await deps.status.recordError(driver.name, { code: 'REFUSED', message: err.message }).catch(() => undefined);
    throw new UnrecoverableError(err.message);
  }
  if (err instanceof UnrecoverableError) await deps.status.recordError(driver.name, { code: 'REFUSED', message: err.message }).catch(() => undefined);
  throw err;
}

/** The day's calls are used up: the job waits (delayed) until the next KST day, then goes on after its last date. */
async function waitForQuota(deps: SourceSyncDeps, job: SyncJob, token: string | undefined, report: Report): Promise<never> {
  const until = nextKstDay(deps.now());
  await report({ waiting_until: new Date(until).toISOString() });
  if (!token) throw new Error('daily call budget used up');
  // BullMQ schedules on the real clock: wait as long as the source's clock says is left.
  await job.moveToDelayed(Date.now() + Math.max(0, until - deps.now()), token);
  throw new DelayedError();
}

/**
 * Run a source-sync job. Returns its result; indicators are computed by the caller when
 * `loaded > 0` and the request asks for it.
 * @throws UnrecoverableError for what a retry cannot fix (a key problem, a refused date); Error for transient failures (BullMQ retries, resuming after the last committed date); DelayedError while waiting for the quota
 */
export async function runSourceSync(deps: SourceSyncDeps, job: SyncJob, token: string | undefined, result: JobResult, report: Report): Promise<void> {
  const data = job.data;
  const driver = deps.drivers.get(data.source);
  if (!driver) throw new UnrecoverableError(`unknown source ${data.source}`);
  if (!driver.configured) throw new UnrecoverableError(`source ${data.source} is not configured (its key or URL is not set)`);
  let range: { from: string; to: string } | null = { from: data.from, to: data.to };
  if (data.scheduled) {
    range = driver.scheduledRange ? driver.scheduledRange(deps.now()) : await scheduledRange(deps, driver);
    if (range) await job.updateData({ ...data, ...range });
  }
  const summary: SourceSyncSummary = { source: driver.name, from: range?.from ?? '', to: range?.to ?? '', total: 0, loaded: 0, unchanged: 0, resumed: 0, calls: 0 };
  result.sync = summary;
  if (!range) {
    await deps.status.recordSuccess(driver.name).catch(() => undefined);
    return;
  }
  let planned: PlannedRun | null = null;
  if (driver.plan) {
    // The provider says what the units are (one call, counted like the units' calls).
    const callsBefore = await deps.status.callsToday(driver.name);
    try {
      const context = { stored: await createStocksRepo(deps.db).codes(), parts: await deps.dates.hashes(partsSource(driver.name)) };
      planned = await driver.plan(range.from, range.to, context);
    } catch (err) {
      return fail(deps, driver, job, token, err, report);
    }
    summary.calls += (await deps.status.callsToday(driver.name)) - callsBefore;
  }
  const units = planned ? planned.units : driver.units(range.from, range.to);
  const callsPerUnit = planned ? planned.callsPerUnit : driver.callsPerUnit;
  const fetchUnit = planned ? planned.fetchUnit : (unit: string) => driver.fetchUnit(unit);
  summary.total = units.length;
  const resumeAfter = job.data.resume_after;
  const todo = resumeAfter ? units.filter((u) => u > resumeAfter) : units;
  summary.resumed = units.length - todo.length;
  await report({ phase: 'sync', done: summary.resumed, total: units.length, calls: summary.calls });
  for (const unit of todo) {
    if ((await deps.status.callsToday(driver.name)) + callsPerUnit > driver.dailyCalls) {
      await deps.status.recordError(driver.name, { code: 'QUOTA', message: `daily call budget of ${driver.dailyCalls} used up` }).catch(() => undefined);
      await waitForQuota(deps, job, token, report);
    }
    await report({ file: `${driver.name}:${unit}` });
    const callsBefore = await deps.status.callsToday(driver.name);
    let outcome: FileOutcome | null = null;
    try {
      const fetched = await fetchUnit(unit);
      const stored = await deps.dates.get(driver.name, unit);
      if (stored?.content_hash === fetched.hash) {
        summary.unchanged += 1;
        // Parts fetched although the unit's content is the same are still recorded: the next run need not ask again.
        if (fetched.parts?.length) await deps.db.transaction((tx) => recordParts(deps, driver, fetched, tx));
      } else {
        outcome = await commitUnit(deps, driver, data, fetched);
        summary.loaded += 1;
      }
    } catch (err) {
      summary.calls += (await deps.status.callsToday(driver.name)) - callsBefore;
      if (isAppError(err) && err.code === 'INVALID_REQUEST') {
        await deps.status.recordError(driver.name, { code: 'REFUSED', message: err.message }).catch(() => undefined);
        throw new UnrecoverableError(refusedMessage(unit, err));
      }
      return fail(deps, driver, job, token, err, report);
    }
    summary.calls += (await deps.status.callsToday(driver.name)) - callsBefore;
    if (outcome) {
      result.files.push(outcome);
      result.rows_ok += outcome.rows_ok;
      result.rows_rejected += outcome.rows_rejected;
    }
    await job.updateData({ ...job.data, resume_after: unit });
    await report({ done: units.indexOf(unit) + 1, rows_ok: result.rows_ok, rows_rejected: result.rows_rejected, calls: summary.calls });
  }
  // The dates are in: the run succeeded even if the extras below are refused.
  await deps.status.recordSuccess(driver.name).catch(() => undefined);
  await loadExtras(deps, driver, range.to);
}

/**
 * Listing dates and English names as of `date`, when the source has them: a service not
 * approved for them is reported, the dates stay.
 * @throws what is not a ProviderError (the store failing)
 */
async function loadExtras(deps: SourceSyncDeps, driver: SourceDriver, date: string): Promise<void> {
  if (!driver.fetchExtras) return;
  try {
    const extras = await driver.fetchExtras(date);
    if (extras) await deps.market.apply(extras);
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    await deps.status.recordError(driver.name, { code: err.code, message: err.message }).catch(() => undefined);
    deps.logger.warn({ source: driver.name, code: err.code }, 'source extras not loaded');
  }
}

/** After a run that loaded something: compute indicators (own transaction) and announce the run. */
export async function computeAfterSync(market: MarketDataService, report: Report, onComputed: (run: IndicatorRun) => Promise<void>): Promise<JobResult['indicators']> {
  await report({ phase: 'indicators', done: 0, total: 0, file: undefined });
  const run = await market.atomically((m) => m.computeIndicators((done, total) => report({ done, total })));
  await onComputed(run);
  return { version: run.version, as_of: run.as_of, stocks: run.stocks, duration_ms: run.duration_ms };
}
