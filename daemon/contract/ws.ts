/**
 * The WebSocket protocol on the wire: client messages, every server message
 * and GET /ws/stats. Every server message carries the session's next `sequence` number; a
 * `batch` frame takes its number before its inner messages (daemon/ws/protocol.ts).
 */
import type { WS_ERROR_CODES } from '../errors.js';
import type { MarketStatus } from '../kernel/events.js';
import type { Market } from '../kernel/records.js';

/** The kinds of subscription. */
export const SUBSCRIPTION_TYPES = ['stock', 'market', 'sector'] as const;
/** A subscription kind. */
export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];
/**
 * Longest `dwell_s` a live-screen subscribe may ask for (seconds): an entry or exit reaches the
 * subscriber only once it has held that long.
 */
export const MAX_LIVE_SCREEN_DWELL_S = 3600;
/** Targets per subscription kind (the `restored_subscriptions` shape). */
export type SubscriptionMap = Record<SubscriptionType, string[]>;
/** A WebSocket error code. */
export type WsErrorCode = keyof typeof WS_ERROR_CODES;

/** `subscribe` / `unsubscribe` sent by a client. */
export interface SubscriptionMessage {
  type: 'subscribe' | 'unsubscribe';
  subscription_type: SubscriptionType;
  targets: string[];
}

/** Any client message (unknown extra fields such as `timestamp` are ignored by the server). */
export type ClientMessage =
  | SubscriptionMessage
  | { type: 'ping' }
  | { type: 'refresh_token'; token: string }
  /** `last_sequence` (an extension): the last number the client read, so numbering continues after it. */
  | { type: 'reconnect'; session_id: string; last_sequence?: number };

/**
 * Fields every server message has. Messages are type aliases, not interfaces, so that a
 * ReceivedMessage can be narrowed to one with `as` once its `type` is known.
 */
export type ServerMessageBase = {
  type: string;
  sequence: number;
  /** ISO 8601 UTC. */
  timestamp: string;
};

/** `connected`: the session and the limits that apply to it. */
export type ConnectedMessage = ServerMessageBase & {
  type: 'connected';
  session_id: string;
  connection_id: string;
  user_id: string | null;
  batching_enabled: boolean;
  batch_interval_ms: number;
  rate_limit: number;
  max_subscriptions: number;
  max_targets_per_request: number;
  /** Seconds a saved session stays restorable after disconnect. */
  session_ttl_s: number;};

/** `subscribed` / `unsubscribed`. */
export type SubscriptionAck = ServerMessageBase & {
  type: 'subscribed' | 'unsubscribed';
  subscription_type: SubscriptionType;
  targets: string[];};

/** `price_update`. */
export type PriceUpdate = ServerMessageBase & {
  type: 'price_update';
  code: string;
  name: string;
  price: number;
  change: number;
  change_percent: number;
  volume: number;
  /** Real feed only: `tick` (a real-time trade) or `sweep` (the periodic whole-market poll). */
  source?: 'tick' | 'sweep' | 'ingest' | 'simulator';
  /** Real feed only: the session of the trade (`pre_market`, `regular`, `after_market`). */
  session?: 'pre_market' | 'regular' | 'after_market';};

/** One order book level. */
export interface BookLevel {
  price: number;
  quantity: number;
}

/** `orderbook_update`. */
export type OrderbookUpdate = ServerMessageBase & {
  type: 'orderbook_update';
  code: string;
  bids: BookLevel[];
  asks: BookLevel[];};

/** `market_status`. */
export type MarketStatusMessage = ServerMessageBase & {
  type: 'market_status';
  market: Market;
  status: MarketStatus;
  /** Present when the real feed's freshness changed: `stale` (prices stopped arriving; screens hold entered/exited) or `fresh`. */
  prices?: 'stale' | 'fresh';
  stale_reason?: string;};

/** `alert`: one of the caller's alerts fired. */
export type AlertMessage = ServerMessageBase & {
  type: 'alert';
  code: string;
  alert_type: string;
  /** The price alert's threshold; null for an alert on a screen (`screen_enter`/`screen_exit`). */
  threshold: number | null;
  current_price: number;
  message: string;
  /** The preset whose live screen the stock entered or exited (alerts on screens only). */
  preset_id?: string;};

/** `error`. */
export type ErrorMessage = ServerMessageBase & {
  type: 'error';
  code: WsErrorCode;
  message: string;
  details: Record<string, unknown>;};

/** `pong`. */
export type PongMessage = ServerMessageBase & {
  type: 'pong';};

