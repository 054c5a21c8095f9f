/**
 * Backtests as a use case: validate a request against the loaded history, then run
 * it — directly when it has at most DIRECT_MAX_SIGNALS rebalance dates (the answer carries the
 * result), else as a job on the backtest queue, which a worker of any daemon runs, storing its
 * progress so `GET /screen/backtests/{id}` on any daemon can follow it. Runs are kept per
 * owner; another user's is absent. The stored row is the truth; the queue only carries the id.
 *
 * On a daemon that has not read the market history yet (the first run after a start or a load:
 * seconds on a full market), `start` does not keep the caller waiting for it: after `planWaitMs`
 * it answers the run as queued in the `reading_history` phase and plans it once the history is
 * in; a request the history then refuses (dates outside it) fails the run with the reason.
 *
 * The queue is a port (BacktestQueue, implemented with BullMQ in daemon/jobs/backtest-jobs.ts):
 * without one (the benches) long runs run in this process, one at a time.
 */
import { randomUUID } from 'node:crypto';
import { AppError, isAppError } from '../errors.js';
import type { BacktestStatus, StoredBacktest } from '../store/backtests-repo.js';
import { capsOf, fitsWithoutHistory, historyWithin, refused } from './admission.js';
import { checkOneSource, planBacktest } from './plan.js';
import { PLAN_WAIT_MS, type BacktestJob, type BacktestOwner, type BacktestQueue, type BacktestServiceDeps, type RunHooks } from './ports.js';
import type { BacktestRequest } from '../contract/backtests.js';
import { errorMessage, runJob } from './run-job.js';
import { cancelRun, settleRun } from './stored-runs.js';

export { queryFields } from './plan.js';
export { RunInterrupted, RunYielded, type PicksCheckpoint } from './run.js';
export { PLAN_WAIT_MS, type BacktestJob, type BacktestLimits, type BacktestOwner, type BacktestQueue, type BacktestServiceDeps, type QueuedState, type RunHooks } from './ports.js';
export { LOST_AFTER_MS, LOST_ERROR } from './stored-runs.js';

/** Runs with at most this many rebalance dates are answered directly. */
export const DIRECT_MAX_SIGNALS = 6;

/** The backtest use cases. */
export interface BacktestService {
  /**
   * Validate and run (or queue) a backtest.
   * @throws AppError INVALID_REQUEST with field details, FORBIDDEN (the tier's limit of active runs), SERVICE_UNAVAILABLE (queue full or unreachable)
   */
  start(owner: BacktestOwner, request: BacktestRequest): Promise<StoredBacktest>;
  get(userId: string, id: string): Promise<StoredBacktest | undefined>;
  list(userId: string, limit: number): Promise<StoredBacktest[]>;
  /** Cancel a queued or running run; undefined when not the owner's. @throws AppError CONFLICT when it already ended */
  cancel(userId: string, id: string): Promise<StoredBacktest | undefined>;
  /**
   * Run a queued run (the queue's worker calls this); resolves with how it ended.
   * @throws RunInterrupted when this daemon stops mid-run (the run is queued again for another worker)
   */
  run(job: BacktestJob, hooks?: RunHooks): Promise<BacktestStatus>;
  /** Resolves once every run started in this process without a queue has finished. */
  idle(): Promise<void>;
  /** Stop: a run under way stops at its next rebalance date (queued again, or failed without a queue). Idempotent. */
  close(): Promise<void>;
}

/**
 * Create the backtest service: the checks before a run is accepted are in admission.ts, a run's
 * turn in run-job.ts, reading and cancelling stored runs in stored-runs.ts.
 */
