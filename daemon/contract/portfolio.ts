/**
 * The portfolio on the wire: GET /portfolio, /portfolio/performance, holdings and transactions.
 * Each shape is one zod schema: the routes validate requests with it, the OpenAPI document is
 * generated from it, and its type (`z.output`) is what the daemon produces and the CLI reads.
 */
import { z } from 'zod';
import { PageQuery } from './envelope.js';
import { calendarDate, dateOrDateTime, stockCode } from './fields.js';

const code = stockCode();
const notFutureDate = calendarDate({ notFuture: true });
const quantity = z.number({ error: 'must be a number' }).int('must be a whole number of shares').positive('must be positive').max(1e12);
const price = z.number({ error: 'must be a number' }).positive('must be greater than 0').max(1e10);
const note = z.string().max(500, 'must be at most 500 characters').nullable();

/** A stored lot (GET/PUT /portfolio/holdings/{id}); `acquired_at` is YYYY-MM-DD. */
export const Holding = z
  .object({ id: z.string(), code: z.string(), quantity: z.number(), average_price: z.number(), acquired_at: z.string(), note: z.string().nullable(), created_at: z.string(), updated_at: z.string() })
  .meta({ id: 'Holding' });
export type Holding = z.output<typeof Holding>;

/** POST /portfolio/holdings: the lot written, and whether it was merged into an existing one. */
export const AddedHolding = Holding.extend({ merged: z.boolean() });
export type AddedHolding = z.output<typeof AddedHolding>;

/** Body of POST /portfolio/holdings. */
export const NewHolding = z.strictObject({
  code,
  quantity,
  average_price: price,
  acquired_at: notFutureDate.optional().describe('Acquisition date (default: today, Korea time)'),
  note: note.optional(),
  separate_lot: z.boolean().optional().describe('Keep as a separate lot instead of merging into the existing holding of this stock'),
});
export type NewHolding = z.output<typeof NewHolding>;

/** Body of PUT /portfolio/holdings/{id}: at least one field. */
export const HoldingPatch = z
  .strictObject({ quantity: quantity.optional(), average_price: price.optional(), acquired_at: notFutureDate.optional(), note: note.optional() })
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one of quantity, average_price, acquired_at, note' });
export type HoldingPatch = z.output<typeof HoldingPatch>;

/** A holding valued at the current price (GET /portfolio). Percentages are 0–100; `current_price` null: no price known (valued at cost). */
export const ValuedHolding = z
  .object({
    id: z.string(), code: z.string(), name: z.string().nullable(), market: z.string().nullable(), sector: z.string().nullable(),
    quantity: z.number(), average_price: z.number(), current_price: z.number().nullable(), price_source: z.enum(['live', 'close']).nullable(),
    price_as_of: z.string().nullable(), market_value: z.number(), cost: z.number(), unrealized_pnl: z.number(), unrealized_pnl_percent: z.number(),
    day_change: z.number(), day_change_percent: z.number(), weight: z.number().describe('Percent of the portfolio value'), market_cap: z.number().nullable(),
    acquired_at: z.string(), note: z.string().nullable(),
  })
  .meta({ id: 'HoldingValued' });
export type ValuedHolding = z.output<typeof ValuedHolding>;

/** Portfolio totals. */
export const PortfolioTotals = z.object({
  holdings: z.number(), market_value: z.number(), cost: z.number(), unrealized_pnl: z.number(), unrealized_pnl_percent: z.number(),
  day_change: z.number(), day_change_percent: z.number(),
});
export type PortfolioTotals = z.output<typeof PortfolioTotals>;

/** GET /portfolio. */
export const PortfolioOverview = z.object({ holdings: z.array(ValuedHolding), totals: PortfolioTotals });
export type PortfolioOverview = z.output<typeof PortfolioOverview>;

/** One slice of an allocation (`weight`: percent of the portfolio's market value). */
export const AllocationSlice = z.object({ key: z.string(), value: z.number(), weight: z.number(), holdings: z.number() });
export type AllocationSlice = z.output<typeof AllocationSlice>;

/** A best or worst holding. */
export const RankedHolding = z.object({ id: z.string(), code: z.string(), name: z.string().nullable(), unrealized_pnl: z.number(), unrealized_pnl_percent: z.number() });
export type RankedHolding = z.output<typeof RankedHolding>;

