/**
 * The body of `GET /ws/stats` (the spec: the ten fields) plus the
 * figures an SRE wants (memory, bytes per connection, messages/s, send latency).
 * Connection figures are this instance's; `saved_sessions` counts Redis (all instances).
 */
import type { Connection, ConnectionSettings } from './connection.js';
import type { SessionStore } from './session-store.js';
import type { WsStats } from '../contract/ws.js';
import { memoryFigures, type WsCounters } from './stats.js';

/** The stats body (daemon/contract/ws.ts). */
export type { WsStats } from '../contract/ws.js';

/** Inputs of the stats. */
export interface StatsInputs {
  connections: readonly Connection[];
  counters: WsCounters;
  sessions: SessionStore;
  options: ConnectionSettings;
  topics: number;
  deflate: { contexts: number; busy: number; queued: number } | null;
}

/** Gather the stats; never throws (an unreachable Redis gives saved_sessions null). */
export async function collectStats(input: StatsInputs): Promise<WsStats> {
  const { connections, counters, options } = input;
  const byType = { stock: 0, market: 0, sector: 0 };
  let queued = 0;
  let footprint = 0;
  for (const c of connections) {
    footprint += c.footprintBytes();
    byType.stock += c.subscriptions.count('stock');
    byType.market += c.subscriptions.count('market');
    byType.sector += c.subscriptions.count('sector');
    queued += c.queuedMessages();
  }
  const savedSessions = await input.sessions.count().catch(() => null);
  const memory = memoryFigures();
  return {
    active_connections: connections.length,
    total_subscriptions: byType.stock + byType.market + byType.sector,
    subscriptions_by_type: byType,
    messages_sent: counters.messagesSent(),
    saved_sessions: savedSessions,
    batching_enabled: options.batchIntervalMs > 0,
    batch_interval_ms: options.batchIntervalMs,
    queued_messages: queued,
    rate_limiting_enabled: true,
    rate_limit: options.rateLimit,
    frames_sent: counters.framesSent(),
    messages_per_second: counters.messagesPerSecond(),
    send_latency_ms: counters.latency(),
    memory,
    bytes_per_connection: connections.length > 0 ? Math.round(footprint / connections.length) : null,
    topics: input.topics,
    compression: input.deflate,
  };
}
