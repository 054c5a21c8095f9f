/**
 * The WebSocket wire protocol: parsing of client messages (their schemas are the wire
 * contract's, daemon/contract/ws.ts) and builders of every server message.
 *
 * Server messages are built once and shared by every recipient, as JSON text without
 * the closing brace (`OutMessage.head`); the connection appends `,"sequence":N}` when
 * it flushes, so the sequence is assigned in delivery order and a message dropped by
 * coalescing never leaves a gap.
 *
 * Sequence rule ("every server message a sequence"): the counter belongs to the session
 * and advances by one per server message. A `batch` frame is itself a message and takes
 * the next number BEFORE its inner messages (document order): a batch of 3 after
 * sequence 10 is `{"type":"batch","sequence":11,…,"messages":[12,13,14]}`. A client that
 * checks for gaps walks frames and their inner messages in reading order.
 */
import {
  StreamClientMessage, type AlertMessage, type ClientMessage, type ConnectedMessage, type ErrorMessage, type MarketStatusMessage, type MessageBody, type OrderbookUpdate,
  type PongMessage, type PriceUpdate, type ReconnectedMessage, type ScreenInfo, type ScreenSubscribed, type ScreensUnsubscribed, type ScreenUpdate,
  type ServerMessageType, type SubscriptionAck, type SubscriptionMap, type SubscriptionType, type TokenRefreshedMessage, type WsErrorCode,
} from '../contract/ws.js';
import type { AlertEvent, MarketStatusEvent, OrderBookEvent, PriceEvent } from '../kernel/events.js';
export type { ScreenInfo } from '../contract/ws.js';
import { isScreenMessage, parseScreenMessage } from './screen-protocol.js';

/** The kinds of subscription and their maps, the client messages, the server message types and the error codes are wire types (daemon/contract/ws.ts). */
export { SUBSCRIPTION_TYPES, type ClientMessage, type ServerMessageType, type SubscriptionMap, type SubscriptionType, type WsErrorCode } from '../contract/ws.js';

/** Close codes the gateway uses. */
export const CLOSE_CODES = {
  /** Server shutting down: every socket is closed with it when the daemon stops, so clients reconnect elsewhere. */
  GOING_AWAY: 1001,
  /** Repeated rate-limit abuse. */
  POLICY_VIOLATION: 1008,
  /** Frame over the 64 KB limit (sent by `ws` itself). */
  MESSAGE_TOO_BIG: 1009,
  /** The client stayed behind: its send buffer did not drain (reason "slow consumer"). */
  SLOW_CONSUMER: 4008,
  /** Over the per-address (anonymous) or per-user cap of open connections, across daemons (reason says which). */
  TOO_MANY_CONNECTIONS: 4029,
} as const;

const CLIENT_TYPES = new Set(['subscribe', 'unsubscribe', 'ping', 'refresh_token', 'reconnect']);

/** Result of parsing one client frame. */
export type ParseResult =
  | { ok: true; message: ClientMessage }
  | { ok: false; message: string; details: Record<string, unknown> };

/** Parse and validate one client frame; never throws (failures map to INVALID_MESSAGE). */
export function parseClientMessage(text: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, message: 'Malformed JSON', details: {} };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, message: 'A message must be a JSON object', details: {} };
  }
  const type = (raw as { type?: unknown }).type;
  if (typeof type !== 'string') return { ok: false, message: 'Missing message type', details: { field: 'type' } };
  if (!CLIENT_TYPES.has(type)) {
    return { ok: false, message: `Unknown message type: ${type.slice(0, 40)}`, details: { type: type.slice(0, 40), allowed: [...CLIENT_TYPES] } };
  }
  if (isScreenMessage(raw)) {
    const screen = parseScreenMessage(raw);
    return screen.ok ? screen : { ok: false, message: `Invalid ${type} message`, details: { type, issues: screen.issues } };
  }
  const parsed = StreamClientMessage.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 10).map((i) => ({ field: i.path.join('.'), message: i.message }));
    return { ok: false, message: `Invalid ${type} message`, details: { type, issues } };
  }
  return { ok: true, message: parsed.data };
}

