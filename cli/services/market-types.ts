/**
 * Wire shapes of the market-data, stock, screening and preset endpoints as the CLI reads
 * them. Job shapes come from daemon/jobs/types.ts, which is shared by API, workers and CLI
 * (type-only import: nothing of the daemon is loaded at run time).
 */

export type { FileOutcome, JobProgress, JobRequest, JobResult } from '../../daemon/jobs/types.js';

/** A job as GET /admin/jobs/{id} shows it. */
export type { JobView } from '../../daemon/jobs/market-jobs.js';

/** One row of GET /stocks. */
export interface StockListItem {
  code: string;
  name: string;
  name_english: string | null;
  market: string;
  sector: string | null;
  close: number | null;
  change_percent: number | null;
  market_cap: number | null;
  volume: number | null;
}

/** GET /stocks/{code}: the stock record plus its latest indicators. */
export interface StockDetail {
  code: string;
  name: string;
  name_english: string | null;
  market: string;
  sector: string | null;
  industry: string | null;
  listing_date: string | null;
  shares_outstanding: number | null;
  board: string | null;
  settle_month: number | null;
  is_administrative: boolean;
  is_spac: boolean;
  is_preferred: boolean;
  indicators_as_of: string | null;
  indicators: Record<string, number | null>;
}

/** GET /stocks/{code}/price. */
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
  as_of: string;
  source: 'live' | 'close';
  halted: boolean;
}

/** One row of GET /stocks/{code}/history (oldest first). */
export type { DailyBar as PriceBar } from '../../daemon/kernel/records.js';

/** One quarter of GET /stocks/{code}/financials (newest first), with derived ratios. */
export interface FinancialRow {
  stock_code: string;
  fiscal_year: number;
  fiscal_quarter: number;
  revenue: number | null;
  operating_profit: number | null;
  net_profit: number | null;
  total_assets: number | null;
  equity: number | null;
  total_liabilities: number | null;
  operating_margin: number | null;
  net_margin: number | null;
  debt_ratio: number | null;
  equity_ratio: number | null;
  current_ratio: number | null;
  [field: string]: number | string | null;
}

/** One entry of GET /screen/fields. */
export interface ScreenField {
  id: string;
  label_ko: string;
  label_en: string;
  unit: string;
  category: string;
  inputs: string[];
  min_history: number;
  definition: string;
  coverage: number;
}

/** One entry of GET /screen/templates. */
export interface ScreenTemplate {
  id: string;
  name_ko: string;
  name_en: string;
  description: string;
  query: Record<string, unknown>;
  required_fields: string[];
  missing_inputs: string[];
}

/** One item of a screen: identity columns plus the requested values. */
export interface ScreenItem {
  code: string;
  name: string;
  market: string;
  sector: string | null;
  [field: string]: string | number | null;
}

/** The body of a screen answer (envelope plus the spec's top-level fields). */
export interface ScreenBody {
  status: 'success';
  data: ScreenItem[];
  stocks?: ScreenItem[];
  query_time_ms?: number;
  missing_inputs?: string[];
  message?: string;
  meta: { total: number; page: number; per_page: number; total_pages: number; cached?: boolean; request_id?: string };
}

/** A saved preset. */
export type { Preset } from '../../daemon/store/presets-repo.js';
