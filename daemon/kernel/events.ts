/**
 * Real-time market events: the contract between the market feed (producer) and the
 * WebSocket gateway (consumer). They travel on the market bus (./bus.ts); the gateway
 * maps them onto the spec's server messages ("Events" → "Server to client").
 */
import type { Market } from './records.js';

/** Market session state, per market (pre-open, regular, closing auction, closed). */
export type MarketStatus = 'pre_open' | 'open' | 'closing_auction' | 'closed';

/** A trade/quote update of one stock. */
export interface PriceEvent {
  type: 'price';
  code: string;
  name: string;
  market: Market;
  sector: string | null;
  price: number;
  change: number;
  change_percent: number;
  volume: number;
  trading_value: number;
  open: number;
  high: number;
  low: number;
  prev_close: number;
  /** Milliseconds since the epoch, stamped at the feed. */
  ts: number;
}

/** One price level of an order book. */
export interface OrderBookLevel {
  price: number;
  quantity: number;
}

/** An order book snapshot of one stock (best level first on each side). */
export interface OrderBookEvent {
  type: 'orderbook';
  code: string;
  market: Market;
  sector: string | null;
  bids: OrderBookLevel[];
  asks: OrderBookLevel[];
  ts: number;
}

/** A market session transition. */
export interface MarketStatusEvent {
  type: 'market_status';
  market: Market;
  status: MarketStatus;
  ts: number;
}

/** A price alert that fired for one user (delivered only to that user's connections). */
export interface AlertEvent {
  type: 'alert';
  user_id: string;
  alert_id: string;
  /** Id of the durable firing record (alert_events.id): dedupes a replay from the stream against one from the database. */
  event_id?: string;
  code: string;
  alert_type: string;
  /** The price alert's threshold; null for an alert on a screen. */
  threshold: number | null;
  current_price: number;
  message: string;
  ts: number;
  /** The preset of a `screen_enter`/`screen_exit` alert. */
  preset_id?: string;
}

/** Every event the bus carries. */
export type MarketEvent = PriceEvent | OrderBookEvent | MarketStatusEvent | AlertEvent;
