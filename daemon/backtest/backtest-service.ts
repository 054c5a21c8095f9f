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
import { AppError, invalidRequest, isAppError } from '../errors.js';
import type { AsOfService } from '../history/as-of-service.js';
import type { BacktestPhase } from '../contract/backtests.js';
import type { Tier } from '../kernel/roles.js';
import type { ScreenCaller } from '../screening/engine/cost.js';
import type { ScreenQuery } from '../screening/engine/query.js';
import type { BacktestStatus, BacktestsRepo, StoredBacktest } from '../store/backtests-repo.js';
import { checkOneSource, planBacktest, screenOf, signalsAtMost, type PlanDeps } from './plan.js';
import type { BacktestRequest } from '../contract/backtests.js';
import { executePlan, RunCancelled, RunInterrupted, RunYielded, type PicksCheckpoint } from './run.js';

export { queryFields } from './plan.js';
export { RunInterrupted, RunYielded, type PicksCheckpoint } from './run.js';

/** Runs with at most this many rebalance dates are answered directly. */
export const DIRECT_MAX_SIGNALS = 6;
/** A queued or running run the queue has never heard of for this long was lost (its daemon died before enqueueing, Redis emptied). */
export const LOST_AFTER_MS = 60_000;
/** The error of such a run. */
export const LOST_ERROR = 'interrupted: no worker holds this run any more (its daemon stopped before handing it on, or the queue lost it); start it again';

/** What a queued run's job carries: the run's id and owner, and the preset's query as it was when asked. */
export interface BacktestJob {
  id: string;
  user_id: string;
  preset_query: Record<string, unknown> | null;
}

/** The queue's view of a run. */
export interface QueuedState {
  state: 'waiting' | 'active' | 'completed' | 'failed' | 'other';
  /** Why it failed (BullMQ's failedReason), when it did. */
  reason: string | null;
}

/** Where long runs wait for a worker (any daemon's). */
export interface BacktestQueue {
  /**
   * Queue `job`; runs of lower `priority` (≥ 1) are taken first, equal ones in order.
   * @throws AppError SERVICE_UNAVAILABLE when the queue cannot be reached
   */
  enqueue(job: BacktestJob, priority?: number): Promise<void>;
  /** The queue's view of a run; null when it holds no such job. */
  state(id: string): Promise<QueuedState | null>;
  /** Drop a job still waiting (no-op once a worker took it). */
  remove(id: string): Promise<void>;
}

/** Who asks. */
export interface BacktestOwner {
  id: string;
  tier: Tier;
}

/** How many runs may wait or run (null = no limit). */
export interface BacktestLimits {
  /** Most queued + running runs per user, by tier. */
  perTier: Readonly<Record<Tier, number | null>>;
  /** Most queued runs of every user together. */
  queued: number | null;
}

/** Collaborators of the backtest service. */
export interface BacktestServiceDeps extends PlanDeps {
  asOf: AsOfService;
  /** Parses a screening request within `caller`'s budget. @throws AppError INVALID_REQUEST */
  parseScreen(body: unknown, caller: ScreenCaller): ScreenQuery;
  /** Checks a whole run against the owner's budget (cost per date × dates). @throws AppError INVALID_REQUEST naming the limit */
  checkCost?(query: ScreenQuery, signals: number, tier: Tier): void;
  /** The owner's saved preset's query, or undefined. */
  presetQuery(userId: string, id: string): Promise<Record<string, unknown> | undefined>;
  repo: BacktestsRepo;
  /** The queue of long runs; without one they run in this process, one at a time. */
  queue?: BacktestQueue;
  limits?: BacktestLimits;
  onError?(err: unknown, id: string): void;
  /** Time source of the lost-run check (default: the system clock). */
  now?: () => number;
  /**
   * How long `start` waits for a market history not read yet before it answers the run as
   * queued in the `reading_history` phase (ms, default PLAN_WAIT_MS; 0: never waits).
   */
  planWaitMs?: number;
}

/** Default of BacktestServiceDeps.planWaitMs: short enough that a client shows the phase within a second. */
export const PLAN_WAIT_MS = 750;