/** `reconnected`: a saved session restored (daemon/ws/restore.ts explains each figure). */
export type ReconnectedMessage = ServerMessageBase & {
  type: 'reconnected';
  session_id: string;
  restored_subscriptions: SubscriptionMap;
  missed_messages_count: number;
  /** The count is an extrapolation (the gap was not read in full). */
  missed_messages_estimated: boolean;
  replayed_messages: number;
  history_truncated: boolean;
  snapshot_messages: number;
  /** `checkpoint`: the session's daemon died; up to one checkpoint interval of messages is repeated. */
  restored_from: 'saved' | 'checkpoint';};

/** `token_refreshed`. */
export type TokenRefreshedMessage = ServerMessageBase & {
  type: 'token_refreshed';
  user_id: string;
  /** ISO time the new token expires. */
  expires_at: string;};

/** `batch`: messages delivered together, each with its own sequence number. */
export type BatchMessage = ServerMessageBase & {
  type: 'batch';
  batch_size: number;
  messages: ServerMessage[];};

/** A live screen as its `subscribed` message describes it. */
export interface ScreenInfo {
  screen_id: string;
  /** `preset:<id>`, `template:<id>` or `query`. */
  source: string;
  /** Stocks matching (every page). */
  total: number;
  /** Sort and paging the members follow. */
  sort: readonly { field: string; direction: 'asc' | 'desc' }[];
  page: number;
  per_page: number;
  /** Re-opened by a session restore (a screen_update with the diff since the save may follow). */
  restored?: boolean;
}

/** One member of a live screen: code, name, price and the screen's fields (an item of `POST /screen`). */
export type ScreenMember = object;

/** `subscribed` for a live screen: its id and its members in the screen's order, capped by `per_page`. */
export type ScreenSubscribed = ServerMessageBase & ScreenInfo & {
  type: 'subscribed';
  subscription_type: 'screen';
  targets: string[];
  members: readonly ScreenMember[];
  count: number;};

/** `screen_update`: stocks that entered and left a live screen (never coalesced). */
export type ScreenUpdate = ServerMessageBase & {
  type: 'screen_update';
  screen_id: string;
  entered: readonly ScreenMember[];
  exited: readonly string[];
  /** Members now (at most `per_page`). */
  count: number;
  /** Stocks matching (every page). */
  total: number;};

/** `unsubscribed` for live screens. */
export type ScreensUnsubscribed = ServerMessageBase & {
  type: 'unsubscribed';
  subscription_type: 'screen';
  targets: string[];};

/** Every server message. */
export type ServerMessage =
  | ConnectedMessage | SubscriptionAck | PriceUpdate | OrderbookUpdate | MarketStatusMessage | AlertMessage
  | ErrorMessage | PongMessage | ReconnectedMessage | TokenRefreshedMessage | BatchMessage
  | ScreenSubscribed | ScreenUpdate | ScreensUnsubscribed;

/** The `type` of a server message. */
export type ServerMessageType = ServerMessage['type'];

/**
 * A server message as a client reads it before looking at its type: a JSON object with a
 * string `type` (a newer server may send types this contract does not list yet).
 */
export interface ReceivedMessage {
  type: string;
  sequence?: number;
  timestamp?: string;
  [field: string]: unknown;
}

/** The body of a server message as the daemon builds it (the connection adds `sequence`). */
export type MessageBody<M extends ServerMessageBase> = Omit<M, 'type' | 'sequence'>;

/** Send-latency percentiles in milliseconds. */
export interface LatencySummary {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  samples: number;
}

/** Process memory figures in bytes. */
export interface MemoryFigures {
  rss: number;
  heap_used: number;
  heap_total: number;
  external: number;
  array_buffers: number;
}

/** GET /ws/stats: the spec's ten fields plus the figures an SRE wants. Connection figures are one instance's. */
export interface WsStats {
  active_connections: number;
  total_subscriptions: number;
  subscriptions_by_type: Record<SubscriptionType, number>;
  messages_sent: number;
  /** Saved sessions in Redis not yet expired; null when Redis cannot be asked. */
  saved_sessions: number | null;
  batching_enabled: boolean;
  batch_interval_ms: number;
  queued_messages: number;
  rate_limiting_enabled: boolean;
  rate_limit: number;
  frames_sent: number;
  /** Averaged over the last 10 s. */
  messages_per_second: number;
  send_latency_ms: LatencySummary;
  memory: MemoryFigures;
  /**
   * Mean of what each connection holds itself (socket send buffer + session state as saved);
   * null without connections.
   */
  bytes_per_connection: number | null;
  topics: number;
  /** Shared compression contexts (null when compression is off). */
  compression: { contexts: number; busy: number; queued: number } | null;
}
