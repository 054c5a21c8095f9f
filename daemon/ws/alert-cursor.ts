/**
 * A session's alert cursor: which of its owner's alert firings the session has been sent
 * (a connection restoring its session within 5 minutes is sent the alerts it missed).
 * Missed alerts are read from the durable firing records, not from the bounded bus
 * history, so the cursor is expressed in firing times and record ids: `at` is the newest
 * firing time sent (or the session start), `seen` the records sent within
 * ALERT_REORDER_MS of it. Firings of several instances can reach a socket slightly out
 * of time order; the window keeps such a late one from being skipped. Pure.
 */
import type { AlertRef } from './protocol.js';

/** How far out of time order two firings may reach a socket and still both be replayed correctly. */
export const ALERT_REORDER_MS = 5_000;
/** Most ids kept in `seen`. */
const MAX_SEEN = 64;

/** The cursor (stored with the session). */
export interface AlertCursor {
  /** Newest firing time sent, or when the session started (ms since the epoch). */
  at: number;
  /** Firings sent with a time in [at − ALERT_REORDER_MS, at]. */
  seen: AlertRef[];
}

/** A cursor for a session starting at `startedAt`. */
export function newAlertCursor(startedAt: number): AlertCursor {
  return { at: startedAt, seen: [] };
}

/** The cursor after `ref` was sent (a new object; the input is not changed). */
export function advanceAlertCursor(cursor: AlertCursor, ref: AlertRef): AlertCursor {
  const at = Math.max(cursor.at, ref.ts);
  const seen = [...cursor.seen.filter((s) => s.id !== ref.id), ref].filter((s) => s.ts >= at - ALERT_REORDER_MS);
  return { at, seen: seen.slice(-MAX_SEEN) };
}

/**
 * Where the replay of missed firings starts (inclusive), for a session started at
 * `startedAt`: firings before the session are not "missed".
 */
export function alertReplayFloor(cursor: AlertCursor, startedAt: number): number {
  return Math.max(startedAt, cursor.at - ALERT_REORDER_MS);
}

/** Whether a firing was already sent on the session. */
export function alertSeen(cursor: AlertCursor, id: string): boolean {
  return cursor.seen.some((s) => s.id === id);
}
