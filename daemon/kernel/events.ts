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
  /** How a real feed learnt this price: a real-time trade frame, or the periodic sweep of the whole market. */
  source?: QuoteSource;
  /** The session of the trade when a real feed knows it (NXT pre/after-market outside KRX's regular session). */
  session?: 'pre_market' | 'regular' | 'after_market';
}

/** Where a live quote came from: a real-time trade (`tick`), the market sweep (`sweep`), an ingested tick, the simulator. */
export type QuoteSource = 'tick' | 'sweep' | 'ingest' | 'simulator';

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

/** A market session transition, or a change of the price feed's freshness. */
export interface MarketStatusEvent {
  type: 'market_status';
  market: Market;
  status: MarketStatus;
  ts: number;
  /** Present when the real feed's freshness changed: `stale` = prices stopped arriving, `fresh` = they arrive again. */
  prices?: 'stale' | 'fresh';
  /** Why prices are stale (present with `prices: "stale"`). */
  stale_reason?: string;
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
