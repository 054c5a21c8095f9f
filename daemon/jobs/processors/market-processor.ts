/**
 * The market-data job processor: load files (folders planned by kind and date),
 * load the sample market, compute indicators. Bad input fails at once with a readable
 * reason (UnrecoverableError); transient faults are retried by BullMQ with backoff.
 *
 * A whole load is all or nothing: every file (streamed NDJSON included), the sample market,
 * the computed index and the indicators are written into a staged copy of the market in short
 * transactions and become visible together at one short final commit, or not at all: a refused
 * file, a failure or a worker killed at any point leaves the live market exactly as before (other
 * writers never wait for the load meanwhile), and BullMQ runs the job again from its start
 * (loading the same rows twice changes nothing). Rows for stocks with no stock record
 * are rejected, and the 5% rule is decided per whole file before the commit.
 *
 * Server-side paths are read only inside the import roots (import-roots.ts); uploads
 * from the upload directory (uploads.ts).
 */
import { stat } from 'node:fs/promises';
import { UnrecoverableError, WaitingError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { planFolder } from '../../../loaders/folder.js';
import { loadFileChunks, sniffFile } from '../../../loaders/registry.js';
import { assertBadRowRatio, emptyResult, REASONS_LISTED, rejectUnlisted } from '../../../loaders/result.js';
import type { LoaderFormat, LoadResult, RejectedRow } from '../../../loaders/types.js';
import { isAppError, type AppError } from '../../errors.js';
import type { MarketDataService, RecordsBatch } from '../../market/market-data-service.js';
import type { IndicatorRun } from '../../store/indicators-repo.js';
import { realRoots, resolveInsideRoots } from '../import-roots.js';
import type { FileOutcome, JobPathInput, JobProgress, JobRequest, JobResult } from '../types.js';
import { findUpload, removeUploads } from '../uploads.js';
import { mixingProblem } from '../market-content.js';
import { computeAfterSync, runSourceSync, type SourceSyncDeps } from '../../sources/sync.js';
import type { SourceSyncRequest } from '../types.js';

/** Produces the sample market in batches. */
export type SampleSource = (options: { seed: number; stocks?: number; days?: number }) => AsyncIterable<RecordsBatch> | Iterable<RecordsBatch>;

/** Collaborators of the processor. */
export interface MarketProcessorDeps {
  market: MarketDataService;
  sample: SampleSource;
  logger: Logger;
  /** Called after a computation so every daemon swaps in the new screening snapshot. */
  onIndicatorsComputed(run: IndicatorRun): Promise<void>;
  /** NDJSON lines per streamed batch (default 50,000; each a short transaction into the staged market). */
  chunkRows?: number;
  /** Directories server-side paths must lie in (none: path loads are off). */
  importDirs?: readonly string[];
  /** Where uploaded files are kept (uploads.ts); none: uploads cannot be loaded. */
  uploadsDir?: string;
  /** Data sources (source-sync jobs); none: such jobs fail. */
  sources?: SourceSyncDeps;
}

interface PlannedInput {
  path: string;
  /** How results and reasons name the file: its upload name, or its path. */
  label: string;
  format?: LoaderFormat;
  date?: string;
  code?: string;
}

/** Rejected rows kept per file in a job's result (the counts are always complete). */
const MAX_REJECTED_KEPT = 200;

/** The real path of one job input, confined to the roots, and its label; reasons never quote a file. */
async function inputPath(spec: Exclude<JobPathInput, string>, roots: readonly string[], uploadsDir: string | undefined): Promise<{ path: string; label?: string }> {
  try {
    if ('upload' in spec) {
      if (!uploadsDir) throw new UnrecoverableError('uploads are not available to this worker');
      const upload = await findUpload(uploadsDir, spec.upload);
      return { path: upload.path, label: upload.name };
    }
    return { path: await resolveInsideRoots(spec.path, roots) };
  } catch (err) {
    if (isAppError(err)) throw new UnrecoverableError(err.message);
    throw err;
  }
}

async function expand(paths: readonly JobPathInput[], deps: MarketProcessorDeps): Promise<{ files: PlannedInput[]; unrecognised: string[] }> {
  const files: PlannedInput[] = [];
  const unrecognised: string[] = [];
  const roots = await realRoots(deps.importDirs ?? []);
  for (const p of paths) {
    const spec = typeof p === 'string' ? { path: p } : p;
    const { path, label = path } = await inputPath(spec, roots, deps.uploadsDir);
    const info = await stat(path);
    if (info.isDirectory()) {
      // planFolder follows no symlink: a folder inside a root is walked inside it only.
      const plan = await planFolder(path);
      files.push(...plan.files.map((f) => ({ path: f.path, label: f.path, format: f.format, date: f.trade_date ?? undefined })));
      unrecognised.push(...plan.unrecognised);
    } else {
      const format = spec.format ?? (await sniffFile(path)) ?? undefined;
      if (!format) throw new UnrecoverableError(`${label}: unrecognised file format (pass format explicitly)`);
      files.push({ path, label, format, date: spec.date, code: spec.code });
    }
  }
  return { files, unrecognised };
}

function outcomeOf(file: string, format: string): FileOutcome {
  return {
    file, format, rows_total: 0, rows_ok: 0, rows_rejected: 0, rejected: [], skipped: [],
    written: { stocks: 0, bars: 0, halts: 0, financials: 0, index: 0 }, unknown_codes: [],
  };
}

function addChunk(outcome: FileOutcome, chunk: LoadResult, written: Awaited<ReturnType<MarketDataService['apply']>>): void {
  outcome.rows_total += chunk.rows_total;
  outcome.rows_ok += chunk.rows_ok;
  outcome.rows_rejected += chunk.rejected.length;
  for (const r of chunk.rejected) if (outcome.rejected.length < MAX_REJECTED_KEPT) outcome.rejected.push({ line: r.line, reason: r.reason });
  for (const s of chunk.skipped) {
    const same = outcome.skipped.find((x) => x.reason === s.reason);
    if (same) same.count += s.count;
    else outcome.skipped.push({ ...s });
  }
  for (const k of ['stocks', 'bars', 'halts', 'financials', 'index'] as const) outcome.written[k] += written[k];
  outcome.unknown_codes = [...new Set([...outcome.unknown_codes, ...written.unknown_codes])].slice(0, 100);
}

/**
 * The job failure for a refused file: the loader's message, then one `file:line: reason`
 * line per listed rejected row (at most REASONS_LISTED) and how many more there were.
 */
export function refusedFileError(path: string, err: AppError): UnrecoverableError {
  const head = err.message.startsWith(path) ? err.message : `${path}: ${err.message}`;
  const listed = Array.isArray(err.details.first_reasons) ? (err.details.first_reasons as Partial<RejectedRow>[]) : [];
  const lines = listed.map((r) => `  ${r.file ?? path}:${String(r.line)}: ${String(r.reason)}`);
  const total = typeof err.details.rows_rejected === 'number' ? err.details.rows_rejected : listed.length;
  if (total > listed.length) lines.push(`  … and ${total - listed.length} more`);
  return new UnrecoverableError([head, ...lines].join('\n'));
}

/** Load one file into `deps.market` (a staged market: a transaction per batch); `onRows` gets the file's running totals. */
async function loadFile(deps: MarketProcessorDeps, f: PlannedInput, onRows: (ok: number, rejected: number) => Promise<unknown>): Promise<FileOutcome> {
  let outcome = outcomeOf(f.path, f.format ?? 'auto');
  // Up to REASONS_LISTED rejected rows with their file, for the error if the file is refused.
  let reasons: RejectedRow[] = [];
  await deps.market.applyAll(
    () => {
      outcome = outcomeOf(f.path, f.format ?? 'auto');
      reasons = [];
      return loadFileChunks(f.path, { tradeDate: f.date, code: f.code, chunkRows: deps.chunkRows }, f.format);
    },
    {
      async onBatch(chunk, written) {
        rejectUnlisted(chunk, new Set(written.unknown_codes));
        outcome.format = chunk.format;
        addChunk(outcome, chunk, written);
        if (reasons.length < REASONS_LISTED) reasons.push(...chunk.rejected.slice(0, REASONS_LISTED - reasons.length));
        await onRows(outcome.rows_ok, outcome.rows_rejected);
      },
      beforeCommit() {
        // The 5% rule on the whole file, unlisted stocks included, before anything is committed.
        assertBadRowRatio({
          file: f.path, format: outcome.format as LoaderFormat, rows_total: outcome.rows_total,
          rows_skipped: outcome.skipped.reduce((n, s) => n + s.count, 0), rows_rejected: outcome.rows_rejected, first_reasons: reasons,
        });
      },
    },
  );
  return outcome;
}

type Report = (patch: Partial<JobProgress>) => Promise<void>;
type LoadFilesRequest = Extract<JobRequest, { type: 'load-files' }>;

/**
 * Refuse a load that would mix the sample market and real files, or merge a sample market into
 * another (market-content.ts). Reads the live market; true when the load replaces the sample
 * market (its stage then starts empty).
 */
async function settleContent(market: MarketDataService, request: JobRequest): Promise<boolean> {
  const content = await market.content();
  const problem = mixingProblem(request, { content, stocks: content === 'empty' ? 0 : await market.stockCount() });
  if (problem) throw new UnrecoverableError(problem.message);
  return content === 'sample';
}

async function loadFiles(deps: MarketProcessorDeps, market: MarketDataService, files: readonly PlannedInput[], result: JobResult, report: Report): Promise<void> {
  await market.setContent('files');
  await report({ phase: 'load', total: files.length });
  for (const [i, f] of files.entries()) {
    await report({ file: f.label, done: i });
    const before = { ok: result.rows_ok, rejected: result.rows_rejected };
    let outcome: FileOutcome;
    try {
      outcome = await loadFile({ ...deps, market }, f, (ok, rejected) => report({ rows_ok: before.ok + ok, rows_rejected: before.rejected + rejected }));
    } catch (err) {
      // An upload is named as the operator named it, not by where the daemon keeps it.
      if (isAppError(err)) throw new UnrecoverableError(refusedFileError(f.path, err).message.split(f.path).join(f.label));
      throw err;
    }
    outcome.file = f.label;
    result.files.push(outcome);
    result.rows_ok += outcome.rows_ok;
    result.rows_rejected += outcome.rows_rejected;
  }
  await report({ done: files.length });
}

async function loadSample(deps: MarketProcessorDeps, market: MarketDataService, data: Extract<JobRequest, { type: 'load-sample' }>, result: JobResult, report: Report): Promise<void> {
  await market.setContent('sample');
  await report({ phase: 'load', file: `sample(seed=${data.seed})`, total: 1 });
  const outcome = outcomeOf('sample', 'sample');
  for await (const batch of deps.sample({ seed: data.seed, stocks: data.stocks, days: data.days })) {
    const written = await market.apply(batch);
    const rows = batch.bars.length + batch.financials.length + batch.index.length + batch.halts.length;
    addChunk(outcome, { ...emptyResult('ndjson', 'sample'), rows_total: rows, rows_ok: rows }, written);
    await report({ rows_ok: outcome.rows_ok });
  }
  result.files.push(outcome);
  result.rows_ok = outcome.rows_ok;
}

/**
 * Thrown at a progress report once the job's worker is shutting down: the load stops before its
 * publish (nothing of it is visible) and the job goes back to the queue, to run from its start on
 * another worker or at the next start.
 */
class JobInterrupted extends Error {
  constructor() {
    super('interrupted: the worker is shutting down');
    this.name = 'JobInterrupted';
  }
}

/** Indexes and indicators of `market`, recorded in `result`. */
async function compute(market: MarketDataService, result: JobResult, report: Report): Promise<IndicatorRun> {
  await report({ phase: 'index', file: undefined });
  await market.fillComputedIndex();
  await report({ phase: 'indicators', done: 0, total: 0 });
  const run = await market.computeIndicators((done, total) => report({ done, total }));
  result.indicators = { version: run.version, as_of: run.as_of, stocks: run.stocks, duration_ms: run.duration_ms };
  return run;
}

/**
 * The whole job, all or nothing: a load writes a staged copy of the market and publishes it in
 * one short transaction at its end (MarketDataService.staged), so other writers never wait for
 * it; the indicator run alone writes its values in one transaction. The indicator run it
 * recorded, if any.
 */
async function runAtomically(deps: MarketProcessorDeps, data: Exclude<JobRequest, SourceSyncRequest>, result: JobResult, reportProgress: Report, signal?: AbortSignal): Promise<IndicatorRun | null> {
  // Every phase reports progress often, before anything is published: that is where a shutdown stops it.
  const report: Report = async (patch) => {
    if (signal?.aborted) throw new JobInterrupted();
    await reportProgress(patch);
  };
  if (data.type === 'compute-indicators') return compute(deps.market, result, report);
  const files = data.type === 'load-files' ? await expand(data.paths, deps) : null;
  if (files) result.unrecognised = files.unrecognised;
  const replace = await settleContent(deps.market, data);
  await report({ phase: 'stage' });
  return deps.market.staged({ replace }, async (market) => {
    if (files) await loadFiles(deps, market, files.files, result, report);
    else if (data.type === 'load-sample') await loadSample(deps, market, data, result, report);
    if (!data.compute) return null;
    return compute(market, result, report);
  });
}

/** Delete the uploads a finished job loaded (they stay while BullMQ may run it again). */
async function dropUploads(deps: MarketProcessorDeps, data: JobRequest): Promise<void> {
  if (data.type !== 'load-files' || !deps.uploadsDir) return;
  const ids = data.paths.flatMap((p) => (typeof p === 'object' && 'upload' in p ? [p.upload] : []));
  await removeUploads(deps.uploadsDir, ids).catch((err: Error) => deps.logger.warn({ err: err.message }, 'uploads not removed'));
}

/**
 * Put an interrupted job back in the waiting list (not an attempt, not a failure); BullMQ takes a
 * WaitingError as "already moved". When Redis cannot take it back now, the interruption is thrown
 * as is: the job's lock lapses and it runs again as a stalled job.
 * @throws WaitingError once the job is back in the queue
 */
async function handBack(job: Job, token: string | undefined, logger: Logger): Promise<void> {
  try {
    await job.moveToWait(token);
  } catch (err) {
    logger.warn({ job: job.id, err: (err as Error).message }, 'interrupted job not handed back; it runs again once its lock lapses');
    return;
  }
  logger.info({ job: job.id }, 'job interrupted by shutdown; handed back to the queue (nothing of it was committed)');
  throw new WaitingError();
}

/** Create the processor function BullMQ calls for each job. */
export function createMarketProcessor(deps: MarketProcessorDeps) {
  // Three parameters: BullMQ passes an abort signal only to a processor that declares it.
  return async function process(job: Job<JobRequest & { requested_by?: string | null }, JobResult>, token?: string, signal?: AbortSignal): Promise<JobResult> {
    const started = Date.now();
    const progress: JobProgress = { phase: 'plan', done: 0, total: 0, rows_ok: 0, rows_rejected: 0 };
    // Progress is best effort: a Redis hiccup must not roll a whole load back.
    const report: Report = (patch) => job.updateProgress({ ...Object.assign(progress, patch) } as unknown as object)
      .then(() => undefined, (err: Error) => void deps.logger.warn({ job: job.id, err: err.message }, 'job progress not recorded'));
    const result: JobResult = { files: [], unrecognised: [], rows_ok: 0, rows_rejected: 0, indicators: null, duration_ms: 0 };
    const data = job.data;
    if (data.type === 'source-sync') {
      // Each date commits on its own (sources/sync.ts), never the whole run in one transaction.
      if (!deps.sources) throw new UnrecoverableError('data sources are not available to this worker');
      await runSourceSync(deps.sources, job as Job<SourceSyncRequest & { requested_by?: string | null }, JobResult>, token, result, report);
      if (data.compute && (result.sync?.loaded ?? 0) > 0) result.indicators = await computeAfterSync(deps.market, report, deps.onIndicatorsComputed);
      result.duration_ms = Date.now() - started;
      await report({ phase: 'done' });
      deps.logger.info({ job: job.id, source: data.source, ...result.sync, ms: result.duration_ms }, 'source sync done');
      return result;
    }
    const run = await runAtomically(deps, data, result, report, signal).catch(async (err: unknown) => {
      if (err instanceof JobInterrupted) await handBack(job, token, deps.logger);
      // Never run again: its uploads are of no more use (the CLI uploads again for a new load).
      if (err instanceof UnrecoverableError) await dropUploads(deps, data);
      throw err;
    });
    await dropUploads(deps, data);
    // Committed: only now may the daemons swap in the new snapshot.
    if (run) await deps.onIndicatorsComputed(run);
    // The market it replaced, emptied and dropped in short statements (a kill leaves it to the next load).
    await report({ phase: 'tidy' });
    await deps.market.tidy().catch((err: Error) => deps.logger.warn({ job: job.id, err: err.message }, 'replaced market tables not dropped yet'));
    result.duration_ms = Date.now() - started;
    await report({ phase: 'done' });
    deps.logger.info({ job: job.id, type: data.type, rows_ok: result.rows_ok, rows_rejected: result.rows_rejected, ms: result.duration_ms }, 'market job done');
    return result;
  };
}
