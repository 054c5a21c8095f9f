/** Stock and market-data endpoints on the wire: GET /stocks, /stocks/{code}, …/price, …/history, …/financials. */
import type { DailyBar, FinancialQuarter, Market, StockRecord } from '../kernel/records.js';

export { MARKETS, STOCK_CODE_PATTERN, type Market } from '../kernel/records.js';

/** One row of GET /stocks. */
export interface StockListItem {
  code: string;
  name: string;
  name_english: string | null;
  market: Market;
  sector: string | null;
  close: number | null;
  change_percent: number | null;
  market_cap: number | null;
  volume: number | null;
}

/** GET /stocks/{code}: the stock record plus its latest indicators. */
export interface StockDetail extends StockRecord {
  /** Trade date of the indicator values (null before the first computation). */
  indicators_as_of: string | null;
  indicators: Record<string, number | null>;
}

/** GET /stocks/{code}/price: the live quote while the feed runs, else the last close. */
export interface StockPrice {
  code: string;
  name: string;
  price: number;
  change: number | null;
  change_percent: number | null;
  open: number | null;
  high: number | null;
  low: number | null;
  volume: number;
  trading_value: number;
  /** ISO time of a live quote, or the close's trade date. */
  as_of: string;
  source: 'live' | 'close';
  halted: boolean;
  /** Live quotes: milliseconds since the quote's trade or sweep. */
  age_ms?: number;
  /** Live quotes of a real feed: `tick` (a real-time trade) or `sweep` (the whole-market poll). */
  quote_source?: string;
  /** Live quotes of a real feed: the session of the trade (`pre_market`, `regular`, `after_market`). */
  session?: string;
}

/** One row of GET /stocks/{code}/history (oldest first; a week or month bar has the same fields). */
export type PriceBar = DailyBar;

/** One quarter of GET /stocks/{code}/financials (newest first), with derived ratios (percent; null when undefined). */
export interface FinancialRow extends FinancialQuarter {
  operating_margin: number | null;
  net_margin: number | null;
  debt_ratio: number | null;
  equity_ratio: number | null;
  current_ratio: number | null;
}
