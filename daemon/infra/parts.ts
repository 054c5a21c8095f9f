/**
 * The parts of a process, in one ordered list: building a part adds it (with how it stops);
 * `start()` starts them in that order, `stop()` stops them in the reverse order. The same list
 * closes a build that failed half-way (only the parts built so far are on it) and a start that
 * failed (every part stops: one not started yet releases what building it opened).
 *
 * Building opens storage and connections but runs nothing: timers, workers, stream readers and
 * subscriptions begin in a part's `start`. So the order a process starts and stops in is written
 * once, as the order its parts are built in (daemon/daemon.ts, daemon/worker.ts).
 */
import type { Logger } from 'pino';
import { runShutdownSteps, type ShutdownOptions } from './shutdown.js';

/** One part of a process: what starts it (after every part before it started) and what stops it. */
export interface Part {
  readonly name: string;
  /** Begin running (timers, workers, subscriptions); a rejection aborts the start. */
  start?(): Promise<unknown> | void;
  /**
   * Stop, and release what building opened; runs whether or not `start` ran, at most once.
   * `remainingMs` is how long it has before it is left behind (Infinity: no bound).
   */
  stop?(remainingMs: number): Promise<unknown>;
}

/** The ordered parts of one process. */
export interface PartList {
  /** Append a part (building order is starting order). */
  add(part: Part): void;
  /** The parts' names, in order. */
  names(): string[];
  /** Start every part in order. @throws the first part's failure (the caller then stops the list) */
  start(): Promise<void>;
  /** Stop every part in reverse order, continuing past failures and, with a deadline, past hung parts; idempotent. */
  stop(logger: Logger, options?: ShutdownOptions): Promise<void>;
}

/** Create an empty list. */
export function createPartList(): PartList {
  const parts: Part[] = [];
  let stopping: Promise<void> | undefined;
  return {
    add(part) {
      if (stopping) throw new Error(`part ${part.name} added after the process began stopping`);
      parts.push(part);
    },
    names: () => parts.map((p) => p.name),
    async start() {
      for (const part of parts) {
        if (stopping) throw new Error('stopped while starting');
        await part.start?.();
      }
    },
    stop(logger, options) {
      return (stopping ??= runShutdownSteps(
        parts.flatMap((p) => (p.stop ? [[p.name, p.stop] as const] : [])).reverse(),
        logger,
        options,
      ));
    },
  };
}
