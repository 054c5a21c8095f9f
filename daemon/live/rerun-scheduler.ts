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
  const share = Math.min(1, Math.max(0.01, budget.share ?? RERUN_DEFAULTS.share));
  const sliceMs = budget.sliceMs ?? RERUN_DEFAULTS.sliceMs;
  const everyMs = budget.everyMs ?? RERUN_DEFAULTS.everyMs;
  // Insertion order is the queue: a job marked again keeps its place until it is run.
  const queue = new Set<J>();
  const lastRun = new Map<J, number>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let nextAt = Number.NEGATIVE_INFINITY;
  let closed = false;
  const totals = { slices: 0, reruns: 0, busy_ms: 0 };
  const pauseAfter = (cost: number) => Math.max(everyMs / 5, (cost * (1 - share)) / share);

  function arm(): void {
    if (closed || running || timer !== undefined || queue.size === 0) return;
    timer = setTimeout(() => void slice(), Math.max(0, nextAt - now()));
    timer.unref();
  }

  async function slice(): Promise<void> {
    timer = undefined;
    running = true;
    let start = now();
    const checkpoint: RerunCheckpoint = async () => {
      const cost = now() - start;
      if (cost < sliceMs) return;
      totals.slices++;
      totals.busy_ms += cost;
      await new Promise<void>((resolve) => setTimeout(resolve, pauseAfter(cost)).unref());
      if (closed) throw new Error('the re-run scheduler closed');
      start = now();
    };
    const deferred: J[] = [];
    // At least one re-run per slice; then as many as fit in sliceMs.
    for (const job of queue) {
      queue.delete(job);
      // Re-run within everyMs of its last one: it goes to the back and waits for a later slice.
      if (now() - (lastRun.get(job) ?? Number.NEGATIVE_INFINITY) < everyMs) {
        deferred.push(job);
        continue;
      }
      lastRun.set(job, now());
      // A job that fails keeps what its last re-run left (its list's members); the others go on.
      const sliced = run(job, checkpoint);
      if (sliced) await sliced.catch(() => undefined);
      totals.reruns++;
      if (closed) return;
      if (now() - start >= sliceMs) break;
    }
    for (const job of deferred) queue.add(job);
    const cost = now() - start;
    totals.slices++;
    totals.busy_ms += cost;
    nextAt = now() + pauseAfter(cost);
    // Only lists re-run moments ago are waiting: wake when the first of them is due. (An empty
    // queue keeps the pause: the minimum of no lists is Infinity, a timer of 1 ms.)
    if (deferred.length > 0 && deferred.length === queue.size) nextAt = Math.max(nextAt, Math.min(...deferred.map((j) => (lastRun.get(j) ?? 0) + everyMs)));
    running = false;
    arm();
  }

  return {
    mark(job) {
      queue.add(job);
      arm();
    },
    drop(job) {
      queue.delete(job);
      lastRun.delete(job);
    },
    clear() {
      queue.clear();
    },
    settle() {
      const due = [...queue];
      queue.clear();
      for (const job of due) {
        lastRun.set(job, now());
        run(job);
        totals.reruns++;
      }
    },
    pending: () => queue.size,
    stats: () => ({ ...totals }),
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
