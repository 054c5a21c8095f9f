/**
 * What is checked before a backtest is accepted: the caps the repository checks with the run's
 * insert (and the error when they refuse it), whether the market history is read in time to plan
 * the run now, and whether a run may be accepted before it is.
 */
import { AppError, invalidRequest, isAppError } from '../errors.js';
import type { AsOfService } from '../history/as-of-service.js';
import type { BacktestsRepo } from '../store/backtests-repo.js';
import { screenOf, signalsAtMost } from './plan.js';
import type { BacktestLimits, BacktestOwner, BacktestServiceDeps } from './ports.js';
import type { BacktestRequest } from '../contract/backtests.js';

/** An insert the caps refused. */
type Refusal = Exclude<Awaited<ReturnType<BacktestsRepo['create']>>, { ok: true }>;

const isDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));

/** The caps of `owner`'s insert: its tier's active runs, and the whole queue. */
export function capsOf(limits: BacktestLimits | undefined, owner: BacktestOwner) {
  return { perUser: limits?.perTier[owner.tier] ?? null, queued: limits?.queued ?? null };
}

/** The error of a refused insert: 403 at the owner's cap, 503 when the queue is full. */
export function refused(limits: BacktestLimits | undefined, owner: BacktestOwner, created: Refusal): AppError {
  if (created.reason === 'user') {
    const limit = limits?.perTier[owner.tier] ?? null;
    return new AppError('FORBIDDEN', `Backtest limit reached: the ${owner.tier} tier may have ${limit} backtests queued or running and you have ${created.active}. Wait for one to finish or cancel one.`, {
      tier: owner.tier, limit, active: created.active,
    });
  }
  return new AppError('SERVICE_UNAVAILABLE', `The backtest queue is full (${created.queued} runs waiting); try again later.`, { queued: created.queued, limit: limits?.queued ?? null });
}

/** True once the history is read, or after `ms` (false: still reading). A failed read counts as read: planning reports it. */
export async function historyWithin(asOf: AsOfService, ms: number): Promise<boolean> {
  const read = asOf.history().then(() => true, () => true);
  // Decided now, not by which of a fast read and a 0 ms timer ends first.
  if (asOf.historyRead() || ms <= 0) return asOf.historyRead();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a run may be accepted before the history is read: everything the history is not
 * needed for is refused now (400: the screen, the dates' format), and the run's cost fits the
 * budget even at the most rebalance dates it can have. False: over at that count, so the
 * caller waits for the history to give the exact answer (a 400 naming the real count, or a run).
 */
export function fitsWithoutHistory(deps: BacktestServiceDeps, owner: BacktestOwner, request: BacktestRequest, presetQuery: Record<string, unknown> | undefined, now: () => number): boolean {
  const query = screenOf(deps, request, presetQuery, owner.tier);
  for (const field of ['from', 'to'] as const) {
    const date = request[field];
    if (date !== undefined && !isDate(date)) throw invalidRequest(`${field} must be a date YYYY-MM-DD`, { [field]: 'must be a date YYYY-MM-DD, e.g. 2025-06-30' });
  }
  try {
    deps.checkCost?.(query, signalsAtMost(request, new Date(now() + 86_400_000).toISOString().slice(0, 10)), owner.tier);
    return true;
  } catch (err) {
    if (isAppError(err) && err.code === 'INVALID_REQUEST') return false;
    throw err;
  }
}
