/**
 * The KIS source's own account of itself while it leads: sweep results, frames, errors and
 * freshness. The sweep, the quote path and the heartbeat write it; the heartbeat publishes it
 * (./status-record.ts) with the socket's figures.
 */
import { KisApiError } from './rest-client.js';
import type { KisFeedStatus } from './status-record.js';

/** The part of the status record the source keeps between heartbeats. */
export type KisFeedState = Omit<KisFeedStatus, 'leader' | 'at' | 'session' | 'socket'>;

/** A fresh state (nothing swept, nothing failed). */
export function newFeedState(): KisFeedState {
  return {
    stale: false, stale_reason: null, stale_since: null, last_sweep_ok_at: null, last_sweep: null,
    last_frame_at: null, last_error: null, last_success_at: null,
  };
}

/** Record `err` at `at` as the last error: a KIS answer by its code, anything else as the quote store failing. */
export function recordFailure(state: KisFeedState, err: unknown, at: number): void {
  if (!(err instanceof KisApiError)) {
    state.last_error = { at, code: 'STORE_UNAVAILABLE', message: `quotes not stored: ${(err as Error).message}` };
    return;
  }
  state.last_error = { at, code: err.code ?? (err.status ? `HTTP_${err.status}` : 'UNREACHABLE'), message: err.message };
}
