/**
 * The backtest service's ports and the shapes it shares with its parts (admission.ts,
 * run-job.ts, stored-runs.ts): the queue of long runs, who asks, the limits, the collaborators,
 * and the hooks of one run.
 */
import type { AsOfService } from '../history/as-of-service.js';
import type { BacktestPhase } from '../contract/backtests.js';
import type { Tier } from '../kernel/roles.js';
import type { ScreenCaller } from '../screening/engine/cost.js';
import type { ScreenQuery } from '../screening/engine/query.js';
import type { BacktestsRepo } from '../store/backtests-repo.js';
import type { PlanDeps } from './plan.js';
import type { PicksCheckpoint } from './run.js';

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

