/** What the live backtest view shows: the step a run is in, and why it takes a while. */
import { isActive, type BacktestRun } from './backtest-run.js';

/** What the live backtest view draws: the run as last read, and the seconds since it was started. */
export interface BacktestProgressSnapshot {
  run: BacktestRun;
  elapsedS: number;
}

/** A live backtest view (Ink on a terminal). */
export interface BacktestProgressSink {
  update(snapshot: BacktestProgressSnapshot): void;
  /** Draw the last update and stop. */
  close(): Promise<void>;
}

/** The short label of what a run is doing: its phase while active, else its status. */
export function backtestStepLabel(run: BacktestRun): string {
  if (run.status === 'completed') return 'done';
  if (!isActive(run)) return run.status;
  if (run.phase === 'reading_history') return 'reading history';
  if (run.phase === 'building_series') return 'building series';
  if (run.phase === 'screening' || run.status === 'running') return 'screening';
  return 'queued';
}

/** Why a step before the first date takes a while, or null for the others. */
export function backtestStepHint(run: BacktestRun): string | null {
  if (!isActive(run)) return null;
  if (run.phase === 'reading_history') return 'the market history is read into memory: the first run after a start or a load takes a few seconds';
  if (run.phase === 'building_series') return 'the indicator series the screen reads are built over the whole history, once per data version';
  if (run.status === 'queued') return 'waiting for a worker of any daemon';
  return null;
}
