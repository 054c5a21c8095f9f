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
      // A margin of a few ms keeps the window's edge on our side of the provider's clock.
      const windowFree = recent.length >= perWindow ? recent[recent.length - perWindow]! + 1000 + 15 : 0;
      const at = Math.max(now(), next, windowFree);
      next = at + gap;
      recent.push(at);
      if (recent.length > perWindow) recent.shift();
      return sleep(at - now());
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
