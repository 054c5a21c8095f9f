/**
 * A bound on one request's screening work while it runs: the work yields to the event loop
 * every few milliseconds (so /health and other users are answered between its slices), stops
 * when it has used its CPU deadline, and stops when its client has gone.
 *
 * The deadline counts the request's own slices (time between a resume and the next yield),
 * not the time it waited for the event loop or for a turn: under load, a request is never
 * failed for other requests' work.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { AppError } from '../../errors.js';
import { DEFAULT_SLICE_BUDGET_MS } from './time-slicer.js';

/** Options of createWorkGuard; the clock is injectable for tests. */
export interface WorkGuardOptions {
  /** CPU milliseconds the work may use. */
  deadlineMs: number;
  /** Aborted when the client disconnected. */
  signal?: AbortSignal;
  /** Milliseconds of synchronous work between yields (default DEFAULT_SLICE_BUDGET_MS). */
  sliceMs?: number;
  now?: () => number;
}

/** A running guard. */
export interface WorkGuard {
  /**
   * Yields when the current slice has used its budget.
   * @throws AppError QUERY_TIMEOUT past the deadline; ClientGoneError once the client left
   */
  checkpoint(): Promise<void>;
  /**
   * Runs and awaits `work` that is not this request's own slices (a snapshot another request is
   * building, or one built under a slicer of its own): the time it takes is not counted, only
   * the slice up to the call.
   * @throws what `work` throws; AppError QUERY_TIMEOUT / ClientGoneError like checkpoint
   */
  wait<T>(work: () => Promise<T>): Promise<T>;
  /** CPU milliseconds used so far. */
  used(): number;
}

/** Thrown at a checkpoint once the request's client disconnected: nobody reads the answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client disconnected; the work was stopped');
    this.name = 'ClientGoneError';
  }
}

/** The error of work stopped at its deadline (503 with the deadline in details). */
export function deadlineError(deadlineMs: number): AppError {
  return new AppError('QUERY_TIMEOUT', `This screen needed more than ${deadlineMs} ms of CPU and was stopped; narrow it (fewer columns, ranks or fields, a smaller universe)`, {
    reason: 'deadline', deadline_ms: deadlineMs,
  });
}

/** Create a guard; its first slice starts now. */
export function createWorkGuard(options: WorkGuardOptions): WorkGuard {
  const now = options.now ?? (() => performance.now());
  const slice = options.sliceMs ?? DEFAULT_SLICE_BUDGET_MS;
  let used = 0;
  let sliceStart = now();
  const check = (): void => {
    if (options.signal?.aborted === true) throw new ClientGoneError();
    if (used > options.deadlineMs) throw deadlineError(options.deadlineMs);
  };
  return {
    async checkpoint() {
      const t = now();
      if (t - sliceStart < slice) return check();
      used += t - sliceStart;
      check();
      await yieldToLoop();
      sliceStart = now();
      check();
    },
    async wait(work) {
      used += now() - sliceStart;
      check();
      try {
        return await work();
      } finally {
        sliceStart = now();
      }
    },
    used: () => used + (now() - sliceStart),
  };
}
