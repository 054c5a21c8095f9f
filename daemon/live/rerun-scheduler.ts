/**
 * The scheduler of whole-list re-runs (formula columns, ranks, scores): the lists a tick made
 * stale wait in one queue, first marked first run, and are re-run in short slices on timers,
 * never all at once (one dear list's re-run too: it pauses at the checkpoint it is given). After a slice that took `d` ms the next one waits at least
 * `d × (1 − share) / share`, so however many lists exist the re-runs take at most `share` of
 * a core and the event loop answers requests (a `/health`, another user's screen) between two
 * slices. More lists (or dearer ones) make each list's re-run come less often; they never make
 * the daemon slower for anyone else. A list is never re-run twice within `everyMs`.
 *
 * Nothing reads through the scheduler: a subscription, a members read or a close takes the
 * lists as their last re-run left them, so its cost does not grow with the number of lists.
 */

/** What the scheduler may spend. */
export interface RerunBudget {
  /** Share of one core the re-runs may take, 0 < share ≤ 1 (default 0.2). */
  share?: number;
  /** Time one slice may take before it yields (default 8 ms; a re-run dearer than that pauses at its checkpoints; 0: one re-run or unit per slice). */
  sliceMs?: number;
  /** Least time between two re-runs of one list, and between two slices (default 25 ms). */
  everyMs?: number;
}

/** Defaults of RerunBudget. */
export const RERUN_DEFAULTS = Object.freeze({ share: 0.2, sliceMs: 8, everyMs: 25 });

/** A scheduler of jobs of type `J` (the whole lists). */
export interface RerunScheduler<J> {
  /** Mark `job` stale: it is re-run in a later slice (a job already waiting keeps its place). */
  mark(job: J): void;
  /** Forget `job` (its list was dropped). */
  drop(job: J): void;
  /** Forget every waiting job (every list was re-run another way). */
  clear(): void;
  /** Run every waiting job now, in one go: for benches and tests that compare against a reference. */
  settle(): void;
  /** Jobs waiting. */
  pending(): number;
  /** Slices run and jobs re-run so far, and CPU time they took (ms). */
  stats(): { slices: number; reruns: number; busy_ms: number };
  /** Stop the timer; idempotent. */
  close(): void;
}

/** Resolves after `ms` (a timer that keeps no process alive). */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Waits when the re-run under way has held the thread for a slice, for the pause that keeps the
 * re-runs within their share; rejects once the scheduler is closed.
 */
export type RerunCheckpoint = () => Promise<void>;

/**
 * Create the scheduler; `run` re-runs one job (and tells its screens). A job that returns a
 * promise is run in slices: it awaits the checkpoint it is given between units of its work, and
 * the checkpoint pauses it as the budget says, so a single dear list (ranks of long formula
 * columns: a hundred ms and more on a full market) never holds the thread at once. `settle` gives
 * no checkpoint: the job then runs at once. `now` is a monotonic millisecond clock (default
 * performance.now).
 */
export function createRerunScheduler<J>(
  run: (job: J, checkpoint?: RerunCheckpoint) => void | Promise<void>, budget: RerunBudget = {}, now: () => number = () => performance.now(),
): RerunScheduler<J> {
  return new Scheduler(run, budget, now);
}

class Scheduler<J> implements RerunScheduler<J> {
  private readonly share: number;
  private readonly sliceMs: number;
  private readonly everyMs: number;
  // Insertion order is the queue: a job marked again keeps its place until it is run.
  private readonly queue = new Set<J>();
  private readonly lastRun = new Map<J, number>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private nextAt = Number.NEGATIVE_INFINITY;
  private closed = false;
  private readonly totals = { slices: 0, reruns: 0, busy_ms: 0 };

  constructor(
    private readonly run: (job: J, checkpoint?: RerunCheckpoint) => void | Promise<void>, budget: RerunBudget, private readonly now: () => number,
  ) {
    this.share = Math.min(1, Math.max(0.01, budget.share ?? RERUN_DEFAULTS.share));
    this.sliceMs = budget.sliceMs ?? RERUN_DEFAULTS.sliceMs;
    this.everyMs = budget.everyMs ?? RERUN_DEFAULTS.everyMs;
  }

  mark(job: J): void {
    this.queue.add(job);
    this.arm();
  }

  drop(job: J): void {
    this.queue.delete(job);
    this.lastRun.delete(job);
  }

  clear(): void {
    this.queue.clear();
  }

  settle(): void {
    const due = [...this.queue];
    this.queue.clear();
    for (const job of due) {
      this.lastRun.set(job, this.now());
      this.run(job);
      this.totals.reruns++;
    }
  }

  pending(): number {
    return this.queue.size;
  }

  stats(): { slices: number; reruns: number; busy_ms: number } {
    return { ...this.totals };
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private pauseAfter(cost: number): number {
    return Math.max(this.everyMs / 5, (cost * (1 - this.share)) / this.share);
  }

  private count(cost: number): void {
    this.totals.slices++;
    this.totals.busy_ms += cost;
  }

  private arm(): void {
    if (this.closed || this.running || this.timer !== undefined || this.queue.size === 0) return;
    this.timer = setTimeout(() => void this.slice(), Math.max(0, this.nextAt - this.now()));
    this.timer.unref();
  }

  private async slice(): Promise<void> {
    this.timer = undefined;
    this.running = true;
    let start = this.now();
    const checkpoint: RerunCheckpoint = async () => {
      const cost = this.now() - start;
      if (cost < this.sliceMs) return;
      this.count(cost);
      await pause(this.pauseAfter(cost));
      if (this.closed) throw new Error('the re-run scheduler closed');
      start = this.now();
    };
    const deferred: J[] = [];
    // At least one re-run per slice; then as many as fit in sliceMs.
    for (const job of this.queue) {
      this.queue.delete(job);
      // Re-run within everyMs of its last one: it goes to the back and waits for a later slice.
      if (this.now() - (this.lastRun.get(job) ?? Number.NEGATIVE_INFINITY) < this.everyMs) {
        deferred.push(job);
        continue;
      }
      this.lastRun.set(job, this.now());
      // A job that fails keeps what its last re-run left (its list's members); the others go on.
      const sliced = this.run(job, checkpoint);
      if (sliced) await sliced.catch(() => undefined);
      this.totals.reruns++;
      if (this.closed) return;
      if (this.now() - start >= this.sliceMs) break;
    }
    this.after(deferred, this.now() - start);
  }

  /** Back in the queue what was re-run moments ago; the pause that keeps the share; the next slice. */
  private after(deferred: J[], cost: number): void {
    for (const job of deferred) this.queue.add(job);
    this.count(cost);
    this.nextAt = this.now() + this.pauseAfter(cost);
    // Only lists re-run moments ago are waiting: wake when the first of them is due. (An empty
    // queue keeps the pause: the minimum of no lists is Infinity, a timer of 1 ms.)
    if (deferred.length > 0 && deferred.length === this.queue.size) {
      this.nextAt = Math.max(this.nextAt, Math.min(...deferred.map((j) => (this.lastRun.get(j) ?? 0) + this.everyMs)));
    }
    this.running = false;
    this.arm();
  }
}
