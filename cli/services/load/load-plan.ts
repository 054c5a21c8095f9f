/**
 * Local checks before a load is enqueued: paths made absolute (the worker may run in
 * another directory), each file's format detected, each folder planned like the worker
 * will plan it, and every row validated here with the same loaders (streamed), so a file
 * the worker would refuse is never enqueued (`validatePlan`); `--dry-run` reports the
 * same rows ok / rejected / skipped and each rejection reason without enqueueing.
 * What only the daemon knows (whether a stock code is listed) is checked by the worker.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { planFolder } from '../../../loaders/folder.js';
import { loadFileChunks, sniffFile } from '../../../loaders/registry.js';
import { DEFAULT_MAX_BAD_RATIO } from '../../../loaders/result.js';
import { LOADER_FORMATS, type LoaderFormat } from '../../../loaders/types.js';
import type { JobPathInput } from '../../../daemon/contract/jobs.js';
import { usageError } from '../session/errors.js';

/** Per-file overrides given on the command line. */
export interface LoadFlags {
  format?: string;
  date?: string;
  code?: string;
}

/** One data file of a plan. */
export interface PlannedLoadFile {
  path: string;
  /** Null when not recognised (and no --format was given). */
  format: LoaderFormat | null;
}

/** One command-line path after the local checks. */
export interface PlannedPath {
  path: string;
  kind: 'file' | 'folder';
  files: PlannedLoadFile[];
}

/** Most rejection reasons a dry run keeps per file. */
export const MAX_REASONS = 1_000;

/**
 * Check the flags (format name, YYYY-MM-DD date, 6-character code).
 * @throws CliError USAGE
 */
export function checkLoadFlags(flags: LoadFlags): void {
  if (flags.format !== undefined && !(LOADER_FORMATS as readonly string[]).includes(flags.format)) {
    throw usageError(`--format: unknown format "${flags.format}"`, `one of ${LOADER_FORMATS.join(', ')}`);
  }
  if (flags.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(flags.date)) throw usageError(`--date: "${flags.date}" is not YYYY-MM-DD`);
  if (flags.code !== undefined && !/^[0-9A-Z]{6}$/.test(flags.code)) throw usageError(`--code: "${flags.code}" is not a 6-character KRX code such as 005930`);
}

/**
 * Resolve `inputs` against `cwd`, detect formats and plan folders.
 * @throws CliError USAGE for a missing path, per-file flags given with a folder, or several files with --code
 */
export async function planPaths(inputs: readonly string[], cwd: string, flags: LoadFlags): Promise<PlannedPath[]> {
  checkLoadFlags(flags);
  const planned: PlannedPath[] = [];
  for (const input of inputs) {
    const path = resolve(cwd, input);
    const info = await stat(path).catch((err: NodeJS.ErrnoException) => {
      throw usageError(`${input}: cannot read (${err.code ?? err.message})`, 'give files or folders that exist (relative paths are resolved against the current directory)');
    });
    if (info.isDirectory()) {
      if (flags.format || flags.date || flags.code) throw usageError(`${input} is a folder: --format, --date and --code apply to single files`, 'the formats of a folder\'s files are detected one by one');
      const plan = await planFolder(path);
      planned.push({ path, kind: 'folder', files: [...plan.files.map((f) => ({ path: f.path, format: f.format })), ...plan.unrecognised.map((p) => ({ path: p, format: null }))] });
    } else {
      const format = (flags.format as LoaderFormat | undefined) ?? (await sniffFile(path));
      planned.push({ path, kind: 'file', files: [{ path, format }] });
    }
  }
  if (flags.code && planned.length > 1) throw usageError('--code names the stock of one file; give one path with it');
  return planned;
}

/** Files of a plan that no loader recognised. */
export function unrecognisedFiles(plan: readonly PlannedPath[]): PlannedLoadFile[] {
  return plan.flatMap((p) => p.files.filter((f) => f.format === null));
}

