/**
 * Portfolio endpoints: holdings CRUD (merge into the same stock's lot unless
 * `separate_lot`), transactions with realised P&L (average-cost method), the valued
 * portfolio and its performance. Scoped to the caller: another user's holding is a 404.
 */
import { z } from 'zod';
import { calendarDate, dateOrDateTime, stockCode } from '../../field-schemas.js';
import type { PortfolioService } from '../../portfolio/portfolio-service.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';
import type { AddedHolding, Performance, PortfolioOverview, RecordedTransaction } from '../../contract/portfolio.js';

/** Collaborators of the portfolio routes. */
export interface PortfolioRoutesDeps {
  portfolio: PortfolioService;
}

const code = stockCode();
const date = calendarDate({ notFuture: true });
const quantity = z.number({ error: 'must be a number' }).int('must be a whole number of shares').positive('must be positive').max(1e12);
const price = z.number({ error: 'must be a number' }).positive('must be greater than 0').max(1e10);
const note = z.string().max(500, 'must be at most 500 characters').nullable();
const idParams = z.object({ id: z.uuid('must be a holding id') });
const page = { page: z.coerce.number().int().min(1).default(1), limit: z.coerce.number().int().min(1).max(500).default(50) };

const createBody = z.strictObject({
  code,
  quantity,
  average_price: price,
  acquired_at: date.optional().describe('Acquisition date (default: today, Korea time)'),
  note: note.optional(),
  separate_lot: z.boolean().optional().describe('Keep as a separate lot instead of merging into the existing holding of this stock'),
});
const updateBody = z
  .strictObject({ quantity: quantity.optional(), average_price: price.optional(), acquired_at: date.optional(), note: note.optional() })
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one of quantity, average_price, acquired_at, note' });
const transactionBody = z.strictObject({
  code,
  side: z.enum(['buy', 'sell'], { error: 'must be buy or sell' }),
  quantity,
  price,
  fee: z.number({ error: 'must be a number' }).min(0, 'must not be negative').max(1e12).optional(),
  traded_at: dateOrDateTime({ notFuture: true }),
});
const transactionsQuery = z.object({ code: code.optional(), ...page });
const performanceQuery = z.object({
  series: z.enum(['true', 'false', '1', '0']).optional().transform((v) => v === 'true' || v === '1').describe('Include the daily value series'),
});

/** A stored lot in the OpenAPI document (checked against the contract in schemas/wire-conformance.ts). */
export const holdingSchema = z
  .object({ id: z.string(), code: z.string(), quantity: z.number(), average_price: z.number(), acquired_at: z.string(), note: z.string().nullable(), created_at: z.string(), updated_at: z.string() })
  .meta({ id: 'Holding' });
/** A valued holding in the OpenAPI document. */
export const holdingView = z
  .object({
    id: z.string(), code: z.string(), name: z.string().nullable(), market: z.string().nullable(), sector: z.string().nullable(),
    quantity: z.number(), average_price: z.number(), current_price: z.number().nullable(), price_source: z.enum(['live', 'close']).nullable(),
    price_as_of: z.string().nullable(), market_value: z.number(), cost: z.number(), unrealized_pnl: z.number(), unrealized_pnl_percent: z.number(),
    day_change: z.number(), day_change_percent: z.number(), weight: z.number().describe('Percent of the portfolio value'), market_cap: z.number().nullable(),
    acquired_at: z.string(), note: z.string().nullable(),
  })
  .meta({ id: 'HoldingValued' });
/** Portfolio totals in the OpenAPI document. */
export const totals = z.object({
  holdings: z.number(), market_value: z.number(), cost: z.number(), unrealized_pnl: z.number(), unrealized_pnl_percent: z.number(),
  day_change: z.number(), day_change_percent: z.number(),
});
/** A recorded trade in the OpenAPI document. */
export const transactionSchema = z
  .object({
    id: z.string(), code: z.string(), side: z.enum(['buy', 'sell']), quantity: z.number(), price: z.number(), fee: z.number(), traded_at: z.string(),
    average_cost: z.number(), realized_pnl: z.number().nullable(), created_at: z.string(),
  })
  .meta({ id: 'PortfolioTransaction' });
