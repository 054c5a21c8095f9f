/** How a `load --dry-run` report is shown: one row per file, and one diagnostic line per rejected row. */
import type { DryRunFile } from './load-plan.js';
import type { TableData } from '../output/output.js';

/** Column order of the dry-run table (also the TSV column order). */
export const DRY_RUN_HEADERS = ['FILE', 'FORMAT', 'ROWS', 'OK', 'REJECTED', 'SKIPPED', 'STATUS'] as const;

/** The dry-run report as a table; STATUS is "ok" or why the file would be refused. */
export function dryRunTable(files: readonly DryRunFile[]): TableData {
  return {
    headers: [...DRY_RUN_HEADERS],
    rows: files.map((f) => [
      f.file,
      f.format ?? '?',
      f.rows_total,
      f.rows_ok,
      f.rows_rejected > 0 ? { text: String(f.rows_rejected), tone: 'bad' } : 0,
      f.rows_skipped,
      f.refused ? { text: `refused: ${f.refused}`, tone: 'bad' } : { text: 'ok', tone: 'good' },
    ]),
  };
}

/** `file:line: reason` for every kept rejection, skipped-row counts, and a note when reasons were cut off. */
export function dryRunDiagnostics(files: readonly DryRunFile[]): string[] {
  const lines: string[] = [];
  for (const f of files) {
    for (const r of f.rejected) lines.push(`${f.file}:${r.line}: ${r.reason}`);
    if (f.rows_rejected > f.rejected.length) lines.push(`${f.file}: … ${f.rows_rejected - f.rejected.length} more rejected rows`);
    for (const s of f.skipped) lines.push(`${f.file}: skipped ${s.count} row${s.count === 1 ? '' : 's'} (${s.reason})`);
  }
  return lines;
}

/** `file:line: reason` for every kept rejection of the files that have any, and a note when reasons were cut off. */
export function rejectionLines(files: readonly DryRunFile[]): string[] {
  const lines: string[] = [];
  for (const f of files) {
    for (const r of f.rejected) lines.push(`${f.file}:${r.line}: ${r.reason}`);
    if (f.rows_rejected > f.rejected.length) lines.push(`${f.file}: … and ${f.rows_rejected - f.rejected.length} more rejected rows`);
  }
  return lines;
}

/** One line after a successful local validation: files and rows checked, and what the worker will leave out. */
export function validationSummary(files: readonly DryRunFile[]): string {
  const sum = (k: 'rows_ok' | 'rows_rejected') => files.reduce((n, f) => n + f[k], 0);
  const rejected = sum('rows_rejected');
  const tail = rejected ? `; the ${rejected} rejected row${rejected === 1 ? '' : 's'} listed above will not be loaded` : '';
  return `checked ${files.length} file${files.length === 1 ? '' : 's'} here: ${sum('rows_ok')} rows ok${tail}`;
}

/** One summary line: files, rows and how many files would be refused. */
export function dryRunSummary(files: readonly DryRunFile[]): string {
  const sum = (k: 'rows_ok' | 'rows_rejected') => files.reduce((n, f) => n + f[k], 0);
  const refused = files.filter((f) => f.refused).length;
  const verdict = refused ? `${refused} would be refused` : 'all would load';
  return `dry run: ${files.length} file${files.length === 1 ? '' : 's'}, ${sum('rows_ok')} rows ok, ${sum('rows_rejected')} rejected; ${verdict}; nothing was enqueued`;
}
