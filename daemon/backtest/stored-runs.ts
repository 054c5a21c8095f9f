/**
 * A stored run as its owner reads and cancels it. The row is the truth, but a queued or running
 * run whose job the queue failed or lost is failed on reading, by whichever daemon reads it.
 */
import { AppError } from '../errors.js';
import type { StoredBacktest } from '../store/backtests-repo.js';
import type { BacktestServiceDeps } from './ports.js';

/** A queued or running run the queue has never heard of for this long was lost (its daemon died before enqueueing, Redis emptied). */
export const LOST_AFTER_MS = 60_000;
/** The error of such a run. */
export const LOST_ERROR = 'interrupted: no worker holds this run any more (its daemon stopped before handing it on, or the queue lost it); start it again';

/** `run` as it is: a queued/running run the queue failed or lost is failed here too. */
export async function settleRun(deps: Pick<BacktestServiceDeps, 'queue' | 'repo'>, now: () => number, userId: string, run: StoredBacktest): Promise<StoredBacktest> {
  if (!deps.queue || (run.status !== 'queued' && run.status !== 'running')) return run;
  const queued = await deps.queue.state(run.id).catch(() => undefined);
  let error: string | null = null;
  if (queued === null && now() - Date.parse(run.created_at) > LOST_AFTER_MS) error = LOST_ERROR;
  else if (queued?.state === 'failed') error = `failed: ${queued.reason ?? 'unknown reason'}`;
  if (error === null) return run;
  // Conditional: a run that ended meanwhile (its job completed and was removed) keeps its end.
  await deps.repo.finish(run.id, { error });
  return (await deps.repo.get(userId, run.id)) ?? run;
}

/** Cancel a queued or running run; undefined when not the owner's. @throws AppError CONFLICT when it already ended */
export async function cancelRun(deps: Pick<BacktestServiceDeps, 'queue' | 'repo'>, userId: string, id: string): Promise<StoredBacktest | undefined> {
  const found = await deps.repo.get(userId, id);
  if (!found) return undefined;
  if (!(await deps.repo.cancel(userId, id))) {
    const status = (await deps.repo.get(userId, id))?.status ?? found.status;
    throw new AppError('CONFLICT', `Backtest already ${status}`, { id, status });
  }
  // A waiting job is dropped; a running one stops at its next rebalance date (it sees the row cancelled).
  if (found.status === 'queued') await deps.queue?.remove(id).catch(() => undefined);
  return deps.repo.get(userId, id);
}