const slice = z.object({ key: z.string(), value: z.number(), weight: z.number(), holdings: z.number() });
const ranked = z.object({ id: z.string(), code: z.string(), name: z.string().nullable(), unrealized_pnl: z.number(), unrealized_pnl_percent: z.number() });
const nullableNumber = z.number().nullable();
/** The performance report in the OpenAPI document. */
export const performanceSchema = z
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
    allocation: z.object({ by_stock: z.array(slice), by_sector: z.array(slice), by_market: z.array(slice), by_market_cap: z.array(slice) }),
    best: z.array(ranked), worst: z.array(ranked),
    series: z.array(z.object({ date: z.string(), value: z.number(), return_index: z.number() })).optional(),
  })
  .meta({ id: 'PortfolioPerformance' });

/** Register the portfolio routes. */
export function registerPortfolioRoutes(api: ApiBuilder, deps: PortfolioRoutesDeps): void {
  const tags = ['portfolio'];
  const { portfolio } = deps;

  api.route(
    { method: 'get', path: '/portfolio', summary: 'Your holdings valued at current prices, with totals', tags, access: 'user', response: z.object({ holdings: z.array(holdingView), totals }) },
    async (req, res) => sendSuccess<PortfolioOverview>(req, res, await portfolio.overview(req.user!.id)),
  );
  api.route(
    { method: 'get', path: '/portfolio/performance', summary: 'Returns, risk statistics vs KOSPI, allocation (?series=true adds the daily values)', tags, access: 'user', query: performanceQuery, response: performanceSchema },
    async (req, res) => {
      const q = req.valid.query;
      sendSuccess<Performance>(req, res, await portfolio.performance(req.user!.id, { series: q.series }));
    },
  );
  api.route(
    { method: 'post', path: '/portfolio/holdings', summary: 'Add a holding (merged into the same stock unless separate_lot)', tags, access: 'user', body: createBody, status: 201, response: holdingSchema.extend({ merged: z.boolean() }) },
    async (req, res) => {
      const { holding, merged } = await portfolio.addHolding(req.user!.id, req.valid.body);
      sendSuccess<AddedHolding>(req, res, { ...holding, merged }, { status: 201 });
    },
  );
  api.route(
    { method: 'get', path: '/portfolio/holdings/:id', summary: 'One holding', tags, access: 'user', params: idParams, response: holdingSchema, errors: [404] },
    async (req, res) => sendSuccess(req, res, await portfolio.getHolding(req.user!.id, req.valid.params.id)),
  );
  api.route(
    { method: 'put', path: '/portfolio/holdings/:id', summary: 'Update a holding (partial)', tags, access: 'user', params: idParams, body: updateBody, response: holdingSchema, errors: [404] },
    async (req, res) => {
      const { id } = req.valid.params;
      sendSuccess(req, res, await portfolio.updateHolding(req.user!.id, id, req.valid.body));
    },
  );
  api.route(
    { method: 'delete', path: '/portfolio/holdings/:id', summary: 'Delete a holding', tags, access: 'user', params: idParams, status: 204, errors: [404] },
    async (req, res) => {
      await portfolio.deleteHolding(req.user!.id, req.valid.params.id);
      res.status(204).end();
    },
  );
  api.route(
    { method: 'post', path: '/portfolio/transactions', summary: 'Record a buy or sell (average-cost method; realised P&L on sales)', tags, access: 'user', body: transactionBody, status: 201, response: z.object({ transaction: transactionSchema, holding: holdingSchema.nullable() }) },
    async (req, res) => sendSuccess<RecordedTransaction>(req, res, await portfolio.recordTransaction(req.user!.id, req.valid.body), { status: 201 }),
  );
  api.route(
    { method: 'get', path: '/portfolio/transactions', summary: 'Your transactions, newest first', tags, access: 'user', query: transactionsQuery, response: z.array(transactionSchema) },
    async (req, res) => {
      const q = req.valid.query;
      const { items, total } = await portfolio.listTransactions(req.user!.id, { code: q.code, limit: q.limit, offset: (q.page - 1) * q.limit });
      sendSuccess(req, res, items, { meta: { total, page: q.page, per_page: q.limit, total_pages: Math.ceil(total / q.limit) } });
    },
  );
}
