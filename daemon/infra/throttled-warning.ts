/**
 * A warning that repeats on every request while a dependency is down (Redis, say) would
 * flood the log: log the first one, then at most one per interval with the number of
 * occurrences suppressed in between.
 */
import type { Logger } from 'pino';

/** How often a throttled warning may be logged. */
export const WARN_INTERVAL_MS = 30_000;

/**
 * A function that logs `text` at warn level with `{err, suppressed}`, at most once per
 * `intervalMs` (`now` is injectable for tests).
 */
export function throttledWarning(logger: Logger, text: string, intervalMs = WARN_INTERVAL_MS, now: () => number = Date.now): (err: string) => void {
  let last = -Infinity;
  let suppressed = 0;
  return (err) => {
    const t = now();
    if (t - last < intervalMs) {
      suppressed++;
      return;
    }
    logger.warn({ err, suppressed }, text);
    last = t;
    suppressed = 0;
  };
}
