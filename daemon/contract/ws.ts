/**
 * The WebSocket protocol on the wire: client messages, every server message
 * and GET /ws/stats. Every server message carries the session's next `sequence` number; a
 * `batch` frame takes its number before its inner messages (daemon/ws/protocol.ts).
 * Each shape is a zod schema: the daemon validates client messages with these (its own
 * parser picks the schema and words the error frame), builds server messages that satisfy
 * their types, documents GET /ws/stats with WsStats, and the CLI reads the types.
 */
import { z } from 'zod';
import { WS_ERROR_CODES } from '../errors.js';
import type { MarketStatus } from '../kernel/events.js';
import { MARKETS } from '../kernel/records.js';

/** The kinds of subscription. */
export const SUBSCRIPTION_TYPES = ['stock', 'market', 'sector'] as const;
/** A subscription kind. */
export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];
/**
 * Longest `dwell_s` a live-screen subscribe may ask for (seconds): an entry or exit reaches the
 * subscriber only once it has held that long.
 */
export const MAX_LIVE_SCREEN_DWELL_S = 3600;

const target = z.string().min(1).max(100);
const subscriptionFields = {
  subscription_type: z.enum(SUBSCRIPTION_TYPES),
  targets: z.array(target).min(1),
};

/**
 * Every client message but live screens, by `type` (unknown extra fields such as `timestamp` are
 * ignored). `reconnect`'s `last_sequence` (an extension): the last number the client read, so
 * numbering continues after it.
 */
export const StreamClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), ...subscriptionFields }),
  z.object({ type: z.literal('unsubscribe'), ...subscriptionFields }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('refresh_token'), token: z.string().min(1).max(8192) }),
  z.object({ type: z.literal('reconnect'), session_id: z.string().uuid(), last_sequence: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional() }),
]);
export type StreamClientMessage = z.output<typeof StreamClientMessage>;

/** `subscribe` / `unsubscribe` of stocks, markets or sectors sent by a client. */
export type SubscriptionMessage = Extract<StreamClientMessage, { type: 'subscribe' | 'unsubscribe' }>;

/** Most screens named in one live-screen subscribe. */
export const MAX_SCREEN_TARGETS = 10;

// Bounded only: a target that names nothing is a SUBSCRIPTION_FAILED (unknown_targets), like other subscriptions.
const screenTarget = z.string().min(1).max(100);

/**
 * A live-screen subscribe: named screens (`preset:<id>`, `template:<id>`) or one inline query
 * (either request shape of POST /screen). `overrides` apply to every `template:` target: the body
 * of POST /screen/templates/{id} (market, sort or sort_by/order, page, per_page or limit, fields;
 * not as_of), validated like it (unknown keys refused); the template with them is a screen of its own.
 */
export const ScreenSubscribeMessage = z
  .object({
    type: z.literal('subscribe'),
    subscription_type: z.literal('screen'),
    targets: z.array(screenTarget).min(1).max(MAX_SCREEN_TARGETS).optional(),
    query: z.record(z.string(), z.unknown()).optional(),
    // An object here; its keys and values are checked when each template opens, so a bad one is a
    // SUBSCRIPTION_FAILED naming the field (`overrides.<field>`), like the screen's other refusals.
    overrides: z.record(z.string(), z.unknown()).optional(),
    // Checked by the live-screen hook, so a bad value is a SUBSCRIPTION_FAILED naming the field
    // like the screen's other refusals, not a malformed message.
    dwell_s: z.unknown().optional(),
  })
  .refine((m) => (m.targets === undefined) !== (m.query === undefined), { message: 'give either targets or query', path: ['targets'] })
  .refine((m) => m.overrides === undefined || m.query === undefined, { message: 'overrides go with template targets; put the settings in the query itself', path: ['overrides'] });
export type ScreenSubscribeMessage = z.output<typeof ScreenSubscribeMessage>;

/** A live-screen unsubscribe: screen ids or the targets they were subscribed with. */
export const ScreenUnsubscribeMessage = z.object({
  type: z.literal('unsubscribe'),
  subscription_type: z.literal('screen'),
  targets: z.array(z.string().min(1).max(100)).min(1).max(100),
});
export type ScreenUnsubscribeMessage = z.output<typeof ScreenUnsubscribeMessage>;

