/**
 * Building a LoadResult row by row, and the whole-file rejection rule:
 * a file whose bad rows exceed 5% of its considered rows is refused as a whole.
 */
import { AppError } from '../daemon/errors.js';
import type { LoadOptions, LoadResult, LoaderFormat, RejectedRow } from './types.js';

/** Default fraction of bad rows above which a file is refused. */
export const DEFAULT_MAX_BAD_RATIO = 0.05;
/**
 * Most rejected rows an error's details list (and a failed load job's reason): generous,
 * yet bounded, since a multi-million-line file could otherwise carry megabytes of reasons.
 */
export const REASONS_LISTED = 100;

/** An empty result for `file` in `format`. */
export function emptyResult(format: LoaderFormat, file: string): LoadResult {
  return {
    format, file, stocks: [], bars: [], halts: [], financials: [], index: [], financial_reports: [], designations: [],
    rejected: [], skipped: [], rows_total: 0, rows_ok: 0,
    lines: { stocks: [], bars: [], halts: [], financials: [], financial_reports: [] },
  };
}

/** The rejection reason for a row whose stock has no stock record. */
export function unlistedReason(code: string): string {
  return `unknown stock code ${code} — load a listing or quotes file first`;
}

/**
 * Reports the rows whose records refer to `codes` (stocks with no stock record, so
 * storage did not write them) as rejected: one rejection per source line, moved from
 * `rows_ok` to `rejected` (kept in line order). The records themselves stay; records
 * without a source line (generated data) are not counted. Returns the rows rejected.
 */
export function rejectUnlisted(result: LoadResult, codes: ReadonlySet<string>): number {
  if (codes.size === 0) return 0;
  const byLine = new Map<number, string>();
  const scan = (records: readonly { stock_code?: string; code?: string }[], lines: readonly number[]) => {
    records.forEach((r, i) => {
      const code = r.stock_code ?? r.code ?? '';
      const line = lines[i];
      if (line !== undefined && codes.has(code) && !byLine.has(line)) byLine.set(line, code);
    });
  };
  scan(result.stocks, result.lines.stocks);
  scan(result.bars, result.lines.bars);
  scan(result.halts, result.lines.halts);
  scan(result.financials, result.lines.financials);
  scan(result.financial_reports, result.lines.financial_reports);
  for (const [line, code] of byLine) reject(result, line, unlistedReason(code));
  result.rejected.sort((a, b) => a.line - b.line);
  result.rows_ok -= byLine.size;
  return byLine.size;
}

/** Appends a record with its source line (see RecordLines). */
export function addRecord<K extends keyof LoadResult['lines']>(result: LoadResult, kind: K, record: LoadResult[K][number], line: number): void {
  (result[kind] as unknown[]).push(record);
  result.lines[kind].push(line);
}

/** Records a rejected row. */
export function reject(result: LoadResult, line: number, reason: string): void {
  result.rejected.push({ file: result.file, line, reason });
}

/** Counts a deliberately skipped row under `reason`. */
export function skip(result: LoadResult, reason: string, count = 1): void {
  const entry = result.skipped.find((s) => s.reason === reason);
  if (entry) entry.count += count;
  else result.skipped.push({ reason, count });
}

/** Counts behind the bad-row rule (also kept as running totals by streaming loaders). */
export interface BadRowSummary {
  file: string;
  format: LoaderFormat;
  rows_total: number;
  rows_skipped: number;
  rows_rejected: number;
  first_reasons: RejectedRow[];
}

/**
 * Throws when more than `maxBadRatio` (default 5%) of the considered rows were
 * rejected. Considered rows are all data rows minus skipped ones: skipped rows
 * (e.g. KONEX) are neither good nor bad.
 * @throws AppError INVALID_REQUEST with details {file, format, rows_total,
 *   rows_rejected, max_bad_ratio, first_reasons: RejectedRow[] (≤ REASONS_LISTED)}.
 */
export function assertBadRowRatio(summary: BadRowSummary, options: LoadOptions = {}): void {
  const limit = options.maxBadRatio ?? DEFAULT_MAX_BAD_RATIO;
  const considered = summary.rows_total - summary.rows_skipped;
  const bad = summary.rows_rejected;
  if (bad === 0 || bad <= considered * limit) return;
  const pct = ((bad / Math.max(considered, 1)) * 100).toFixed(1);
  throw new AppError('INVALID_REQUEST', `${summary.file}: ${bad} of ${considered} rows invalid (${pct}% > ${limit * 100}%); file rejected`, {
    file: summary.file,
    format: summary.format,
    rows_total: summary.rows_total,
    rows_rejected: bad,
    max_bad_ratio: limit,
    first_reasons: summary.first_reasons.slice(0, REASONS_LISTED),
  });
}

/** Total of `skipped` counts. */
export function skippedCount(result: LoadResult): number {
  return result.skipped.reduce((sum, s) => sum + s.count, 0);
}

/**
 * Applies `assertBadRowRatio` to a whole-file result and returns it unchanged when it passes.
 * @throws AppError INVALID_REQUEST when the file has too many bad rows.
 */
export function enforceBadRowLimit(result: LoadResult, options: LoadOptions = {}): LoadResult {
  assertBadRowRatio({
    file: result.file, format: result.format, rows_total: result.rows_total, rows_skipped: skippedCount(result),
    rows_rejected: result.rejected.length, first_reasons: result.rejected,
  }, options);
  return result;
}

/**
 * A file-level problem (missing columns, no trade date, unreadable JSON).
 * Returned, not thrown, so callers write `throw fileError(...)`.
 */
export function fileError(file: string, format: LoaderFormat, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('INVALID_REQUEST', `${file}: ${message}`, { file, format, ...details });
}