/** A server message awaiting its sequence number. */
export interface OutMessage {
  readonly type: ServerMessageType;
  /** JSON of the message without its closing brace (and without `sequence`). */
  readonly head: string;
  /** Same key → a later message supersedes an earlier one when a slow consumer is coalesced. */
  readonly key?: string;
  /** Stream id of the bus event it was built from (replay bookkeeping). */
  readonly streamId?: string;
  /** performance.now() when built, for send-latency figures. */
  readonly builtAt: number;
  /** An alert's firing record id and time (the session's alert cursor advances when it is sent). */
  readonly alert?: AlertRef;
  /**
   * UTF-8 bytes of `head` followed by `,"sequence":`, made once by the first connection that
   * sends the message and shared by every other (frame-encoder.ts): serialize once.
   */
  encoded?: Buffer;
}

/** Identity of a delivered alert firing. */
export interface AlertRef {
  /** The durable firing record's id. */
  id: string;
  /** When it fired (ms since the epoch). */
  ts: number;
}

/** The `reconnected` fields besides session id and subscriptions (restore.ts explains each). */
export interface ReconnectedInfo {
  missed_messages_count: number;
  /** True when missed_messages_count is an extrapolation (the gap was not read in full). */
  missed_messages_estimated: boolean;
  replayed_messages: number;
  history_truncated: boolean;
  snapshot_messages: number;
  /** `saved`: the session was saved on disconnect; `checkpoint`: its instance died, the last checkpoint was used. */
  restored_from: 'saved' | 'checkpoint';
}

function out(type: ServerMessageType, body: Record<string, unknown>, extra: { key?: string; streamId?: string; alert?: AlertRef } = {}): OutMessage {
  const json = JSON.stringify({ type, ...body });
  return { type, head: json.slice(0, -1), builtAt: performance.now(), ...extra };
}

const iso = (ms: number) => new Date(ms).toISOString();

// One flush stamps thousands of batch frames within the same millisecond: format it once.
let lastFrameMs = NaN;
let lastFrameIso = '';
const frameIso = (ms: number) => (ms === lastFrameMs ? lastFrameIso : ((lastFrameMs = ms), (lastFrameIso = iso(ms))));

/** Final JSON text of `message` with its sequence number. */
export function finalize(message: OutMessage, sequence: number): string {
  return `${message.head},"sequence":${sequence}}`;
}

/** A `batch` frame around already-finalized inner messages (which carry their own sequences). */
export function batchFrame(sequence: number, inner: readonly string[], nowMs: number): string {
  return `${batchPrefix(sequence, inner.length, nowMs)}${inner.join(',')}]}`;
}

/** The text of a `batch` frame before its first inner message (ASCII only). */
export function batchPrefix(sequence: number, size: number, nowMs: number): string {
  return `{"type":"batch","sequence":${sequence},"batch_size":${size},"timestamp":"${frameIso(nowMs)}","messages":[`;
}

/** Fields of the `connected` message besides the session id (the wire contract's). */
export type ConnectedInfo = Omit<MessageBody<ConnectedMessage>, 'session_id' | 'timestamp'>;

