/**
 * Admission of the start work of accepted connections (token check, connection cap, session
 * restore with its replay): at most `concurrency` at once; the rest wait their turn and are
 * begun from setImmediate.
 *
 * Why: when every client reconnects at once (a restart, a deploy) the handshakes themselves
 * are cheap, but each start costs Redis round trips, a history scan and a replay. Begun all
 * at once, their continuations fill every turn of the event loop, the daemon stops accepting,
 * connections wait in the kernel's accept queue until it overflows, and their handshakes time
 * out or are reset. Bounded and begun from setImmediate, each round of starts follows a poll
 * phase, where pending accepts and handshakes are served first: the client is in at once and
 * its session follows as soon as a slot frees. With nothing waiting a start begins at once.
 */

/** The queue of starts. */
export interface StartQueue {
  /**
   * Begin `start` now when a slot is free and nobody waits, else when its turn comes; a
   * waiting start whose `wanted()` turned false (its socket closed) is dropped. Never throws
   * (a rejected start is handed to `onError`).
   */
  run(start: () => Promise<void>, wanted: () => boolean): void;
  /** Starts waiting for a slot. */
  waiting(): number;
  /** Starts under way. */
  active(): number;
}

interface Job {
  start: () => Promise<void>;
  wanted: () => boolean;
}

/** Create a start queue of `concurrency` slots (at least 1). */
export function createStartQueue(concurrency: number, onError: (err: Error) => void): StartQueue {
  const slots = Math.max(1, Math.floor(concurrency));
  let queue: (Job | undefined)[] = [];
  let head = 0;
  let running = 0;
  let scheduled = false;

  function begin(job: Job): void {
    running++;
    let promise: Promise<void>;
    try {
      promise = job.start();
    } catch (err) {
      promise = Promise.reject(err as Error);
    }
    promise.catch((err: Error) => onError(err)).finally(() => {
      running--;
      if (head < queue.length) schedule();
    });
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(drain);
  }

  function drain(): void {
    scheduled = false;
    while (running < slots && head < queue.length) {
      const job = queue[head]!;
      queue[head++] = undefined;
      if (job.wanted()) begin(job);
    }
    // Drop the consumed front at once (amortised) rather than shifting on every start.
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
  }

  return {
    run(start, wanted) {
      const job = { start, wanted };
      if (running < slots && head === queue.length) return begin(job);
      queue.push(job);
      schedule();
    },
    waiting: () => queue.length - head,
    active: () => running,
  };
}