/** The `paths` of a load-files job: folders as paths, files with their flags when any were given. */
export function jobPaths(plan: readonly PlannedPath[], flags: LoadFlags): JobPathInput[] {
  return plan.map((p) => {
    if (p.kind === 'folder' || (!flags.format && !flags.date && !flags.code)) return p.path;
    // checkLoadFlags has checked the format name.
    return { path: p.path, ...(flags.format ? { format: flags.format as LoaderFormat } : {}), ...(flags.date ? { date: flags.date } : {}), ...(flags.code ? { code: flags.code } : {}) };
  });
}

/** What a dry run found in one file. */
export interface DryRunFile {
  file: string;
  format: string | null;
  rows_total: number;
  rows_ok: number;
  rows_rejected: number;
  rows_skipped: number;
  skipped: { reason: string; count: number }[];
  /** Up to MAX_REASONS rejected rows. */
  rejected: { line: number; reason: string }[];
  /** Why the worker would refuse the whole file, or null when it would load. */
  refused: string | null;
}

function emptyDryRun(file: string, format: string | null, refused: string | null): DryRunFile {
  return { file, format, rows_total: 0, rows_ok: 0, rows_rejected: 0, rows_skipped: 0, skipped: [], rejected: [], refused };
}

/** Parse one file like the worker would (all rows, keeping every reason) and apply the 5% rule at the end. */
export async function dryRunFile(file: PlannedLoadFile, flags: LoadFlags): Promise<DryRunFile> {
  if (file.format === null) return emptyDryRun(file.path, null, 'unrecognised file format (pass --format)');
  const out = emptyDryRun(file.path, file.format, null);
  try {
    // maxBadRatio 1: collect every bad row instead of stopping at the first 5%.
    for await (const chunk of loadFileChunks(file.path, { tradeDate: flags.date, code: flags.code, maxBadRatio: 1 }, file.format)) {
      out.format = chunk.format;
      out.rows_total += chunk.rows_total;
      out.rows_ok += chunk.rows_ok;
      out.rows_rejected += chunk.rejected.length;
      for (const r of chunk.rejected) if (out.rejected.length < MAX_REASONS) out.rejected.push({ line: r.line, reason: r.reason });
      for (const s of chunk.skipped) {
        const same = out.skipped.find((x) => x.reason === s.reason);
        if (same) same.count += s.count;
        else out.skipped.push({ ...s });
        out.rows_skipped += s.count;
      }
    }
  } catch (err) {
    out.refused = err instanceof Error ? err.message : String(err);
    return out;
  }
  const considered = out.rows_total - out.rows_skipped;
  if (out.rows_rejected > 0 && out.rows_rejected > considered * DEFAULT_MAX_BAD_RATIO) {
    const pct = ((out.rows_rejected / Math.max(considered, 1)) * 100).toFixed(1);
    out.refused = `${out.rows_rejected} of ${considered} rows invalid (${pct}% > ${DEFAULT_MAX_BAD_RATIO * 100}%): the whole file would be rejected`;
  }
  return out;
}

/**
 * Validate every recognised file of a plan here, in plan order, as the worker will
 * (row checks, then the 5% rule per file); files no loader recognised are left out
 * (the worker skips them too).
 */
export async function validatePlan(plan: readonly PlannedPath[], flags: LoadFlags): Promise<DryRunFile[]> {
  const results: DryRunFile[] = [];
  for (const p of plan) for (const file of p.files) if (file.format !== null) results.push(await dryRunFile(file, flags));
  return results;
}

/** Dry-run every file of a plan, in plan order. */
export async function dryRun(plan: readonly PlannedPath[], flags: LoadFlags): Promise<DryRunFile[]> {
  const results: DryRunFile[] = [];
  for (const p of plan) for (const file of p.files) results.push(await dryRunFile(file, flags));
  return results;
}
