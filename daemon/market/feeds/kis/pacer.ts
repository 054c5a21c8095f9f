/**
 * Spaces REST calls under the configured rate: each call waits for its slot, `1000 / rate` ms
 * after the previous one, and never more than `rate` calls fall in any one second (timers fire
 * late and early; the provider counts arrivals per second, so even spacing alone drifts over
 * its line now and then). A rate-limit answer pushes every later slot back by `penaltyMs`.
 * Waits end early when the pacer is stopped (a leader losing the lease must not sleep on).
 */

/** A call pacer. */
export interface Pacer {
  /** Resolve at this call's slot; false when the pacer was stopped meanwhile. */
  wait(): Promise<boolean>;
  /** The provider said too many calls: the next slot moves `ms` later. */
  penalize(ms: number): void;
  /** Wait for `ms`, or less if stopped; false when stopped. */
  sleep(ms: number): Promise<boolean>;
  stop(): void;
}

/** Create a pacer of `callsPerSecond`. */
export function createPacer(callsPerSecond: number, now: () => number = () => performance.now()): Pacer {
  const gap = 1000 / callsPerSecond;
  const perWindow = Math.max(1, Math.floor(callsPerSecond));
  // Start times of the last `perWindow` calls.
  const recent: number[] = [];
  let next = 0;
  let stopped = false;
  const sleepers = new Set<() => void>();

  function sleep(ms: number): Promise<boolean> {
    if (stopped) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        sleepers.delete(done);
        resolve(!stopped);
      };
      const t = setTimeout(done, ms);
      sleepers.add(done);
    });
  }

  return {
    async wait() {
      // The even slot first (reserved before sleeping, so callers side by side get different slots) …
      const slot = Math.max(now(), next);
      next = slot + gap;
      if (!(await sleep(slot - now()))) return false;
      // … then the window on actual send times: a late timer must not bunch calls into one second.
      // A margin keeps the window's edge on our side of the provider's clock.
      for (;;) {
        const t = now();
        const free = recent.length >= perWindow ? recent[recent.length - perWindow]! + 1000 + 25 : 0;
        if (t >= free) {
          recent.push(t);
          if (recent.length > perWindow) recent.shift();
          return true;
        }
        if (!(await sleep(free - t))) return false;
      }
    },
    penalize(ms) {
      next = Math.max(next, now() + ms);
    },
    sleep,
    stop() {
      stopped = true;
      for (const wake of [...sleepers]) wake();
    },
  };
}
