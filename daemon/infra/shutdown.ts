/**
 * Closing in a written order: every step runs, in order, whatever the ones before it did; a
 * failure is logged with the step's name and the next step still runs. The daemon's shutdown,
 * its clean-up after a failed start, and the worker process share it.
 *
 * A shutdown is bounded: given a deadline, a step still running when its time is up is left
 * behind (logged) and the next step runs. A step is told how long it has, so it can give up
 * politely first (hand a job back, then drop its connections) rather than be abandoned.
 */
import type { Logger } from 'pino';

/** One named step; `remainingMs` is how long it has before it is left behind (Infinity: no bound). */
export type ShutdownStep = readonly [name: string, run: (remainingMs: number) => Promise<unknown>];

/** Options of runShutdownSteps. */
export interface ShutdownOptions {
  /** Log level of a failed step (default error). */
  level?: 'warn' | 'error';
  /** Message of a failed step (default "shutdown step failed"). */
  message?: string;
  /** Epoch ms by which the steps should be done; none: each step is waited for as long as it takes. */
  deadline?: number;
  /**
   * The part of the time left that one step may use (default 0.5): a step that hangs (a server
   * gone) leaves the steps after it time of their own, and each later one less.
   */
  stepShare?: number;
  /**
   * Time a step still gets once the deadline has passed (default 200 ms): the steps after a hung
   * one are short (drop a connection, close a file) and still worth running.
   */
  lateStepMs?: number;
}

/** Thrown (logged) when a step did not finish in its time. */
class StepTimedOut extends Error {
  constructor(ms: number) {
    super(`did not finish within ${Math.round(ms)} ms; left behind`);
  }
}

/** Run `steps` in order, continuing past failures and, with a deadline, past steps that overrun it. */
export async function runShutdownSteps(steps: readonly ShutdownStep[], logger: Logger, options: ShutdownOptions = {}): Promise<void> {
  const { level = 'error', message = 'shutdown step failed', deadline, stepShare = 0.5, lateStepMs = 200 } = options;
  for (const [name, run] of steps) {
    const allowed = deadline === undefined ? Infinity : Math.max((deadline - Date.now()) * stepShare, lateStepMs);
    try {
      logger.debug({ step: name }, 'shutdown step');
      await withinMs(run(allowed), allowed);
    } catch (err) {
      logger[level]({ err: err instanceof Error ? err.message : String(err), step: name }, message);
    }
  }
}

/** `work`, or a StepTimedOut rejection after `ms` (the work itself goes on, unobserved). */
function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  if (!Number.isFinite(ms)) return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepTimedOut(ms)), ms);
    timer.unref();
  });
  // A step left behind may still fail later: that must not become an unhandled rejection.
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Resolve when `work` settles or after `ms`, whichever is first; true when it settled in time.
 * Never throws: for waits whose outcome only decides whether to force something next.
 */
export function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  if (!Number.isFinite(ms)) return work.then(() => true, () => true);
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.then(() => true, () => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, ms), false);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}
