/**
 * Cooperative time slicing for long synchronous work on the daemon's thread
 * (a full-market rebuild must not block the event loop for more than a
 * few milliseconds at a time). The worker calls `checkpoint()` between small
 * units of work; the slicer yields to the event loop once the current slice has
 * used its budget, and remembers the longest slice it saw so a benchmark can
 * report it.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** Milliseconds of synchronous work allowed before yielding (default of `budgetMs`). */
export const DEFAULT_SLICE_BUDGET_MS = 4;

/** Options of createTimeSlicer; the clock and the yield are injectable for tests. */
export interface TimeSlicerOptions {
  budgetMs?: number;
  now?: () => number;
  /** Gives the event loop a turn (default: setImmediate). */
  yieldToLoop?: () => Promise<unknown>;
}

/** What one sliced run cost. */
export interface SliceStats {
  /** Synchronous slices the work ran in (1 = it never yielded). */
  slices: number;
  /** The longest synchronous slice, in ms: the longest the work blocked the event loop. */
  longest_slice_ms: number;
  /** Wall time from the slicer's creation to finish(), yields included. */
  total_ms: number;
}

/** A running time slicer. */
export interface TimeSlicer {
  /** Yields to the event loop when the current slice has used its budget. */
  checkpoint(): Promise<void>;
  /** Closes the last slice and returns the figures. */
  finish(): SliceStats;
}

/** Create a slicer; the first slice starts now. */
export function createTimeSlicer(options: TimeSlicerOptions = {}): TimeSlicer {
  const budget = options.budgetMs ?? DEFAULT_SLICE_BUDGET_MS;
  const now = options.now ?? (() => performance.now());
  const pause = options.yieldToLoop ?? (() => yieldToLoop());
  const started = now();
  let sliceStart = started;
  let slices = 1;
  let longest = 0;

  return {
    async checkpoint() {
      const t = now();
      if (t - sliceStart < budget) return;
      longest = Math.max(longest, t - sliceStart);
      await pause();
      slices++;
      sliceStart = now();
    },
    finish() {
      const t = now();
      longest = Math.max(longest, t - sliceStart);
      return { slices, longest_slice_ms: round(longest), total_ms: round(t - started) };
    },
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
