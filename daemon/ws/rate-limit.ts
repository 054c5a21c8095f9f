/**
 * Client message rate limit of one connection (the spec: more than 100
 * messages per second → RATE_LIMIT_EXCEEDED, configurable).
 *
 * Exact sliding window: the times of the last `limit` accepted messages are kept in a
 * ring, so "more than `limit` in ANY 1-second window" is refused, not only per calendar
 * second. Rejected messages are dropped. One error is sent per violation episode (a run
 * of rejected messages ending at the next accepted one), not per rejected message.
 * Abuse — `maxEpisodes` episodes within `episodeWindowMs`, or one episode longer than
 * `floodFactor × limit` rejected messages — asks for a close with 1008.
 */
import type { Clock } from '../infra/clock.js';

/** Settings of the per-connection limiter. */
export interface MessageRateLimitOptions {
  /** Messages allowed in any window. */
  limit: number;
  windowMs?: number;
  maxEpisodes?: number;
  episodeWindowMs?: number;
  floodFactor?: number;
}

/** Outcome for one incoming message. */
export type RateDecision =
  | { allowed: true }
  | {
      allowed: false;
      /** First rejection of an episode: send RATE_LIMIT_EXCEEDED. */
      notify: boolean;
      /** Abuse: close the connection with 1008. */
      close: boolean;
      /** Milliseconds until one more message would be accepted. */
      retryAfterMs: number;
    };

/** A connection's message limiter. */
export interface MessageRateLimiter {
  check(): RateDecision;
  /** Violation episodes so far. */
  violations(): number;
}

/** Create a limiter for one connection. */
export function createMessageRateLimiter(options: MessageRateLimitOptions, clock: Clock): MessageRateLimiter {
  const { limit, windowMs = 1000, maxEpisodes = 5, episodeWindowMs = 60_000, floodFactor = 10 } = options;
  // Lazily grown ring of accepted-message times; at most `limit` entries.
  const times: number[] = [];
  let head = 0;
  let inEpisode = false;
  let rejectedInEpisode = 0;
  let episodes: number[] = [];
  let total = 0;

  return {
    check() {
      const now = clock.now();
      if (times.length < limit) {
        times.push(now);
        inEpisode = false;
        return { allowed: true };
      }
      const oldest = times[head] ?? 0;
      if (now - oldest >= windowMs) {
        times[head] = now;
        head = (head + 1) % limit;
        inEpisode = false;
        return { allowed: true };
      }
      const notify = !inEpisode;
      if (notify) {
        inEpisode = true;
        rejectedInEpisode = 0;
        total++;
        episodes = episodes.filter((t) => now - t < episodeWindowMs);
        episodes.push(now);
      }
      rejectedInEpisode++;
      const close = episodes.length >= maxEpisodes || rejectedInEpisode > floodFactor * limit;
      return { allowed: false, notify, close, retryAfterMs: Math.max(0, oldest + windowMs - now) };
    },
    violations: () => total,
  };
}
