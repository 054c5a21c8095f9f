/**
 * How a running job is shown: what counts as a change, the loading rate (rows/s
 * measured by the CLI between polls), the bar's geometry and the one-line text used
 * when stderr is not a terminal. Pure: the clock is injected.
 */
import type { JobProgress, JobView } from '../../../daemon/contract/jobs.js';
import type { CliOutput } from '../../io.js';
import { groupThousands } from '../output/number-format.js';

/** The state of a job's progress display. */
export interface ProgressSnapshot {
  id: string;
  state: string;
  progress: JobProgress | null;
  /** Rows per second while loading, once measurable. */
  rowsPerSecond: number | null;
  /** Set while BullMQ retries after a transient failure. */
  retryReason: string | null;
  /** Set while the CLI itself waits out an outage, e.g. `daemon busy, retrying in 4 s`. */
  busy?: string | null;
}

/** Receives progress snapshots (a live Ink view on a terminal, lines otherwise). */
export interface ProgressSink {
  update(snapshot: ProgressSnapshot): void;
  close(): void;
}

const PHASE_LABEL: Record<string, string> = { queued: 'queued', plan: 'planning', stage: 'staging', load: 'loading', sync: 'fetching', index: 'index', indicators: 'indicators', tidy: 'tidying', done: 'done' };

/** The label of a job's current step: the BullMQ state until it runs, then the phase. */
export function phaseLabel(state: string, progress: JobProgress | null): string {
  if (state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'waiting-children') return state === 'delayed' ? 'retrying' : 'waiting';
  if (state === 'failed') return 'failed';
  if (state === 'stalled') return 'stalled (its worker stopped; it runs again)';
  if (!progress) return state === 'completed' ? 'done' : 'starting';
  return PHASE_LABEL[progress.phase] ?? progress.phase;
}

/** What done/total count, in the phases that count something (files while loading, stocks while computing); else null. */
export function progressUnit(progress: JobProgress | null): string | null {
  if (progress?.phase === 'load') return 'files';
  if (progress?.phase === 'sync') return 'dates';
  if (progress?.phase === 'indicators') return 'stocks';
  return null;
}

/** `3/10 files` while a phase counts something and knows its total, else null. */
export function countText(progress: JobProgress | null): string | null {
  const unit = progressUnit(progress);
  return unit && progress && progress.total > 0 ? `${progress.done}/${progress.total} ${unit}` : null;
}

/** Filled and empty cells of a `width`-cell bar for done/total; an unknown total (0) is all empty. */
export function barCells(done: number, total: number, width: number): { filled: number; empty: number } {
  const cells = Math.max(0, Math.floor(width));
  if (total <= 0) return { filled: 0, empty: cells };
  const filled = Math.min(cells, Math.max(0, Math.floor((done / total) * cells)));
  return { filled, empty: cells - filled };
}

/** Measures rows/s from successive row counts: (rows − first rows) / (time − first time), after at least `minMs`. */
export function createRateMeter(now: () => number = Date.now, minMs = 250): { sample(rows: number): number | null } {
  let first: { t: number; rows: number } | undefined;
  return {
    sample(rows) {
      const t = now();
      if (!first || rows < first.rows) first = { t, rows };
      const elapsed = t - first.t;
      return elapsed >= minMs ? ((rows - first.rows) * 1000) / elapsed : null;
    },
  };
}

/** Turns polled job views into snapshots: the rate is measured only while rows are being loaded. */
export function createSnapshotter(now: () => number = Date.now): (view: JobView) => ProgressSnapshot {
  const meter = createRateMeter(now);
  let lastRate: number | null = null;
  return (view) => {
    const p = view.progress;
    if (view.state === 'active' && p?.phase === 'load') lastRate = meter.sample(p.rows_ok + p.rows_rejected) ?? lastRate;
    const retrying = view.state !== 'failed' && view.state !== 'completed' && view.failed_reason ? view.failed_reason : null;
    return { id: view.id, state: view.state, progress: p, rowsPerSecond: lastRate, retryReason: retrying };
  };
}

/** A key that changes exactly when the visible progress changes (the rate alone does not count). */
export function snapshotKey(s: ProgressSnapshot): string {
  const p = s.progress;
  return JSON.stringify([s.state, p?.phase, p?.file, p?.done, p?.total, p?.rows_ok, p?.rows_rejected, s.retryReason, s.busy ?? null]);
}

/** One line for stderr: `job 7 loading 3/10 files · 1,234 rows ok · 5 rejected · 2,000 rows/s · /data/x.csv`. */
export function progressLine(s: ProgressSnapshot): string {
  const p = s.progress;
  const count = countText(p);
  const parts = [`job ${s.id} ${phaseLabel(s.state, p)}${count ? ` ${count}` : ''}`];
  if (p && (p.rows_ok > 0 || p.rows_rejected > 0)) parts.push(`${groupThousands(p.rows_ok)} rows ok`, `${groupThousands(p.rows_rejected)} rejected`);
  if (s.rowsPerSecond !== null && p?.phase === 'load') parts.push(`${groupThousands(s.rowsPerSecond)} rows/s`);
  if (p?.file) parts.push(p.file);
  if (s.retryReason) parts.push(`retrying after: ${s.retryReason}`);
  if (s.busy) parts.push(s.busy);
  return parts.join(' · ');
}

/** A sink that writes one progressLine per visible change. */
export function createLineSink(out: CliOutput): ProgressSink {
  let last = '';
  return {
    update(snapshot) {
      const key = snapshotKey(snapshot);
      if (key === last) return;
      last = key;
      out.write(progressLine(snapshot) + '\n');
    },
    close() {},
  };
}
