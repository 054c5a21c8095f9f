/**
 * The plain data shapes around a connection: its settings, the upgrade query it starts
 * from, its row in `GET /ws/connections`, and the fields of its `connected` message.
 */
import type { ConnectedInfo, SubscriptionMap } from './protocol.js';

/** Per-connection settings (from the daemon config plus gateway tuning). */
export interface ConnectionSettings {
  batchIntervalMs: number;
  rateLimit: number;
  maxSubscriptions: number;
  maxTargetsPerRequest: number;
  sessionTtlS: number;
  highWaterBytes: number;
  maxBehindFlushes: number;
  maxQueue: number;
  maxBatchSize: number;
  maxFrameBytes: number;
  maxReplayMessages: number;
  maxReplayScan: number;
  /** Most alert firings replayed from the durable records on one restore. */
  maxReplayAlerts: number;
  /** How long a restore waits for the gateway instance holding a live session to prove dead. */
  ownerWaitMs: number;
  /** After a 4008/1008 close, the socket is destroyed if the close handshake takes longer. */
  closeGraceMs: number;
}

/** Query parameters of the upgrade request. */
export interface ConnectQuery {
  token?: string;
  session_id?: string;
  /** The last sequence number the client read (numbering continues after it on restore). */
  last_sequence?: number;
  /** The client's address (anonymous connections are capped per address). */
  address?: string;
}

/** A row of `GET /ws/connections`. */
export interface ConnectionInfo {
  connection_id: string;
  session_id: string;
  user_id: string | null;
  connected_at: string;
  subscriptions: SubscriptionMap;
  message_count: number;
  messages_received: number;
  queued_messages: number;
  last_activity: string;
}

/** The `connected` message fields of connection `id` (user `userId`) under `settings`. */
export function connectedInfo(id: string, userId: string | null, settings: ConnectionSettings): ConnectedInfo {
  return {
    connection_id: id,
    user_id: userId,
    batching_enabled: settings.batchIntervalMs > 0,
    batch_interval_ms: settings.batchIntervalMs,
    rate_limit: settings.rateLimit,
    max_subscriptions: settings.maxSubscriptions,
    max_targets_per_request: settings.maxTargetsPerRequest,
    session_ttl_s: settings.sessionTtlS,
  };
}