/** Either live-screen message. */
export type ScreenClientMessage = ScreenSubscribeMessage | ScreenUnsubscribeMessage;

/** Any client message. */
export const ClientMessage = z.union([StreamClientMessage, ScreenSubscribeMessage, ScreenUnsubscribeMessage]);
export type ClientMessage = z.output<typeof ClientMessage>;

/**
 * Fields every server message has; `timestamp` is ISO 8601 UTC. The messages' types are object
 * type aliases, so that a ReceivedMessage can be narrowed to one with `as` once its `type` is known.
 */
export const ServerMessageBase = z.object({ type: z.string(), sequence: z.number(), timestamp: z.string() });
export type ServerMessageBase = z.output<typeof ServerMessageBase>;

/** `connected`: the session and the limits that apply to it (`session_ttl_s`: seconds a saved session stays restorable after disconnect). */
export const ConnectedMessage = ServerMessageBase.extend({
  type: z.literal('connected'),
  session_id: z.string(),
  connection_id: z.string(),
  user_id: z.string().nullable(),
  batching_enabled: z.boolean(),
  batch_interval_ms: z.number(),
  rate_limit: z.number(),
  max_subscriptions: z.number(),
  max_targets_per_request: z.number(),
  session_ttl_s: z.number(),
});
export type ConnectedMessage = z.output<typeof ConnectedMessage>;

/** `subscribed` / `unsubscribed`. */
export const SubscriptionAck = ServerMessageBase.extend({ type: z.enum(['subscribed', 'unsubscribed']), subscription_type: z.enum(SUBSCRIPTION_TYPES), targets: z.array(z.string()) });
export type SubscriptionAck = z.output<typeof SubscriptionAck>;

/**
 * `price_update`. Real feed only: `source` says how the price was learnt (`tick`, a real-time
 * trade, or `sweep`, the periodic whole-market poll) and `session` the session of the trade.
 */
export const PriceUpdate = ServerMessageBase.extend({
  type: z.literal('price_update'),
  code: z.string(),
  name: z.string(),
  price: z.number(),
  change: z.number(),
  change_percent: z.number(),
  volume: z.number(),
  source: z.enum(['tick', 'sweep', 'ingest', 'simulator']).optional(),
  session: z.enum(['pre_market', 'regular', 'after_market']).optional(),
});
export type PriceUpdate = z.output<typeof PriceUpdate>;

/** One order book level. */
export const BookLevel = z.object({ price: z.number(), quantity: z.number() });
export type BookLevel = z.output<typeof BookLevel>;

/** `orderbook_update`. */
export const OrderbookUpdate = ServerMessageBase.extend({ type: z.literal('orderbook_update'), code: z.string(), bids: z.array(BookLevel), asks: z.array(BookLevel) });
export type OrderbookUpdate = z.output<typeof OrderbookUpdate>;

/** A market's session state (the kernel's MarketStatus; `satisfies` keeps the list to its members, the builders' `satisfies` to all of them). */
const MARKET_STATUSES = ['pre_open', 'open', 'closing_auction', 'closed'] as const satisfies readonly MarketStatus[];

/**
 * `market_status`. `prices` is present when the real feed's freshness changed: `stale` (prices
 * stopped arriving; screens hold entered/exited) or `fresh`.
 */
export const MarketStatusMessage = ServerMessageBase.extend({
  type: z.literal('market_status'),
  market: z.enum(MARKETS),
  status: z.enum(MARKET_STATUSES),
  prices: z.enum(['stale', 'fresh']).optional(),
  stale_reason: z.string().optional(),
});
export type MarketStatusMessage = z.output<typeof MarketStatusMessage>;

/**
 * `alert`: one of the caller's alerts fired. `threshold` is null for an alert on a screen
 * (`screen_enter`/`screen_exit`), whose `preset_id` names the preset whose live screen the stock entered or exited.
 */
export const AlertMessage = ServerMessageBase.extend({
  type: z.literal('alert'),
  code: z.string(),
  alert_type: z.string(),
  threshold: z.number().nullable(),
  current_price: z.number(),
  message: z.string(),
  preset_id: z.string().optional(),
});
export type AlertMessage = z.output<typeof AlertMessage>;

