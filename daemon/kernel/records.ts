/**
 * Market-data records shared by loaders, storage, indicators and screening.
 * Plain data only: no I/O, no classes. Field names follow the spec's resources
 * ("Stock", "Daily price record", "Quarterly financial statement").
 */

/** The two markets the service covers. */
export const MARKETS = ['KOSPI', 'KOSDAQ'] as const;
/** A market the service covers. */
export type Market = (typeof MARKETS)[number];

/** KRX issue codes: 6 characters, digits or upper-case letters (e.g. 005930, 0126Z0). */
export const STOCK_CODE_PATTERN = /^[0-9A-Z]{6}$/;

/** A listed issue, plus KRX board/designation flags from real listings. */
export interface StockRecord {
  code: string;
  name: string;
  name_english: string | null;
  market: Market;
  sector: string | null;
  industry: string | null;
  /** YYYY-MM-DD */
  listing_date: string | null;
  shares_outstanding: number | null;
  /** KRX board or designation text (소속부), e.g. 우량기업부, KOSDAQ GLOBAL. */
  board: string | null;
  /** Settlement month 1-12 when known. */
  settle_month: number | null;
  is_administrative: boolean;
  is_spac: boolean;
  is_preferred: boolean;
}

/** One trading day of one issue. Prices are > 0. */
export interface DailyBar {
  stock_code: string;
  /** YYYY-MM-DD, a KRX trading day. */
  trade_date: string;
  open_price: number;
  high_price: number;
  low_price: number;
  close_price: number;
  volume: number;
  trading_value: number;
  /** Market cap reported by the source for that day, when it gives one. */
  market_cap: number | null;
  /** Listed shares reported by the source for that day, when it gives one. */
  shares_outstanding: number | null;
}

/**
 * A day on which an issue did not trade (KRX: open/high/low 0, volume 0).
 * It has no OHLC bar; the last close, shares and market cap are kept.
 */
export interface HaltRecord {
  stock_code: string;
  trade_date: string;
  last_close: number;
  market_cap: number | null;
  shares_outstanding: number | null;
}

/**
 * What a dated source said of an issue's designation on one trading day (as-of
 * screens use the designation in force on their date). Only days a source stated it are
 * recorded; KOSPI rows of the KRX daily files leave it blank (unknown), so they record none.
 */
export interface DesignationRecord {
  stock_code: string;
  /** YYYY-MM-DD, the trading day of the file that stated it. */
  trade_date: string;
  is_administrative: boolean;
  /** The board or designation text (소속부) that day, e.g. 관리종목(소속부없음). */
  board: string | null;
}

/** Optional fields of a real filing that the better indicators need. */
export const OPTIONAL_FINANCIAL_FIELDS = [
  'gross_profit',
  'operating_cash_flow',
  'total_liabilities',
  'current_assets',
  'current_liabilities',
  'long_term_debt',
  'cash',
  'retained_earnings',
  'shares_outstanding',
  'dividends_per_share',
] as const;

/** One fiscal quarter of one issue. Flow items are for the quarter alone, not year-to-date. */
export interface FinancialQuarter {
  stock_code: string;
  fiscal_year: number;
  /** 1-4 */
  fiscal_quarter: number;
  revenue: number | null;
  operating_profit: number | null;
  net_profit: number | null;
  total_assets: number | null;
  equity: number | null;
  gross_profit: number | null;
  operating_cash_flow: number | null;
  total_liabilities: number | null;
  current_assets: number | null;
  current_liabilities: number | null;
  long_term_debt: number | null;
  cash: number | null;
  retained_earnings: number | null;
  shares_outstanding: number | null;
  /** Dividends per share declared in the quarter (KRW). */
  dividends_per_share: number | null;
  /** YYYY-MM-DD the statement became public, when the source gives it. */
  disclosed_on?: string | null;
}

/** One day of a market composite index (KOSPI or KOSDAQ). */
export interface IndexBar {
  market: Market;
  trade_date: string;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number;
  volume: number | null;
  trading_value: number | null;
}
