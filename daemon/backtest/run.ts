/**
 * One run of a resolved plan: at each rebalance date the screen runs on an as-of
 * snapshot holding only the fields it reads, and `simulate` trades toward its first `top`.
 * Between dates it checks whether to stop (the daemon is stopping) and reports progress
 * (which may throw RunCancelled when the owner cancelled the run).
 *
 * Each date's selection may be saved to a checkpoint: a run taken over by another worker then
 * screens only the dates after the last one saved (the screens are the cost; the simulation
 * replays from the first date in milliseconds, to the same result). A checkpoint is kept per
 * data version: selections made on other data are not reused.
 */
import type { BacktestPhase } from '../contract/backtests.js';
import type { AsOfService } from '../history/as-of-service.js';
import { depthFor } from '../history/point-indicators.js';
import { matchAll } from '../screening/engine/query.js';
import { valueAt } from '../screening/engine/snapshot.js';
import { queryFields, type BacktestPlan } from './plan.js';
import { simulate } from './simulate.js';
import type { BacktestResult, Selected } from './types.js';

/** The daemon running the run is stopping: the run stops at its next rebalance date. */
export class RunInterrupted extends Error {
  constructor() {
    super('interrupted: the daemon running it is stopping');
    this.name = 'RunInterrupted';
  }
}

/**
 * Thrown when a run has used its turn (`yieldAfter` new rebalance dates): it goes back to the
 * queue behind the runs waiting, and resumes from its checkpoint on its next turn, so one long
 * run never holds a worker while another user's short run waits.
 */
export class RunYielded extends RunInterrupted {
  constructor() {
    super();
    this.message = 'yielded: its turn ended; it resumes from its last rebalance date';
    this.name = 'RunYielded';
  }
}

/** The owner cancelled the run. */
export class RunCancelled extends Error {
  constructor() {
    super('cancelled by its owner');
    this.name = 'RunCancelled';
  }
}

/** Where a run keeps each rebalance date's selection (best effort: failures are ignored). */
export interface PicksCheckpoint {
  /** The selections saved on data version `version`, by date index (none saved on another version). */
  load(version: string): Promise<Map<number, Selected[]>>;
  save(version: string, day: number, picks: Selected[]): Promise<void>;
}

/** Hooks of a run. */
export interface ExecuteHooks {
  /** True once the run must stop (checked before each rebalance date's screen). */
  stopping(): boolean;
  onProgress(done: number, total: number): Promise<void>;
  /**
   * Before each phase that may take a while, once each in order: reading the history, building
   * the series of the first date's screen, screening the dates (may throw RunCancelled).
   */
  onPhase?(phase: Exclude<BacktestPhase, 'queued'>): Promise<void>;
  checkpoint?: PicksCheckpoint;
  /** Give the worker up (RunYielded) once this many rebalance dates past `resumeAfter` are done. */
  yieldAfter?: number;
  /** Rebalance dates done by earlier turns of this run (their picks come from the checkpoint). */
  resumeAfter?: number;
}

/** Run the plan. @throws RunInterrupted, RunCancelled (from onProgress), or what a screen throws */
export async function executePlan(asOf: AsOfService, p: BacktestPlan, hooks: ExecuteHooks): Promise<BacktestResult> {
  await hooks.onPhase?.('reading_history');
  const history = await asOf.history();
  const fields = queryFields(p.query);
  const depth = depthFor(fields);
  const saved = (await hooks.checkpoint?.load(history.version).catch(() => undefined)) ?? new Map<number, Selected[]>();
  let calls = 0;
  // The first snapshot builds the series of every field the screen reads over the whole
  // history (seconds on a full market, once per data version) when they pay for the dates to
  // go and fit the memory budget; the next ones pick a column. Otherwise each date is computed
  // on its own (history/as-of-snapshot.ts seriesPay).
  let built = false;
  const turnEnds = hooks.yieldAfter === undefined ? Number.POSITIVE_INFINITY : (hooks.resumeAfter ?? 0) + hooks.yieldAfter;
  const select = async (day: number): Promise<Selected[]> => {
    if (hooks.stopping()) throw new RunInterrupted();
    if (++calls > turnEnds) throw new RunYielded();
    const known = saved.get(day);
    if (known) return known;
    if (!built) await hooks.onPhase?.('building_series');
    // The dates still to screen decide whether the fields' series pay for themselves.
    const snapshot = await asOf.snapshotOf({ history, day, date: history.dates[day] ?? '' }, depth, fields, Math.max(1, p.signals - calls + 1));
    if (!built) await hooks.onPhase?.('screening');
    built = true;
    const rows = matchAll(snapshot, { ...p.query, page: 1 }).rows;
    const n = p.rules.top === null ? rows.length : Math.min(rows.length, p.rules.top);
    const picks = Array.from(rows.subarray(0, n), (row) => ({ code: snapshot.codes[row] ?? '', market_cap: valueAt(snapshot, 'market_cap', row) }));
    await hooks.checkpoint?.save(history.version, day, picks).catch(() => undefined);
    return picks;
  };
  return simulate({ history, fromDay: p.fromDay, toDay: p.toDay, rules: p.rules, select, onProgress: hooks.onProgress });
}