/** A WebSocket error code. */
export type WsErrorCode = keyof typeof WS_ERROR_CODES;

/** `error`. */
export const ErrorMessage = ServerMessageBase.extend({ type: z.literal('error'), code: z.enum(WS_ERROR_CODES), message: z.string(), details: z.record(z.string(), z.unknown()) });
export type ErrorMessage = z.output<typeof ErrorMessage>;

/** `pong`. */
export const PongMessage = ServerMessageBase.extend({ type: z.literal('pong') });
export type PongMessage = z.output<typeof PongMessage>;

/** Targets per subscription kind (the `restored_subscriptions` shape). */
export const SubscriptionMap = z.record(z.enum(SUBSCRIPTION_TYPES), z.array(z.string()));
export type SubscriptionMap = z.output<typeof SubscriptionMap>;

/**
 * `reconnected`: a saved session restored (daemon/ws/restore.ts explains each figure).
 * `missed_messages_estimated`: the count is an extrapolation (the gap was not read in full);
 * `restored_from` `checkpoint`: the session's daemon died, up to one checkpoint interval of messages is repeated.
 */
export const ReconnectedMessage = ServerMessageBase.extend({
  type: z.literal('reconnected'),
  session_id: z.string(),
  restored_subscriptions: SubscriptionMap,
  missed_messages_count: z.number(),
  missed_messages_estimated: z.boolean(),
  replayed_messages: z.number(),
  history_truncated: z.boolean(),
  snapshot_messages: z.number(),
  restored_from: z.enum(['saved', 'checkpoint']),
});
export type ReconnectedMessage = z.output<typeof ReconnectedMessage>;

/** `token_refreshed` (`expires_at`: ISO time the new token expires). */
export const TokenRefreshedMessage = ServerMessageBase.extend({ type: z.literal('token_refreshed'), user_id: z.string(), expires_at: z.string() });
export type TokenRefreshedMessage = z.output<typeof TokenRefreshedMessage>;

/**
 * A live screen as its `subscribed` message describes it: `source` is `preset:<id>`,
 * `template:<id>` or `query`; `overrides` a template's overrides as applied (market, sort, page,
 * per_page, fields; absent when none); `total` the stocks matching (every page); `sort`, `page` and
 * `per_page` what the members follow; `restored` true when a session restore re-opened it (a
 * screen_update with the diff since the save may follow).
 */
export const ScreenInfo = z.object({
  screen_id: z.string(),
  source: z.string(),
  overrides: z
    .object({
      market: z.enum([...MARKETS, 'ALL']).optional(),
      sort: z.array(z.object({ field: z.string(), direction: z.enum(['asc', 'desc']) })).optional(),
      page: z.number().optional(),
      per_page: z.number().optional(),
      fields: z.array(z.string()).optional(),
    })
    .optional(),
  total: z.number(),
  sort: z.array(z.object({ field: z.string(), direction: z.enum(['asc', 'desc']) })).readonly(),
  page: z.number(),
  per_page: z.number(),
  restored: z.boolean().optional(),
});
export type ScreenInfo = z.output<typeof ScreenInfo>;

/** One member of a live screen: code, name, price and the screen's fields (an item of `POST /screen`). */
export const ScreenMember = z.custom<object>((v) => typeof v === 'object' && v !== null);
export type ScreenMember = z.output<typeof ScreenMember>;

/** `subscribed` for a live screen: its id and its members in the screen's order, capped by `per_page`. */
export const ScreenSubscribed = ServerMessageBase.extend(ScreenInfo.shape).extend({
  type: z.literal('subscribed'),
  subscription_type: z.literal('screen'),
  targets: z.array(z.string()),
  members: z.array(ScreenMember).readonly(),
  count: z.number(),
});
export type ScreenSubscribed = z.output<typeof ScreenSubscribed>;

