/**
 * The portfolio over the REST API (issue 7): holdings valued at current prices, adding
 * and removing lots, and performance; and how they are shown (P&L cells carry their
 * movement so the terminal colours them: red = gain, blue = loss, Korean convention).
 */
import { API_PREFIX, type ApiResponse } from './api-client.js';
import { isFullId, matchIdPrefix } from './id-prefix.js';
import type { Session } from './session.js';

/** A holding valued at the current price (GET /portfolio). */
export interface ValuedHolding {
  id: string;
  code: string;
  name: string | null;
  market: string | null;
  sector: string | null;
  quantity: number;
  average_price: number;
  current_price: number | null;
  price_source: 'live' | 'close' | null;
  price_as_of: string | null;
  market_value: number;
  cost: number;
  unrealized_pnl: number;
  unrealized_pnl_percent: number;
  day_change: number;
  day_change_percent: number;
  weight: number;
  acquired_at: string;
  note: string | null;
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

/** A stored lot (POST /portfolio/holdings answers one, with `merged`). */
export interface Holding {
  id: string;
  code: string;
  quantity: number;
  average_price: number;
  acquired_at: string;
  note: string | null;
  created_at: string;
  updated_at: string;
  merged?: boolean;
}

/** Body of POST /portfolio/holdings. */
export interface NewHolding {
  code: string;
  quantity: number;
  average_price: number;
  acquired_at?: string;
  note?: string;
  separate_lot?: boolean;
}

/** One allocation slice. */
export interface AllocationSlice {
  key: string;
  value: number;
  weight: number;
  holdings: number;
}

/** A best/worst holding. */
export interface RankedHolding {
  id: string;
  code: string;
  name: string | null;
  unrealized_pnl: number;
  unrealized_pnl_percent: number;
}

/** GET /portfolio/performance. */
export interface Performance {
  as_of: string | null;
  history_start: string | null;
  window: { from: string | null; to: string | null; days: number };
  total_value: number;
  total_cost: number;
  unrealized_pnl: number;
  unrealized_pnl_percent: number;
  realized_pnl: number;
  total_return_percent: number;
  day_change: number;
  day_change_percent: number;
  returns: Record<'1W' | '1M' | '3M' | '6M' | 'YTD' | '1Y', number | null>;
  volatility_percent: number | null;
  max_drawdown_percent: number | null;
  sharpe_ratio: number | null;
  beta: number | null;
  benchmark: string;
  benchmark_return_percent: number | null;
  excess_return_percent: number | null;
  risk_free_rate: number;
  /** Why a null figure is null (`returns` for the period returns). */
  unavailable?: Partial<Record<string, string>>;
  allocation: { by_stock: AllocationSlice[]; by_sector: AllocationSlice[]; by_market: AllocationSlice[]; by_market_cap: AllocationSlice[] };
  best: RankedHolding[];
  worst: RankedHolding[];
  series?: { date: string; value: number; return_index: number }[];
}

/** GET /portfolio. */
export function getPortfolio(session: Session): Promise<ApiResponse<PortfolioOverview>> {
  return session.api.request<PortfolioOverview>({ path: `${API_PREFIX}/portfolio` });
}

/**
 * POST /portfolio/holdings (merged into the same stock's lot unless `separate_lot`).
 * @throws CliError INVALID_REQUEST with the bad fields in details (or an unknown stock)
 */
export function addHolding(session: Session, body: NewHolding): Promise<ApiResponse<Holding>> {
  return session.api.request<Holding>({ method: 'POST', path: `${API_PREFIX}/portfolio/holdings`, body });
}

/**
 * DELETE /portfolio/holdings/{id}.
 * @throws CliError NOT_FOUND (also for another user's holding)
 */
export async function removeHolding(session: Session, id: string): Promise<void> {
  await session.api.request({ method: 'DELETE', path: `${API_PREFIX}/portfolio/holdings/${encodeURIComponent(id)}` });
}

/**
 * The id of the caller's holding named by its id or a unique prefix.
 * @throws CliError NOT_FOUND, or USAGE for a short or ambiguous prefix
 */
export async function resolveHoldingId(session: Session, ref: string): Promise<string> {
  if (isFullId(ref)) return ref;
  return matchIdPrefix(ref, (await getPortfolio(session)).data.holdings.map((h) => h.id), 'holding');
}

/** GET /portfolio/performance (`series` adds the daily value series). */
export function getPerformance(session: Session, series: boolean): Promise<ApiResponse<Performance>> {
  return session.api.request<Performance>({ path: `${API_PREFIX}/portfolio/performance`, query: { series: series ? 'true' : undefined } });
}