/** Hooks of one run. */
export interface RunHooks {
  /** After each rebalance date's screen. */
  onProgress?(done: number, total: number): void | Promise<void>;
  /** When the run enters a phase (reading_history, building_series, screening), before its first date is screened. */
  onPhase?(phase: BacktestPhase, done: number, total: number): void | Promise<void>;
  /** Where each date's selection is kept, so a worker taking the run over resumes after the last one (run.ts). */
  checkpoint?: PicksCheckpoint;
  /** End this turn (RunYielded: queued again, resumed from the checkpoint) after this many new rebalance dates. */
  yieldAfter?: number;
}

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

const isDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Create the backtest service. */
export function createBacktestService(deps: BacktestServiceDeps): BacktestService {
  let local: Promise<unknown> = Promise.resolve();
  /** Runs accepted before the history was read, still being planned (close waits for them). */
  const planning = new Set<Promise<void>>();
  let closing = false;
  const now = deps.now ?? Date.now;

  function capsOf(owner: BacktestOwner) {
    return { perUser: deps.limits?.perTier[owner.tier] ?? null, queued: deps.limits?.queued ?? null };
  }

  function refused(owner: BacktestOwner, created: Exclude<Awaited<ReturnType<BacktestsRepo['create']>>, { ok: true }>): AppError {
    if (created.reason === 'user') {
      const limit = deps.limits?.perTier[owner.tier] ?? null;
      return new AppError('FORBIDDEN', `Backtest limit reached: the ${owner.tier} tier may have ${limit} backtests queued or running and you have ${created.active}. Wait for one to finish or cancel one.`, {
        tier: owner.tier, limit, active: created.active,
      });
    }
    return new AppError('SERVICE_UNAVAILABLE', `The backtest queue is full (${created.queued} runs waiting); try again later.`, { queued: created.queued, limit: deps.limits?.queued ?? null });
  }

  /** A queued/running run the queue failed or lost is failed here too (on any daemon that reads it). */
  async function settle(userId: string, run: StoredBacktest): Promise<StoredBacktest> {
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

  /** Run `job`; `handOn`: when this daemon stops mid-run, queue it again for another worker (else it fails). */
  async function run(job: BacktestJob, hooks: RunHooks = {}, handOn = deps.queue !== undefined): Promise<BacktestStatus> {
    if (closing) throw new RunInterrupted();
    const stored = await deps.repo.get(job.user_id, job.id);
    if (!stored || !(await deps.repo.claim(job.id))) return stored?.status ?? 'cancelled';
    let done = 0;
    try {
      // Checked against the owner's budget when it was asked for.
      const p = await planBacktest(deps, stored.request as BacktestRequest, job.preset_query ?? undefined, 'trusted');
      const result = await executePlan(deps.asOf, p, {
        stopping: () => closing,
        async onPhase(phase) {
          if (!(await deps.repo.phase(job.id, phase))) throw new RunCancelled();
          await hooks.onPhase?.(phase, done, p.signals);
        },
        checkpoint: hooks.checkpoint,
        ...(hooks.yieldAfter === undefined ? {} : { yieldAfter: hooks.yieldAfter, resumeAfter: stored.done }),
        async onProgress(now, total) {
          if (!(await deps.repo.progress(job.id, now, total))) throw new RunCancelled();
          done = now;
          await hooks.onProgress?.(now, total);
        },
      });
      await deps.repo.finish(job.id, { result });
      return 'completed';
    } catch (err) {
      if (err instanceof RunCancelled) return 'cancelled';
      if (err instanceof RunInterrupted && handOn) {
        // A turn that ended keeps its progress (the next turn resumes after it); a stop starts over from the checkpoint.
        await deps.repo.requeue(job.id, err instanceof RunYielded ? done : 0);
        throw err;
      }
      deps.onError?.(err, job.id);
      await deps.repo.finish(job.id, { error: message(err) });
      return 'failed';
    }
  }

  /** Queue `job` (fair between users: a user's second waiting run queues behind everyone's first); a failure fails the run. */
  async function enqueue(queue: BacktestQueue, owner: BacktestOwner, job: BacktestJob): Promise<void> {
    try {
      const ahead = (await deps.repo.list(owner.id, 100)).filter((r) => r.id !== job.id && (r.status === 'queued' || r.status === 'running')).length;
      await queue.enqueue(job, 1 + ahead);
    } catch (err) {
      await deps.repo.finish(job.id, { error: `not queued: ${message(err)}` });
      throw isAppError(err) ? err : new AppError('SERVICE_UNAVAILABLE', 'Backtest queue unavailable');
    }
  }

  /** Run or queue a planned run (`direct`: here, now; else the queue, or this process one at a time). */
  async function dispatch(owner: BacktestOwner, job: BacktestJob, direct: boolean): Promise<void> {
    if (direct) await run(job, {}, false);
    else if (deps.queue) await enqueue(deps.queue, owner, job);
    else local = local.then(() => run(job, {}, false)).catch(() => undefined);
  }

  /** True once the history is read, or after `planWaitMs` (false: still reading). A failed read counts as read: planning reports it. */
  async function historyWithin(ms: number): Promise<boolean> {
    const read = deps.asOf.history().then(() => true, () => true);
    // Decided now, not by which of a fast read and a 0 ms timer ends first.
    if (deps.asOf.historyRead() || ms <= 0) return deps.asOf.historyRead();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
    try {
      return await Promise.race([read, late]);
    } finally {
      clearTimeout(timer);
    }
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
      await deps.repo.finish(job.id, { error: details ? `${message(err)} (${details})` : message(err) }).catch(() => undefined);
    }
  }

  /**
   * Whether a run may be accepted before the history is read: everything the history is not
   * needed for is refused now (400: the screen, the dates' format), and the run's cost fits the
   * budget even at the most rebalance dates it can have. False: over at that count, so the
   * caller waits for the history to give the exact answer (a 400 naming the real count, or a run).
   */
  function fitsWithoutHistory(owner: BacktestOwner, request: BacktestRequest, presetQuery: Record<string, unknown> | undefined): boolean {
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

  async function start(owner: BacktestOwner, request: BacktestRequest): Promise<StoredBacktest> {
    if (closing) throw new AppError('SERVICE_UNAVAILABLE', 'the daemon is stopping');
    checkOneSource(request);
    const presetQuery = request.preset_id === undefined ? undefined : await deps.presetQuery(owner.id, request.preset_id);
    const id = randomUUID();
    const job: BacktestJob = { id, user_id: owner.id, preset_query: presetQuery ?? null };
    if (!(await historyWithin(deps.planWaitMs ?? PLAN_WAIT_MS)) && fitsWithoutHistory(owner, request, presetQuery)) {
      const created = await deps.repo.create(owner.id, id, request as unknown as Record<string, unknown>, 0, 'queued', capsOf(owner), 'reading_history');
      if (!created.ok) throw refused(owner, created);
      const planned = planLater(owner, request, job);
      planning.add(planned);
      void planned.finally(() => planning.delete(planned));
      return (await deps.repo.get(owner.id, id))!;
    }
    const p = await planBacktest(deps, request, presetQuery, owner.tier);
    deps.checkCost?.(p.query, p.signals, owner.tier);
    const direct = p.signals <= DIRECT_MAX_SIGNALS;
    const created = await deps.repo.create(owner.id, id, request as unknown as Record<string, unknown>, p.signals, direct ? 'running' : 'queued', capsOf(owner));
    if (!created.ok) throw refused(owner, created);
    await dispatch(owner, job, direct);
    return (await deps.repo.get(owner.id, id))!;
  }

  return {
    start,
    run: (job, hooks) => run(job, hooks),
    async get(userId, id) {
      const found = await deps.repo.get(userId, id);
      return found && settle(userId, found);
    },
    async list(userId, limit) {
      return Promise.all((await deps.repo.list(userId, limit)).map((run) => settle(userId, run)));
    },
    async cancel(userId, id) {
      const found = await deps.repo.get(userId, id);
      if (!found) return undefined;
      if (!(await deps.repo.cancel(userId, id))) {
        const status = (await deps.repo.get(userId, id))?.status ?? found.status;
        throw new AppError('CONFLICT', `Backtest already ${status}`, { id, status });
      }
      // A waiting job is dropped; a running one stops at its next rebalance date (it sees the row cancelled).
      if (found.status === 'queued') await deps.queue?.remove(id).catch(() => undefined);
      return deps.repo.get(userId, id);
    },
    idle: async () => void (await local),
    async close() {
      closing = true;
      await Promise.all(planning);
      await local;
    },
  };
}