/** `screen_update`: stocks that entered and left a live screen (never coalesced); `count` the members now (at most `per_page`), `total` the stocks matching (every page). */
export const ScreenUpdate = ServerMessageBase.extend({
  type: z.literal('screen_update'),
  screen_id: z.string(),
  entered: z.array(ScreenMember).readonly(),
  exited: z.array(z.string()).readonly(),
  count: z.number(),
  total: z.number(),
});
export type ScreenUpdate = z.output<typeof ScreenUpdate>;

/** `unsubscribed` for live screens. */
export const ScreensUnsubscribed = ServerMessageBase.extend({ type: z.literal('unsubscribed'), subscription_type: z.literal('screen'), targets: z.array(z.string()) });
export type ScreensUnsubscribed = z.output<typeof ScreensUnsubscribed>;

/** Every server message a `batch` frame may hold (batches do not nest). */
export const BatchedMessage = z.union([
  ConnectedMessage, SubscriptionAck, PriceUpdate, OrderbookUpdate, MarketStatusMessage, AlertMessage,
  ErrorMessage, PongMessage, ReconnectedMessage, TokenRefreshedMessage, ScreenSubscribed, ScreenUpdate, ScreensUnsubscribed,
]);
export type BatchedMessage = z.output<typeof BatchedMessage>;

/** `batch`: messages delivered together, each with its own sequence number. */
export const BatchMessage = ServerMessageBase.extend({ type: z.literal('batch'), batch_size: z.number(), messages: z.array(BatchedMessage) });
export type BatchMessage = z.output<typeof BatchMessage>;

/** Every server message. */
export const ServerMessage = z.union([BatchedMessage, BatchMessage]);
export type ServerMessage = z.output<typeof ServerMessage>;

/** The `type` of a server message. */
export type ServerMessageType = ServerMessage['type'];

/**
 * A server message as a client reads it before looking at its type: a JSON object with a
 * string `type` (a newer server may send types this contract does not list yet).
 */
export const ReceivedMessage = z.object({ type: z.string(), sequence: z.number().optional(), timestamp: z.string().optional() }).catchall(z.unknown());
export type ReceivedMessage = z.output<typeof ReceivedMessage>;

/** The body of a server message as the daemon builds it (the connection adds `sequence`). */
export type MessageBody<M extends ServerMessageBase> = Omit<M, 'type' | 'sequence'>;

/** Send-latency percentiles in milliseconds. */
export const LatencySummary = z.object({ p50: z.number().nullable(), p95: z.number().nullable(), p99: z.number().nullable(), max: z.number().nullable(), samples: z.number().int() });
export type LatencySummary = z.output<typeof LatencySummary>;

/** Process memory figures in bytes. */
export const MemoryFigures = z.object({ rss: z.number(), heap_used: z.number(), heap_total: z.number(), external: z.number(), array_buffers: z.number() });
export type MemoryFigures = z.output<typeof MemoryFigures>;

/** GET /ws/stats: the spec's ten fields plus the figures an SRE wants. Connection figures are one instance's. */
export const WsStats = z
  .object({
    active_connections: z.number().int(),
    total_subscriptions: z.number().int(),
    subscriptions_by_type: z.object({ stock: z.number().int(), market: z.number().int(), sector: z.number().int() }),
    messages_sent: z.number().int(),
    saved_sessions: z.number().int().nullable().describe('Saved sessions in Redis (all instances); null when Redis is unreachable'),
    batching_enabled: z.boolean(),
    batch_interval_ms: z.number().int(),
    queued_messages: z.number().int(),
    rate_limiting_enabled: z.boolean(),
    rate_limit: z.number().int(),
    frames_sent: z.number().int(),
    messages_per_second: z.number().describe('Delivered messages per second over the last 10 s'),
    send_latency_ms: LatencySummary.describe('Message age when its frame is handed to the socket (last 2048 flushes)'),
    memory: MemoryFigures,
    bytes_per_connection: z.number().nullable().describe('Mean per connection of its socket send buffer plus its session state as saved (bytes); null without connections'),
    topics: z.number().int(),
    compression: z
      .object({ contexts: z.number().int(), busy: z.number().int(), queued: z.number().int() })
      .nullable()
      .describe('Shared per-message-deflate contexts; null when compression is off'),
  })
  .meta({ id: 'WsStats' });
export type WsStats = z.output<typeof WsStats>;
