/**
 * The state behind the `watch` screen, folded from the WebSocket client's events
 * (pure): one row per stock with a short price history for its sparkline, the latest
 * order book per stock, market status per market, fired alerts (newest first), the
 * connection status and sequence problems.
 */
import type { AlertMessage, BookLevel, ErrorMessage, MarketStatusMessage, OrderbookUpdate, PriceUpdate } from '../../../daemon/contract/ws.js';
import type { ConnectionStatus, WsClientEvent } from '../transport/ws-client.js';
import type { SequenceAnomaly } from '../transport/ws-frames.js';

/** One stock row. */
export interface WatchRow {
  code: string;
  name: string;
  price: number | null;
  change: number | null;
  change_percent: number | null;
  volume: number | null;
  /** Recent prices, oldest first (at most `historyLength`). */
  history: number[];
  updatedAt: string | null;
  /** Asked for by code (keeps its place); false for stocks from market/sector subscriptions. */
  requested: boolean;
}

/** A stock's latest order book. */
export interface WatchBook {
  bids: BookLevel[];
  asks: BookLevel[];
  timestamp: string | null;
}

/** A fired alert as shown. */
export interface WatchAlert {
  code: string;
  alert_type: string;
  threshold: number | null;
  current_price: number;
  message: string;
  timestamp: string | null;
}

/** Everything the screen shows. */
export interface WatchState {
  /** Rows in display order: the codes asked for first, then others by code. */
  rows: WatchRow[];
  books: Record<string, WatchBook>;
  markets: Record<string, { status: string; timestamp: string | null }>;
  alerts: WatchAlert[];
  connection: ConnectionStatus;
  /** Messages received (inner batch messages counted one by one). */
  messages: number;
  anomalies: SequenceAnomaly[];
  /** Server errors and protocol problems, newest last. */
  notices: string[];
}

/** A row's starting values (from GET /stocks/{code}/price). */
export type WatchSeed = Pick<WatchRow, 'code' | 'name' | 'price' | 'change' | 'change_percent' | 'volume'>;

/** Limits of the kept history. */
export interface WatchLimits {
  historyLength: number;
  alerts: number;
  notices: number;
}

/** Default limits. */
export const WATCH_LIMITS: WatchLimits = { historyLength: 60, alerts: 20, notices: 5 };

function emptyRow(code: string, requested: boolean): WatchRow {
  return { code, name: '', price: null, change: null, change_percent: null, volume: null, history: [], updatedAt: null, requested };
}

/** The state before any message: one empty (or seeded) row per requested code. */
export function initialWatchState(codes: readonly string[], seeds: readonly WatchSeed[] = []): WatchState {
  const byCode = new Map(seeds.map((s) => [s.code, s]));
  const rows = codes.map((code) => {
    const seed = byCode.get(code);
    return seed ? { ...emptyRow(code, true), ...seed, history: seed.price === null ? [] : [seed.price] } : emptyRow(code, true);
  });
  return { rows, books: {}, markets: {}, alerts: [], connection: { state: 'connecting', attempt: 1 }, messages: 0, anomalies: [], notices: [] };
}

function withRow(state: WatchState, m: PriceUpdate, limits: WatchLimits): WatchRow[] {
  const index = state.rows.findIndex((r) => r.code === m.code);
  const old = index >= 0 ? state.rows[index]! : emptyRow(m.code, false);
  const history = [...old.history, m.price].slice(-limits.historyLength);
  const row: WatchRow = {
    code: m.code, name: m.name || old.name, price: m.price, change: m.change, change_percent: m.change_percent, volume: m.volume,
    history, updatedAt: m.timestamp ?? null, requested: old.requested,
  };
  if (index >= 0) return state.rows.map((r, i) => (i === index ? row : r));
  // A stock that arrived through a market or sector subscription: after the requested
  // rows, in code order.
  const at = state.rows.findIndex((r) => !r.requested && r.code > m.code);
  const rows = [...state.rows];
  rows.splice(at < 0 ? rows.length : at, 0, row);
  return rows;
}

function message(state: WatchState, m: WsClientEvent & { type: 'message' }, limits: WatchLimits): WatchState {
  const msg = m.message;
  const next = { ...state, messages: state.messages + 1 };
  switch (msg.type) {
    case 'price_update':
      return { ...next, rows: withRow(state, msg as PriceUpdate, limits) };
    case 'orderbook_update': {
      const b = msg as OrderbookUpdate;
      return { ...next, books: { ...state.books, [b.code]: { bids: b.bids ?? [], asks: b.asks ?? [], timestamp: b.timestamp ?? null } } };
    }
    case 'market_status': {
      const s = msg as MarketStatusMessage;
      return { ...next, markets: { ...state.markets, [s.market]: { status: s.status, timestamp: s.timestamp ?? null } } };
    }
    case 'alert': {
      const a = msg as AlertMessage;
      const entry: WatchAlert = { code: a.code, alert_type: a.alert_type, threshold: a.threshold, current_price: a.current_price, message: a.message, timestamp: a.timestamp ?? null };
      return { ...next, alerts: [entry, ...state.alerts].slice(0, limits.alerts) };
    }
    case 'screen_update': {
      // Live screens join the alert feed: one line per entry or exit.
      const time = (msg.timestamp as string | undefined) ?? null;
      const screen = `screen ${String(msg.screen_id).slice(0, 8)} (${String(msg.count)} members)`;
      const entered = ((msg.entered as { code: string; price?: number | null }[] | undefined) ?? []).map(
        (r): WatchAlert => ({ code: r.code, alert_type: 'screen_enter', threshold: 0, current_price: r.price ?? 0, message: screen, timestamp: time }),
      );
      const exited = ((msg.exited as string[] | undefined) ?? []).map((code): WatchAlert => ({ code, alert_type: 'screen_exit', threshold: 0, current_price: 0, message: screen, timestamp: time }));
      return { ...next, alerts: [...exited, ...entered, ...state.alerts].slice(0, limits.alerts) };
    }
    case 'error': {
      const e = msg as ErrorMessage;
      return { ...next, notices: [...state.notices, `${e.code}: ${e.message}`].slice(-limits.notices) };
    }
    default:
      return next;
  }
}

/** Fold one client event into the state. */
export function reduceWatch(state: WatchState, event: WsClientEvent, limits: WatchLimits = WATCH_LIMITS): WatchState {
  switch (event.type) {
    case 'message':
      return message(state, event, limits);
    case 'status':
      return { ...state, connection: event.status };
    case 'anomaly':
      return { ...state, anomalies: [...state.anomalies, event.anomaly].slice(-limits.notices) };
    case 'protocol_error':
      return { ...state, notices: [...state.notices, event.error].slice(-limits.notices) };
  }
}