/** The return periods of the performance report. */
export type PerformancePeriod = '1W' | '1M' | '3M' | '6M' | 'YTD' | '1Y';

/** The figures of the performance report that can be unavailable (null, with a reason). */
export type UnavailableFigure =
  | 'returns' | 'volatility_percent' | 'max_drawdown_percent' | 'sharpe_ratio' | 'beta' | 'benchmark_return_percent' | 'excess_return_percent';

const nullableNumber = z.number().nullable();

/**
 * GET /portfolio/performance: time-weighted returns per period, risk statistics against KOSPI
 * (max drawdown as a positive percent), allocation, best and worst holdings, and the daily
 * series when asked. `total_return_percent` is (unrealised + realised P&L) / cost of the current holdings.
 */
export const Performance = z
  .object({
    as_of: z.string().nullable(), history_start: z.string().nullable(),
    window: z.object({ from: z.string().nullable(), to: z.string().nullable(), days: z.number() }),
    total_value: z.number(), total_cost: z.number(), unrealized_pnl: z.number(), unrealized_pnl_percent: z.number(), realized_pnl: z.number(),
    total_return_percent: z.number(), day_change: z.number(), day_change_percent: z.number(),
    returns: z.object({ '1W': nullableNumber, '1M': nullableNumber, '3M': nullableNumber, '6M': nullableNumber, YTD: nullableNumber, '1Y': nullableNumber }),
    volatility_percent: nullableNumber, max_drawdown_percent: nullableNumber, sharpe_ratio: nullableNumber, beta: nullableNumber,
    benchmark: z.literal('KOSPI'), benchmark_return_percent: nullableNumber, excess_return_percent: nullableNumber, risk_free_rate: z.number(),
    unavailable: z
      .record(z.string(), z.string())
      .meta({ description: 'Why each null figure is null (key `returns` for the period returns), e.g. "needs 20 daily returns (has 3)"' }),
    allocation: z.object({ by_stock: z.array(AllocationSlice), by_sector: z.array(AllocationSlice), by_market: z.array(AllocationSlice), by_market_cap: z.array(AllocationSlice) }),
    best: z.array(RankedHolding), worst: z.array(RankedHolding),
    series: z.array(z.object({ date: z.string(), value: z.number(), return_index: z.number() })).optional(),
  })
  .meta({ id: 'PortfolioPerformance' });
export type Performance = Omit<z.output<typeof Performance>, 'unavailable'> & {
  /** Why each null figure is null (`returns` for the period returns). */
  unavailable: Partial<Record<UnavailableFigure, string>>;
};

/** Query of GET /portfolio/performance. */
export const PerformanceQuery = z.object({
  series: z.enum(['true', 'false', '1', '0']).optional().transform((v) => v === 'true' || v === '1').describe('Include the daily value series'),
});

/** Body of POST /portfolio/transactions: a buy or a sell (`traded_at`: YYYY-MM-DD or an ISO date-time, not in the future). */
export const NewTransaction = z.strictObject({
  code,
  side: z.enum(['buy', 'sell'], { error: 'must be buy or sell' }),
  quantity,
  price,
  fee: z.number({ error: 'must be a number' }).min(0, 'must not be negative').max(1e12).optional(),
  traded_at: dateOrDateTime({ notFuture: true }),
});
export type NewTransaction = z.output<typeof NewTransaction>;

/** Query of GET /portfolio/transactions. */
export const TransactionsQuery = z.object({ code: code.optional(), ...PageQuery.shape });

/** A recorded trade: `average_cost` after a buy, or sold against for a sale; `realized_pnl` (sales only) = (price − average cost) × quantity − fee. */
export const PortfolioTransaction = z
  .object({
    id: z.string(), code: z.string(), side: z.enum(['buy', 'sell']), quantity: z.number(), price: z.number(), fee: z.number(), traded_at: z.string(),
    average_cost: z.number(), realized_pnl: z.number().nullable(), created_at: z.string(),
  })
  .meta({ id: 'PortfolioTransaction' });
export type PortfolioTransaction = z.output<typeof PortfolioTransaction>;

/** POST /portfolio/transactions: the trade recorded and the holding after it (null once sold out). */
export const RecordedTransaction = z.object({ transaction: PortfolioTransaction, holding: Holding.nullable() });
export type RecordedTransaction = z.output<typeof RecordedTransaction>;
