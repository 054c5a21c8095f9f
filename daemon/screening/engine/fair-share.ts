/**
 * Fair share of the daemon's CPU between users for expensive screening work (a screen that
 * misses the cache and has columns, ranks or as_of; CSV exports): at most `concurrency` such
 * requests run at once on a daemon, at most `perUser` of one user's, and when a place frees
 * it goes to the waiting user whose last turn is oldest (round robin over the users waiting), so one user's burst
 * waits behind itself, not in front of everyone else. A user with `perUserQueue` requests
 * already waiting is refused (429). In-process: the CPU shared is this daemon's.
 */
import { AppError } from '../../errors.js';

/** Options of createFairShare. */
export interface FairShareOptions {
  concurrency: number;
  perUser: number;
  perUserQueue: number;
}

/** A fair-share gate. */
export interface FairShare {
  /**
   * Runs `task` when `user` has a turn.
   * @throws AppError RATE_LIMIT_EXCEEDED when `user` already has perUserQueue requests waiting
   */
  run<T>(user: string, task: () => Promise<T>): Promise<T>;
  /** Requests running and waiting now. */
  stats(): { running: number; waiting: number };
}

/** Create a gate. */
export function createFairShare(options: FairShareOptions): FairShare {
  let running = 0;
  const runningBy = new Map<string, number>();
  // Users in turn order, each with their waiting starts (first in, first out).
  const waiting = new Map<string, (() => void)[]>();
  let waitingCount = 0;

  const release = (user: string): void => {
    running--;
    const n = (runningBy.get(user) ?? 1) - 1;
    if (n === 0) runningBy.delete(user);
    else runningBy.set(user, n);
    // An idle user is forgotten (the maps stay as small as the users with work).
    if (n === 0 && !waiting.has(user)) servedAt.delete(user);
    dispatch();
  };

  // When each user last got a turn: the user waiting longest since their last turn goes next.
  const servedAt = new Map<string, number>();
  let turns = 0;

  function dispatch(): void {
    while (running < options.concurrency) {
      let next: string | undefined;
      for (const user of waiting.keys()) {
        if ((runningBy.get(user) ?? 0) >= options.perUser) continue;
        if (next === undefined || (servedAt.get(user) ?? -1) < (servedAt.get(next) ?? -1)) next = user;
      }
      if (next === undefined) return;
      const queue = waiting.get(next)!;
      const start = queue.shift()!;
      waitingCount--;
      if (queue.length === 0) waiting.delete(next);
      servedAt.set(next, turns++);
      start();
    }
  }

  return {
    async run(user, task) {
      const queue = waiting.get(user) ?? [];
      if (queue.length >= options.perUserQueue && (running >= options.concurrency || (runningBy.get(user) ?? 0) >= options.perUser)) {
        throw new AppError('RATE_LIMIT_EXCEEDED', `Too many expensive screens at once: ${options.perUser} run and ${options.perUserQueue} wait per user; wait for one to finish`, {
          reason: 'concurrency', per_user: options.perUser, queued: queue.length,
        });
      }
      await new Promise<void>((resolve) => {
        queue.push(() => {
          running++;
          runningBy.set(user, (runningBy.get(user) ?? 0) + 1);
          resolve();
        });
        waitingCount++;
        if (!waiting.has(user)) waiting.set(user, queue);
        dispatch();
      });
      try {
        return await task();
      } finally {
        release(user);
      }
    },
    stats: () => ({ running, waiting: waitingCount }),
  };
}
