/**
 * Stock and market-data endpoints on the wire: GET /stocks, /stocks/{code}, …/price, …/history,
 * …/financials. Each answer and query is one zod schema: the routes validate and document with
 * it, and its type (`z.output`) is what the daemon produces and the CLI reads.
 */
import { z } from 'zod';
import { MARKETS, type DailyBar, type FinancialQuarter, type StockRecord } from '../kernel/records.js';
import { MAX_PAGE_LIMIT } from './envelope.js';
import { calendarDate } from './fields.js';

export { MARKETS, STOCK_CODE_PATTERN, type Market } from '../kernel/records.js';

/** Columns GET /stocks can sort on. */
export const STOCK_SORT_FIELDS = ['code', 'name', 'market_cap', 'volume', 'change_percent', 'trading_value', 'close'] as const;
/** Bar intervals of GET /stocks/{code}/history. */
export const HISTORY_INTERVALS = ['day', 'week', 'month'] as const;
/** A bar interval. */
export type HistoryInterval = (typeof HISTORY_INTERVALS)[number];

/** Query of GET /stocks. */
export const StockListQuery = z.object({
  market: z.enum(['KOSPI', 'KOSDAQ', 'ALL']).default('ALL'),
  sector: z.string().min(1).max(100).optional(),
  q: z.string().trim().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(50),
  page: z.coerce.number().int().min(1).default(1),
  sort: z.enum(STOCK_SORT_FIELDS).default('market_cap'),
  order: z.enum(['asc', 'desc']).optional(),
});
export type StockListQuery = z.output<typeof StockListQuery>;

const date = calendarDate();

/** Query of GET /stocks/{code}/history. */
export const PriceHistoryQuery = z
  .object({
    from: date.optional(),
    to: date.optional(),
    interval: z.enum(HISTORY_INTERVALS).default('day'),
    limit: z.coerce.number().int().min(1).max(5000).optional(),
  })
  .refine((v) => !v.from || !v.to || v.from <= v.to, { message: 'from must not be after to', path: ['from'] });
export type PriceHistoryQuery = z.output<typeof PriceHistoryQuery>;

/** Query of GET /stocks/{code}/financials: the newest `limit` quarters. */
export const FinancialsQuery = z.object({ limit: z.coerce.number().int().min(1).max(40).default(4) });
export type FinancialsQuery = z.output<typeof FinancialsQuery>;

const market = z.enum(MARKETS);

/** One row of GET /stocks. */
export const StockListItem = z.object({
  code: z.string(), name: z.string(), name_english: z.string().nullable(), market, sector: z.string().nullable(),
  close: z.number().nullable(), change_percent: z.number().nullable(), market_cap: z.number().nullable(), volume: z.number().nullable(),
});
export type StockListItem = z.output<typeof StockListItem>;

/** A listed stock as the daemon keeps it (the kernel's StockRecord). */
const stockRecord = z.object({
  code: z.string(), name: z.string(), name_english: z.string().nullable(), market, sector: z.string().nullable(), industry: z.string().nullable(),
  listing_date: z.string().nullable().describe('YYYY-MM-DD'), shares_outstanding: z.number().nullable(),
  board: z.string().nullable().describe('KRX board or designation text (소속부), e.g. 우량기업부, KOSDAQ GLOBAL'),
  settle_month: z.number().int().nullable().describe('Settlement month 1-12 when known'),
  is_administrative: z.boolean(), is_spac: z.boolean(), is_preferred: z.boolean(),
});

/** GET /stocks/{code}: the stock record plus its latest indicators. */
export const StockDetail = stockRecord
  .extend({
    indicators_as_of: z.string().nullable().describe('Trade date of the indicator values (null before the first computation)'),
    indicators: z.record(z.string(), z.number().nullable()).describe('Latest value of each indicator (GET /screen/fields), null where undefined'),
  })
  .meta({ id: 'StockDetail' });
export type StockDetail = z.output<typeof StockDetail>;

/** GET /stocks/{code}/price: the live quote while the feed runs, else the last close. */
export const StockPrice = z
  .object({
    code: z.string(), name: z.string(), price: z.number(), change: z.number().nullable(), change_percent: z.number().nullable(),
    open: z.number().nullable(), high: z.number().nullable(), low: z.number().nullable(), volume: z.number(), trading_value: z.number(),
    as_of: z.string().describe('ISO time of a live quote, or the close\'s trade date'),
    source: z.enum(['live', 'close']), halted: z.boolean(),
    age_ms: z.number().optional().describe('Live quotes: milliseconds since the quote\'s trade or sweep'),
    quote_source: z.string().optional().describe('Live quotes of a real feed: `tick` (a real-time trade) or `sweep` (the whole-market poll)'),
    session: z.string().optional().describe('Live quotes of a real feed: the session of the trade (`pre_market`, `regular`, `after_market`)'),
  })
  .meta({ id: 'StockPrice' });
export type StockPrice = z.output<typeof StockPrice>;

/** One row of GET /stocks/{code}/history (oldest first; a week or month bar has the same fields). */
export const PriceBar = z
  .object({
    stock_code: z.string(), trade_date: z.string().describe('YYYY-MM-DD, a KRX trading day (a week or month bar: its last)'),
    open_price: z.number(), high_price: z.number(), low_price: z.number(), close_price: z.number(), volume: z.number(), trading_value: z.number(),
    market_cap: z.number().nullable().describe('Market cap reported by the source for that day, when it gives one'),
    shares_outstanding: z.number().nullable().describe('Listed shares reported by the source for that day, when it gives one'),
  })
  .meta({ id: 'PriceBar' });
export type PriceBar = z.output<typeof PriceBar>;

const amount = z.number().nullable();

/** One quarter of GET /stocks/{code}/financials (newest first), with derived ratios (percent; null when undefined). */
export const FinancialRow = z
  .object({
    stock_code: z.string(), fiscal_year: z.number().int(), fiscal_quarter: z.number().int().describe('1-4'),
    revenue: amount, operating_profit: amount, net_profit: amount, total_assets: amount, equity: amount, gross_profit: amount, operating_cash_flow: amount,
    total_liabilities: amount, current_assets: amount, current_liabilities: amount, long_term_debt: amount, cash: amount, retained_earnings: amount,
    shares_outstanding: amount, dividends_per_share: amount.describe('Dividends per share declared in the quarter (KRW)'),
    disclosed_on: z.string().nullable().optional().describe('YYYY-MM-DD the statement became public, when the source gives it'),
    operating_margin: amount, net_margin: amount, debt_ratio: amount, equity_ratio: amount, current_ratio: amount,
  })
  .meta({ id: 'FinancialRow' });
export type FinancialRow = z.output<typeof FinancialRow>;

type Assert<T extends true> = T;
/** Compile-time checks: the kernel's records are what these answers carry (a field added there must be written here). */
export type StockRecordIsWire = Assert<[StockRecord, z.output<typeof stockRecord>] extends [z.output<typeof stockRecord>, StockRecord] ? true : false>;
export type DailyBarIsWire = Assert<[DailyBar, PriceBar] extends [PriceBar, DailyBar] ? true : false>;
type Statement = Omit<FinancialRow, 'operating_margin' | 'net_margin' | 'debt_ratio' | 'equity_ratio' | 'current_ratio'>;
export type FinancialQuarterIsWire = Assert<[FinancialQuarter, Statement] extends [Statement, FinancialQuarter] ? true : false>;
