/**
 * The market-data job processor: load files (folders planned by kind and date),
 * load the sample market, compute indicators. Bad input fails at once with a readable
 * reason (UnrecoverableError); transient faults are retried by BullMQ with backoff.
 *
 * Each file loads in one transaction, streamed NDJSON included (issue 3): its rows are
 * validated, rows for stocks with no stock record are rejected too, and the 5% rule is
 * decided on the whole file before the commit, so a refused or interrupted file leaves
 * the database as it was. Files of one job commit one after another.
 */
import { stat } from 'node:fs/promises';
import { UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { planFolder } from '../../../loaders/folder.js';
import { loadFileChunks, sniffFile } from '../../../loaders/registry.js';
import { assertBadRowRatio, emptyResult, REASONS_LISTED, rejectUnlisted } from '../../../loaders/result.js';
import type { LoaderFormat, LoadResult, RejectedRow } from '../../../loaders/types.js';
import { isAppError, type AppError } from '../../errors.js';
import type { MarketDataService, RecordsBatch } from '../../market/market-data-service.js';
import type { IndicatorRun } from '../../store/indicators-repo.js';
import type { FileOutcome, JobProgress, JobRequest, JobResult } from '../types.js';

/** Produces the sample market in batches. */
export type SampleSource = (options: { seed: number; stocks?: number; days?: number }) => AsyncIterable<RecordsBatch> | Iterable<RecordsBatch>;

/** Collaborators of the processor. */
export interface MarketProcessorDeps {
  market: MarketDataService;
  sample: SampleSource;
  logger: Logger;
  /** Called after a computation so every daemon swaps in the new screening snapshot. */
  onIndicatorsComputed(run: IndicatorRun): Promise<void>;
  /** NDJSON lines per streamed batch (default 50,000; the file is still one transaction). */
  chunkRows?: number;
}

interface PlannedInput {
  path: string;
  format?: LoaderFormat;
  date?: string;
  code?: string;
}

/** Rejected rows kept per file in a job's result (the counts are always complete). */
const MAX_REJECTED_KEPT = 200;

async function expand(paths: Extract<JobRequest, { type: 'load-files' }>['paths']): Promise<{ files: PlannedInput[]; unrecognised: string[] }> {
  const files: PlannedInput[] = [];
  const unrecognised: string[] = [];
  for (const p of paths) {
    const spec = typeof p === 'string' ? { path: p } : p;
    let info;
    try {
      info = await stat(spec.path);
    } catch (err) {
      throw new UnrecoverableError(`cannot read ${spec.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (info.isDirectory()) {
      const plan = await planFolder(spec.path);
      files.push(...plan.files.map((f) => ({ path: f.path, format: f.format, date: f.trade_date ?? undefined })));
      unrecognised.push(...plan.unrecognised);
    } else {
      const format = spec.format ?? (await sniffFile(spec.path)) ?? undefined;
      if (!format) throw new UnrecoverableError(`${spec.path}: unrecognised file format (pass format explicitly)`);
      files.push({ ...spec, format });
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

/** Load one file in one transaction; `onRows` gets the file's running totals. */
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

/** Create the processor function BullMQ calls for each job. */
export function createMarketProcessor(deps: MarketProcessorDeps) {
  return async function process(job: Job<JobRequest & { requested_by?: string | null }, JobResult>): Promise<JobResult> {
    const started = Date.now();
    const progress: JobProgress = { phase: 'plan', done: 0, total: 0, rows_ok: 0, rows_rejected: 0 };
    const report = (patch: Partial<JobProgress>) => job.updateProgress({ ...Object.assign(progress, patch) } as unknown as object);
    const result: JobResult = { files: [], unrecognised: [], rows_ok: 0, rows_rejected: 0, indicators: null, duration_ms: 0 };
    const data = job.data;

    if (data.type === 'load-files') {
      const { files, unrecognised } = await expand(data.paths);
      result.unrecognised = unrecognised;
      await report({ phase: 'load', total: files.length });
      for (const [i, f] of files.entries()) {
        await report({ file: f.path, done: i });
        const before = { ok: result.rows_ok, rejected: result.rows_rejected };
        let outcome: FileOutcome;
        try {
          outcome = await loadFile(deps, f, (ok, rejected) => report({ rows_ok: before.ok + ok, rows_rejected: before.rejected + rejected }));
        } catch (err) {
          if (isAppError(err)) throw refusedFileError(f.path, err);
          throw err;
        }
        result.files.push(outcome);
        result.rows_ok += outcome.rows_ok;
        result.rows_rejected += outcome.rows_rejected;
      }
      await report({ done: files.length });
    } else if (data.type === 'load-sample') {
      await report({ phase: 'load', file: `sample(seed=${data.seed})`, total: 1 });
      const outcome = outcomeOf('sample', 'sample');
      for await (const batch of deps.sample({ seed: data.seed, stocks: data.stocks, days: data.days })) {
        const written = await deps.market.apply(batch);
        const rows = batch.bars.length + batch.financials.length + batch.index.length + batch.halts.length;
        addChunk(outcome, { ...emptyResult('ndjson', 'sample'), rows_total: rows, rows_ok: rows }, written);
        await report({ rows_ok: outcome.rows_ok });
      }
      result.files.push(outcome);
      result.rows_ok = outcome.rows_ok;
    }

    const compute = data.type === 'compute-indicators' || data.compute;
    if (compute) {
      await report({ phase: 'index', file: undefined });
      await deps.market.fillComputedIndex();
      await report({ phase: 'indicators', done: 0, total: 0 });
      const run = await deps.market.computeIndicators((done, total) => report({ done, total }));
      result.indicators = { version: run.version, as_of: run.as_of, stocks: run.stocks, duration_ms: run.duration_ms };
      await deps.onIndicatorsComputed(run);
    }
    result.duration_ms = Date.now() - started;
    await report({ phase: 'done' });
    deps.logger.info({ job: job.id, type: data.type, rows_ok: result.rows_ok, rows_rejected: result.rows_rejected, ms: result.duration_ms }, 'market job done');
    return result;
  };
}
