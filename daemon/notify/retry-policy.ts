/**
 * When to try a failed delivery again: exponential backoff with jitter (the delay doubles from
 * `baseMs` up to `maxMs`, and a random half of it is spread so that receivers recovering from an
 * outage are not hit by every sender at once), never sooner than the receiver's Retry-After, and
 * never past the delivery's deadline: an attempt that would come later is not made (dead).
 */
import type { AttemptOutcome } from '../store/deliveries-repo.js';
import type { AttemptResult } from './senders.js';

/** Retry settings. */
export interface RetrySettings {
  baseMs: number;
  maxMs: number;
}

/** The delay before attempt `n + 1` after `n` failed attempts (n ≥ 1), jittered. */
export function backoffMs(n: number, settings: RetrySettings, random: () => number = Math.random): number {
  const full = Math.min(settings.maxMs, settings.baseMs * 2 ** Math.min(n - 1, 40));
  return Math.round(full / 2 + random() * (full / 2));
}

/** What an attempt's result makes of its delivery. `once`: a test message, never retried. */
export function outcomeOf(
  result: AttemptResult,
  attempts: number,
  now: number,
  deadline: number,
  settings: RetrySettings,
  options: { once?: boolean; random?: () => number } = {},
): AttemptOutcome {
  if (result.ok) return { status: 'delivered' };
  const error = result.error ?? 'failed';
  if (result.permanent) return { status: 'dead', error };
  if (options.once) return { status: 'dead', error: `${error} (a test message is not retried)` };
  const next = now + Math.max(backoffMs(attempts, settings, options.random), result.retryAfterMs ?? 0);
  if (next > deadline) return { status: 'dead', error: `${error}; gave up: the next attempt would come after the delivery's deadline` };
  return { status: 'retrying', next_attempt_at: next, error };
}
