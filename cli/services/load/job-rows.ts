/** How jobs are shown: list rows, one job as label/value pairs, its files as a table, rejected rows as lines. */
import type { JobView } from '../../../daemon/contract/jobs.js';
import type { CellInput, RecordData, TableData } from '../output/output.js';
import { phaseLabel } from './job-progress.js';
import { groupThousands } from '../output/number-format.js';

/** Column order of `jobs list` (also the TSV column order). */
export const JOB_HEADERS = ['ID', 'TYPE', 'STATE', 'PHASE', 'DONE', 'ROWS_OK', 'REJECTED', 'CREATED', 'FINISHED'] as const;

function stateCell(state: string): CellInput {
  if (state === 'completed') return { text: state, tone: 'good' };
  if (state === 'failed') return { text: state, tone: 'bad' };
  return state;
}

/** One job's cells, in JOB_HEADERS order. */
export function jobCells(job: JobView): CellInput[] {
  const p = job.progress;
  return [
    job.id,
    job.type,
    stateCell(job.state),
    phaseLabel(job.state, p),
    p && p.total > 0 ? `${p.done}/${p.total}` : '',
    job.result?.rows_ok ?? p?.rows_ok ?? null,
    job.result?.rows_rejected ?? p?.rows_rejected ?? null,
    job.created_at,
    job.finished_at,
  ];
}

/** Jobs as a table. */
export function jobsTable(jobs: JobView[]): TableData {
  return { headers: [...JOB_HEADERS], rows: jobs.map(jobCells) };
}

function requestText(job: JobView): string {
  const d = job.data;
  if (d.type === 'load-files') return d.paths.map((p) => (typeof p === 'string' ? p : 'path' in p ? p.path : `upload ${p.upload}`)).join(', ');
  if (d.type === 'load-sample') return `seed ${d.seed}${d.stocks ? `, ${d.stocks} stocks` : ''}${d.days ? `, ${d.days} days` : ''}`;
  return 'all stocks';
}

/**
 * One job as label/value pairs (piped: one TSV row in this order: id, type, state, phase,
 * rows_ok, rows_rejected, indicators, duration_ms, created, finished, request, failed_reason).
 */
export function jobRecord(job: JobView): RecordData {
  const r = job.result;
  const p = job.progress;
  const indicators = r?.indicators ? `${r.indicators.stocks} stocks (version ${r.indicators.version})` : null;
  return {
    fields: [
      ['id', job.id],
      ['type', job.type],
      ['state', stateCell(job.state)],
      ['phase', phaseLabel(job.state, p)],
      ['rows ok', r?.rows_ok ?? p?.rows_ok ?? null],
      ['rows rejected', r?.rows_rejected ?? p?.rows_rejected ?? null],
      ['indicators', indicators],
      ['duration ms', r?.duration_ms ?? null],
      ['created', job.created_at],
      ['finished', job.finished_at],
      ['request', requestText(job)],
      // A refused file's reason lists its rejected rows on further lines: jobWarnings prints those.
      ['failed reason', job.failed_reason ? { text: job.failed_reason.split('\n')[0] ?? '', tone: 'bad' } : null],
    ],
  };
}

/** The files a finished load job read, as a table (FILE, FORMAT, ROWS, OK, REJECTED, SKIPPED). */
export function jobFilesTable(job: JobView): TableData {
  const files = job.result?.files ?? [];
  return {
    headers: ['FILE', 'FORMAT', 'ROWS', 'OK', 'REJECTED', 'SKIPPED'],
    rows: files.map((f) => [
      f.file,
      f.format,
      groupThousands(f.rows_total),
      groupThousands(f.rows_ok),
      f.rows_rejected > 0 ? { text: groupThousands(f.rows_rejected), tone: 'bad' } : '0',
      groupThousands(f.skipped.reduce((n, s) => n + s.count, 0)),
    ]),
  };
}

/**
 * Warning lines for rows a finished job rejected (at most `perFile` reasons per file, as
 * `file:line: reason`), files it did not recognise, and the rejected rows a failed job's
 * reason lists under its first line.
 */
export function jobWarnings(job: JobView, perFile = 20): string[] {
  const lines: string[] = [];
  for (const line of job.failed_reason?.split('\n').slice(1) ?? []) if (line.trim()) lines.push(line);
  for (const f of job.result?.files ?? []) {
    if (f.rows_rejected === 0) continue;
    lines.push(`${f.file}: ${f.rows_rejected} row${f.rows_rejected === 1 ? '' : 's'} rejected`);
    for (const r of f.rejected.slice(0, perFile)) lines.push(`  ${f.file}:${r.line}: ${r.reason}`);
    if (f.rows_rejected > perFile) lines.push(`  … ${f.rows_rejected - Math.min(perFile, f.rejected.length)} more (\`stockscreen jobs show ${job.id} --json\` lists up to 200)`);
  }
  for (const file of job.result?.unrecognised ?? []) lines.push(`${file}: not recognised, skipped`);
  return lines;
}