/** Server messages; timestamps are ISO 8601 UTC. */
export const serverMessages = {
  connected: (sessionId: string, info: ConnectedInfo, nowMs: number) =>
    out('connected', { session_id: sessionId, ...info, timestamp: iso(nowMs) } satisfies MessageBody<ConnectedMessage>),
  subscribed: (type: SubscriptionType, targets: string[], nowMs: number) =>
    out('subscribed', { subscription_type: type, targets, timestamp: iso(nowMs) } satisfies MessageBody<SubscriptionAck>),
  unsubscribed: (type: SubscriptionType, targets: string[], nowMs: number) =>
    out('unsubscribed', { subscription_type: type, targets, timestamp: iso(nowMs) } satisfies MessageBody<SubscriptionAck>),
  priceUpdate: (e: PriceEvent, streamId?: string) =>
    out(
      'price_update',
      {
        code: e.code, name: e.name, price: e.price, change: e.change, change_percent: e.change_percent, volume: e.volume,
        // A real feed says how it learnt the price and, outside KRX's regular session, which session traded.
        ...(e.source ? { source: e.source } : {}), ...(e.session ? { session: e.session } : {}),
        timestamp: iso(e.ts),
      } satisfies MessageBody<PriceUpdate>,
      { key: `p:${e.code}`, streamId },
    ),
  orderbookUpdate: (e: OrderBookEvent, streamId?: string) =>
    out('orderbook_update', { code: e.code, bids: e.bids, asks: e.asks, timestamp: iso(e.ts) } satisfies MessageBody<OrderbookUpdate>, { key: `o:${e.code}`, streamId }),
  marketStatus: (e: MarketStatusEvent, streamId?: string) =>
    out(
      'market_status',
      {
        market: e.market, status: e.status,
        ...(e.prices ? { prices: e.prices } : {}), ...(e.stale_reason ? { stale_reason: e.stale_reason } : {}),
        timestamp: iso(e.ts),
      } satisfies MessageBody<MarketStatusMessage>,
      // A freshness change must not be coalesced away by a session transition in the same batch, nor the reverse.
      { key: `${e.prices ? 'f' : 'm'}:${e.market}`, streamId },
    ),
  alert: (e: AlertEvent, streamId?: string) =>
    out(
      'alert',
      { code: e.code, alert_type: e.alert_type, threshold: e.threshold, current_price: e.current_price, message: e.message, ...(e.preset_id ? { preset_id: e.preset_id } : {}), timestamp: iso(e.ts) } satisfies MessageBody<AlertMessage>,
      { streamId, alert: { id: e.event_id ?? `${e.alert_id}@${e.ts}`, ts: e.ts } },
    ),
  error: (code: WsErrorCode, message: string, details: Record<string, unknown>, nowMs: number) =>
    out('error', { code, message, details, timestamp: iso(nowMs) } satisfies MessageBody<ErrorMessage>),
  pong: (nowMs: number) => out('pong', { timestamp: iso(nowMs) } satisfies MessageBody<PongMessage>),
  reconnected: (
    sessionId: string,
    restored: SubscriptionMap,
    info: ReconnectedInfo,
    nowMs: number,
  ) => out('reconnected', { session_id: sessionId, restored_subscriptions: restored, ...info, timestamp: iso(nowMs) } satisfies MessageBody<ReconnectedMessage>),
  /** A live screen subscribed: its id and current members (never coalesced). */
  screenSubscribed: (screen: ScreenInfo, members: readonly object[], nowMs: number) =>
    out('subscribed', { subscription_type: 'screen', targets: [screen.source], ...screen, members, count: members.length, timestamp: iso(nowMs) } satisfies MessageBody<ScreenSubscribed>),
  /** A live screen's membership changed (never coalesced: each diff counts). */
  screenUpdate: (screenId: string, change: { entered: readonly object[]; exited: readonly string[]; count: number; total: number }, nowMs: number) =>
    out('screen_update', { screen_id: screenId, entered: change.entered, exited: change.exited, count: change.count, total: change.total, timestamp: iso(nowMs) } satisfies MessageBody<ScreenUpdate>),
  screensUnsubscribed: (screenIds: string[], nowMs: number) =>
    out('unsubscribed', { subscription_type: 'screen', targets: screenIds, timestamp: iso(nowMs) } satisfies MessageBody<ScreensUnsubscribed>),
  tokenRefreshed: (userId: string, expiresAtS: number, nowMs: number) =>
    out('token_refreshed', { user_id: userId, expires_at: iso(expiresAtS * 1000), timestamp: iso(nowMs) } satisfies MessageBody<TokenRefreshedMessage>),
};
