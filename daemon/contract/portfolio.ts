/** The portfolio on the wire: GET /portfolio, /portfolio/performance, holdings and transactions. */
import type { Market } from '../kernel/records.js';

/** A stored lot (GET/PUT /portfolio/holdings/{id}). */
export interface Holding {
  id: string;
  code: string;
  quantity: number;
  average_price: number;
  /** YYYY-MM-DD */
  acquired_at: string;
  note: string | null;
  created_at: string;
  updated_at: string;
}

/** POST /portfolio/holdings: the lot written, and whether it was merged into an existing one. */
export interface AddedHolding extends Holding {
  merged: boolean;
}

/** Body of POST /portfolio/holdings. */
export interface NewHolding {
  code: string;
  quantity: number;
  average_price: number;
  acquired_at?: string;
  note?: string | null;
  /** Keep the lot apart instead of merging it into the oldest lot of the same stock. */
  separate_lot?: boolean;
}

/** A holding valued at the current price (GET /portfolio). Percentages are 0–100. */
export interface ValuedHolding extends Omit<Holding, 'created_at' | 'updated_at'> {
  name: string | null;
  market: Market | null;
  sector: string | null;
  /** null when no price is known (then the holding is valued at cost). */
  current_price: number | null;
  price_source: 'live' | 'close' | null;
  price_as_of: string | null;
  market_value: number;
  cost: number;
  unrealized_pnl: number;
  unrealized_pnl_percent: number;
  day_change: number;
  day_change_percent: number;
  /** Share of the portfolio's market value, percent. */
  weight: number;
  /** shares_outstanding × current price, when both are known. */
  market_cap: number | null;
}

/** Portfolio totals. */
export interface PortfolioTotals {
  holdings: number;
  market_value: number;
  cost: number;
  unrealized_pnl: number;
  unrealized_pnl_percent: number;
  day_change: number;
  day_change_percent: number;
}

/** GET /portfolio. */
export interface PortfolioOverview {
  holdings: ValuedHolding[];
  totals: PortfolioTotals;
}

/** One slice of an allocation. */
export interface AllocationSlice {
  key: string;
  value: number;
  /** Percent of the portfolio's market value. */
  weight: number;
  holdings: number;
}

/** A best or worst holding. */
export interface RankedHolding {
  id: string;
  code: string;
  name: string | null;
  unrealized_pnl: number;
  unrealized_pnl_percent: number;
}

/** The return periods of the performance report. */
export type PerformancePeriod = '1W' | '1M' | '3M' | '6M' | 'YTD' | '1Y';

/** The figures of the performance report that can be unavailable (null, with a reason). */
export type UnavailableFigure =
  | 'returns' | 'volatility_percent' | 'max_drawdown_percent' | 'sharpe_ratio' | 'beta' | 'benchmark_return_percent' | 'excess_return_percent';

/** GET /portfolio/performance. */
export interface Performance {
  /** Last trading day of the history (null without one). */
  as_of: string | null;
  history_start: string | null;
  /** First and last day of the statistics window, and its number of daily returns. */
  window: { from: string | null; to: string | null; days: number };
  total_value: number;
  total_cost: number;
  unrealized_pnl: number;
  unrealized_pnl_percent: number;
  realized_pnl: number;
  /** (unrealised + realised P&L) / cost of the current holdings, percent (0 without holdings). */
  total_return_percent: number;
  day_change: number;
  day_change_percent: number;
  /** Time-weighted return over each period, percent. */
  returns: Record<PerformancePeriod, number | null>;
  volatility_percent: number | null;
  /** Largest peak-to-trough fall, as a positive percent. */
  max_drawdown_percent: number | null;
  sharpe_ratio: number | null;
  beta: number | null;
  benchmark: 'KOSPI';
  benchmark_return_percent: number | null;
  excess_return_percent: number | null;
  risk_free_rate: number;
  /** Why each null figure is null (`returns` for the period returns). */
  unavailable: Partial<Record<UnavailableFigure, string>>;
  allocation: Record<'by_stock' | 'by_sector' | 'by_market' | 'by_market_cap', AllocationSlice[]>;
  best: RankedHolding[];
  worst: RankedHolding[];
  /** Daily value and time-weighted return index (100 on the first day), when asked. */
  series?: { date: string; value: number; return_index: number }[];
}

/** Body of POST /portfolio/transactions: a buy or a sell. */
export interface NewTransaction {
  code: string;
  side: 'buy' | 'sell';
  quantity: number;
  price: number;
  fee?: number;
  /** YYYY-MM-DD or an ISO date-time. */
  traded_at: string;
}

/** A recorded trade (GET /portfolio/transactions). */
export interface PortfolioTransaction {
  id: string;
  code: string;
  side: 'buy' | 'sell';
  quantity: number;
  price: number;
  fee: number;
  traded_at: string;
  /** Average cost after a buy; the average cost sold against for a sale. */
  average_cost: number;
  /** Sales only: (price − average cost) × quantity − fee. */
  realized_pnl: number | null;
  created_at: string;
}

/** POST /portfolio/transactions: the trade recorded and the holding after it (null once sold out). */
export interface RecordedTransaction {
  transaction: PortfolioTransaction;
  holding: Holding | null;
}
