/** Reads the gateway's `GET /v1/ws/stats` for the WebSocket scenarios. */
import type { ApiClient } from '../api.js';

/** The figures the scenarios use; fields the target does not report are null. */
export interface GatewayStats {
  active_connections: number | null;
  saved_sessions: number | null;
  /** Resident set size of the daemon in bytes (the `memory.rss` extension). */
  rss: number | null;
  /** JavaScript heap in use plus memory of Buffers and other external objects (`memory.heap_used + memory.external`). */
  heap: number | null;
  bytes_per_connection: number | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The stats (they need a user's token), or null when the target does not serve them. Never throws. */
export async function readGatewayStats(api: ApiClient, signal?: AbortSignal, token?: string | null): Promise<GatewayStats | null> {
  try {
    const res = await api.call<Record<string, unknown>>('/v1/ws/stats', { signal, timeoutMs: 10_000, token });
    if (res.status !== 200 || !res.body || typeof res.body !== 'object') return null;
    // The fields sit at the top level and again inside the envelope's `data`.
    const b = (res.body.active_connections !== undefined ? res.body : (res.body.data as Record<string, unknown> | undefined)) ?? {};
    const memory = (b.memory ?? {}) as Record<string, unknown>;
    return {
      active_connections: num(b.active_connections),
      saved_sessions: num(b.saved_sessions),
      rss: num(memory.rss),
      heap: num(memory.heap_used) === null || num(memory.external) === null ? null : num(memory.heap_used)! + num(memory.external)!,
      bytes_per_connection: num(b.bytes_per_connection),
    };
  } catch {
    return null;
  }
}

/**
 * Poll the stats every 100 ms until `done(stats)` or `timeoutMs`; resolves with the last
 * stats read and whether the condition was met.
 */
export async function waitForStats(
  api: ApiClient,
  done: (s: GatewayStats) => boolean,
  timeoutMs: number,
  signal?: AbortSignal,
  token?: string | null,
): Promise<{ stats: GatewayStats | null; met: boolean; waitedMs: number }> {
  const started = performance.now();
  let stats: GatewayStats | null = null;
  while (performance.now() - started < timeoutMs && !signal?.aborted) {
    stats = await readGatewayStats(api, signal, token);
    if (stats === null) break;
    if (done(stats)) return { stats, met: true, waitedMs: performance.now() - started };
    await new Promise((r) => setTimeout(r, 100));
  }
  return { stats, met: false, waitedMs: performance.now() - started };
}