export function createBacktestService(deps: BacktestServiceDeps): BacktestService {
  let local: Promise<unknown> = Promise.resolve();
  /** Runs accepted before the history was read, still being planned (close waits for them). */
  const planning = new Set<Promise<void>>();
  let closing = false;
  const stopping = () => closing;
  const now = deps.now ?? Date.now;
  const run = (job: BacktestJob, hooks: RunHooks = {}, handOn = deps.queue !== undefined) => runJob(deps, job, hooks, handOn, stopping);

  /** Run or queue a planned run (`direct`: here, now; else the queue, or this process one at a time). */
  async function dispatch(owner: BacktestOwner, job: BacktestJob, direct: boolean): Promise<void> {
    if (direct) await run(job, {}, false);
    else if (deps.queue) await enqueueFairly(deps, deps.queue, owner, job);
    else local = local.then(() => run(job, {}, false)).catch(() => undefined);
  }

  /** Plan a run accepted while the history was being read, then run or queue it; a refusal fails it with the reason. */
  async function planLater(owner: BacktestOwner, request: BacktestRequest, job: BacktestJob): Promise<void> {
    try {
      const p = await planBacktest(deps, request, job.preset_query ?? undefined, owner.tier);
      deps.checkCost?.(p.query, p.signals, owner.tier);
      if (!(await deps.repo.planned(job.id, p.signals))) return;
      await dispatch(owner, job, p.signals <= DIRECT_MAX_SIGNALS);
    } catch (err) {
      const details = isAppError(err) ? Object.entries(err.details).map(([k, v]) => `${k}: ${String(v)}`).join('; ') : '';
      await deps.repo.finish(job.id, { error: details ? `${errorMessage(err)} (${details})` : errorMessage(err) }).catch(() => undefined);
    }
  }

  async function start(owner: BacktestOwner, request: BacktestRequest): Promise<StoredBacktest> {
    if (closing) throw new AppError('SERVICE_UNAVAILABLE', 'the daemon is stopping');
    checkOneSource(request);
    const presetQuery = request.preset_id === undefined ? undefined : await deps.presetQuery(owner.id, request.preset_id);
    const id = randomUUID();
    const job: BacktestJob = { id, user_id: owner.id, preset_query: presetQuery ?? null };
    if (!(await historyWithin(deps.asOf, deps.planWaitMs ?? PLAN_WAIT_MS)) && fitsWithoutHistory(deps, owner, request, presetQuery, now)) {
      const created = await deps.repo.create(owner.id, id, request as unknown as Record<string, unknown>, 0, 'queued', capsOf(deps.limits, owner), 'reading_history');
      if (!created.ok) throw refused(deps.limits, owner, created);
      // Planning writes the run (its total, or its failure) as soon as the history is in: at once on a small market.
      return readThenHandOn(deps.repo, owner, id, () => {
        const planned = planLater(owner, request, job);
        planning.add(planned);
        void planned.finally(() => planning.delete(planned));
      });
    }
    const p = await planBacktest(deps, request, presetQuery, owner.tier);
    deps.checkCost?.(p.query, p.signals, owner.tier);
    const direct = p.signals <= DIRECT_MAX_SIGNALS;
    const created = await deps.repo.create(owner.id, id, request as unknown as Record<string, unknown>, p.signals, direct ? 'running' : 'queued', capsOf(deps.limits, owner));
    if (!created.ok) throw refused(deps.limits, owner, created);
    if (!direct) return readThenHandOn(deps.repo, owner, id, () => dispatch(owner, job, false));
    await dispatch(owner, job, true);
    return (await deps.repo.get(owner.id, id))!;
  }

  return {
    start,
    run: (job, hooks) => run(job, hooks),
    async get(userId, id) {
      const found = await deps.repo.get(userId, id);
      return found && settleRun(deps, now, userId, found);
    },
    async list(userId, limit) {
      return Promise.all((await deps.repo.list(userId, limit)).map((stored) => settleRun(deps, now, userId, stored)));
    },
    cancel: (userId, id) => cancelRun(deps, userId, id),
    idle: async () => void (await local),
    async close() {
      closing = true;
      await Promise.all(planning);
      await local;
    },
  };
}

/**
 * The run `id` as it was accepted, read before `handOn` passes it on (to its planning, or to the
 * queue, whose worker may take it at once): what is passed on may write the run before a read
 * issued afterwards answers, whatever order the two were issued in (the store may run them on
 * different connections), and the answer would then say 200 or 202 by chance.
 */
async function readThenHandOn(repo: BacktestServiceDeps['repo'], owner: BacktestOwner, id: string, handOn: () => unknown): Promise<StoredBacktest> {
  const accepted = (await repo.get(owner.id, id))!;
  await handOn();
  return accepted;
}

/** Queue `job` (fair between users: a user's second waiting run queues behind everyone's first); a failure fails the run. */
async function enqueueFairly(deps: BacktestServiceDeps, queue: BacktestQueue, owner: BacktestOwner, job: BacktestJob): Promise<void> {
  try {
    const ahead = (await deps.repo.list(owner.id, 100)).filter((r) => r.id !== job.id && (r.status === 'queued' || r.status === 'running')).length;
    await queue.enqueue(job, 1 + ahead);
  } catch (err) {
    await deps.repo.finish(job.id, { error: `not queued: ${errorMessage(err)}` });
    throw isAppError(err) ? err : new AppError('SERVICE_UNAVAILABLE', 'Backtest queue unavailable');
  }
}
