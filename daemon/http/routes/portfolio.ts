/**
 * Portfolio endpoints: holdings CRUD (merge into the same stock's lot unless
 * `separate_lot`), transactions with realised P&L (average-cost method), the valued
 * portfolio and its performance. Scoped to the caller: another user's holding is a 404.
 */
import { z } from 'zod';
import type { PortfolioService } from '../../portfolio/portfolio-service.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';
import {
  AddedHolding, Holding, HoldingPatch, NewHolding, NewTransaction, Performance, PerformanceQuery, PortfolioOverview, PortfolioTransaction, RecordedTransaction, TransactionsQuery,
} from '../../contract/portfolio.js';

/** Collaborators of the portfolio routes. */
export interface PortfolioRoutesDeps {
  portfolio: PortfolioService;
}

const idParams = z.object({ id: z.uuid('must be a holding id') });

/** Register the portfolio routes. */
export function registerPortfolioRoutes(api: ApiBuilder, deps: PortfolioRoutesDeps): void {
  const tags = ['portfolio'];
  const { portfolio } = deps;

  api.route(
    { method: 'get', path: '/portfolio', summary: 'Your holdings valued at current prices, with totals', tags, access: 'user', response: PortfolioOverview },
    async (req, res) => sendSuccess<PortfolioOverview>(req, res, await portfolio.overview(req.user!.id)),
  );
  api.route(
    { method: 'get', path: '/portfolio/performance', summary: 'Returns, risk statistics vs KOSPI, allocation (?series=true adds the daily values)', tags, access: 'user', query: PerformanceQuery, response: Performance },
    async (req, res) => {
      const q = req.valid.query;
      sendSuccess<Performance>(req, res, await portfolio.performance(req.user!.id, { series: q.series }));
    },
  );
  api.route(
    { method: 'post', path: '/portfolio/holdings', summary: 'Add a holding (merged into the same stock unless separate_lot)', tags, access: 'user', body: NewHolding, status: 201, response: AddedHolding },
    async (req, res) => {
      const { holding, merged } = await portfolio.addHolding(req.user!.id, req.valid.body);
      sendSuccess<AddedHolding>(req, res, { ...holding, merged }, { status: 201 });
    },
  );
  api.route(
    { method: 'get', path: '/portfolio/holdings/:id', summary: 'One holding', tags, access: 'user', params: idParams, response: Holding, errors: [404] },
    async (req, res) => sendSuccess(req, res, await portfolio.getHolding(req.user!.id, req.valid.params.id)),
  );
  api.route(
    { method: 'put', path: '/portfolio/holdings/:id', summary: 'Update a holding (partial)', tags, access: 'user', params: idParams, body: HoldingPatch, response: Holding, errors: [404] },
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
    { method: 'post', path: '/portfolio/transactions', summary: 'Record a buy or sell (average-cost method; realised P&L on sales)', tags, access: 'user', body: NewTransaction, status: 201, response: RecordedTransaction },
    async (req, res) => sendSuccess<RecordedTransaction>(req, res, await portfolio.recordTransaction(req.user!.id, req.valid.body), { status: 201 }),
  );
  api.route(
    { method: 'get', path: '/portfolio/transactions', summary: 'Your transactions, newest first', tags, access: 'user', query: TransactionsQuery, response: z.array(PortfolioTransaction) },
    async (req, res) => {
      const q = req.valid.query;
      const { items, total } = await portfolio.listTransactions(req.user!.id, { code: q.code, limit: q.limit, offset: (q.page - 1) * q.limit });
      sendSuccess(req, res, items, { meta: { total, page: q.page, per_page: q.limit, total_pages: Math.ceil(total / q.limit) } });
    },
  );
}
