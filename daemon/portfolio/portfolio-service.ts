/**
 * Portfolio service: a user's holdings and transactions (writes are atomic per request),
 * their valuation at current prices and their performance. Another user's holding is
 * "not found" (never forbidden). Prices: the live quote when the feed has one, else the
 * last close.
 */
import type { NewHolding, NewTransaction } from '../contract/portfolio.js';
import type { Logger } from 'pino';
import { invalidRequest, notFound } from '../errors.js';
import type { Clock } from '../infra/clock.js';
import { kstDate } from '../market/market-clock.js';
import type { Holding, HoldingPatch, HoldingsRepo } from '../store/holdings-repo.js';
import type { IndexRepo } from '../store/index-repo.js';
import type { PricesRepo } from '../store/prices-repo.js';
import type { Db, Queryable } from '../store/db.js';
import type { StocksRepo } from '../store/stocks-repo.js';
import type { PortfolioTransaction, TransactionPage, TransactionsRepo } from '../store/transactions-repo.js';
import { computePerformanceReport, type PerformanceReport } from './performance.js';
import { mergeLot, poolLots, sellFrom } from './positions.js';
import { valueOverview, type LiveQuoteFn } from './overview.js';
import type { HoldingView, PortfolioTotals } from './valuation.js';

export type { LiveQuoteFn } from './overview.js';

/** Collaborators of the portfolio service. */
export interface PortfolioDeps {
  db: Pick<Db, 'transaction'>;
  holdings: HoldingsRepo;
  transactions: TransactionsRepo;
  stocks: Pick<StocksRepo, 'get'>;
  prices: Pick<PricesRepo, 'history'>;
  index: Pick<IndexRepo, 'series'>;
  /** Live quotes when the feed runs; failures fall back to the last close. */
  liveQuote?: LiveQuoteFn;
  /** Annual risk-free rate as a fraction (config `risk_free_rate`, default 0.03). */
  riskFreeRate: number;
  clock: Clock;
  logger?: Logger;
}

/** A new holding (POST /portfolio/holdings): the wire contract's body. */
export type HoldingRequest = NewHolding;

/** A buy or sell (POST /portfolio/transactions): the wire contract's body. */
export type TransactionRequest = NewTransaction;

/** Portfolio service. */
export interface PortfolioService {
  /** Add a lot, merged into the oldest lot of the same stock unless `separate_lot`. @throws AppError INVALID_REQUEST for an unknown stock */
  addHolding(userId: string, input: HoldingRequest): Promise<{ holding: Holding; merged: boolean }>;
  /** @throws AppError NOT_FOUND */
  getHolding(userId: string, id: string): Promise<Holding>;
  /** @throws AppError NOT_FOUND */
  updateHolding(userId: string, id: string, patch: HoldingPatch): Promise<Holding>;
  /** @throws AppError NOT_FOUND */
  deleteHolding(userId: string, id: string): Promise<void>;
  /** Apply a trade to the holdings (average-cost method). @throws AppError INVALID_REQUEST for an unknown stock or a sale above the held quantity */
  recordTransaction(userId: string, input: TransactionRequest): Promise<{ transaction: PortfolioTransaction; holding: Holding | null }>;
  listTransactions(userId: string, options: { code?: string; limit: number; offset: number }): Promise<TransactionPage>;
  /** Holdings valued at current prices, with totals. */
  overview(userId: string): Promise<{ holdings: HoldingView[]; totals: PortfolioTotals }>;
  /** Totals, realised P&L, period returns, risk statistics, allocation; the daily series when asked. */
  performance(userId: string, options: { series: boolean }): Promise<PerformanceReport>;
}

/** Create the portfolio service (the valuation's reads are in overview.ts). */
export function createPortfolioService(deps: PortfolioDeps): PortfolioService {
  const today = () => kstDate(deps.clock.now());

  async function requireStock(code: string) {
    const stock = await deps.stocks.get(code);
    if (!stock) throw invalidRequest('Unknown stock', { code: `no listed stock has the code ${code}` });
    return stock;
  }

  const overview = (userId: string) => valueOverview(deps, userId);

  return {
    async addHolding(userId, input) {
      await requireStock(input.code);
      const date = input.acquired_at ?? today();
      return deps.db.transaction(async (q) => {
        const lots = input.separate_lot ? [] : await deps.holdings.byCode(userId, input.code, q);
        const target = lots[0];
        if (!target) {
          const holding = await deps.holdings.insert(q, userId, { code: input.code, quantity: input.quantity, average_price: input.average_price, acquired_at: date, note: input.note ?? null });
          return { holding, merged: false };
        }
        const merged = mergeLot(target, { quantity: input.quantity, price: input.average_price, date });
        const holding = await deps.holdings.update(q, userId, target.id, { ...merged, ...(input.note != null ? { note: input.note } : {}) });
        return { holding: holding!, merged: true };
      });
    },
    async getHolding(userId, id) {
      const h = await deps.holdings.get(userId, id);
      if (!h) throw notFound('Holding', { id });
      return h;
    },
    async updateHolding(userId, id, patch) {
      const h = await deps.db.transaction((q) => deps.holdings.update(q, userId, id, patch));
      if (!h) throw notFound('Holding', { id });
      return h;
    },
    async deleteHolding(userId, id) {
      const n = await deps.db.transaction((q) => deps.holdings.remove(q, userId, [id]));
      if (n === 0) throw notFound('Holding', { id });
    },
    async recordTransaction(userId, input) {
      await requireStock(input.code);
      return deps.db.transaction((q) => applyTrade(deps, q, userId, input));
    },
    listTransactions: (userId, options) => deps.transactions.list(userId, options),
    overview,
    async performance(userId, options) {
      const [view, realized] = await Promise.all([overview(userId), deps.transactions.realizedTotal(userId)]);
      return computePerformanceReport({ view, realized, prices: deps.prices, index: deps.index, riskFreeRate: deps.riskFreeRate, series: options.series });
    },
  };
}

/** Apply a trade to the user's lots of its stock inside `q` (average-cost method) and record it. @throws AppError INVALID_REQUEST for a sale above the held quantity */
async function applyTrade(deps: PortfolioDeps, q: Queryable, userId: string, input: TransactionRequest): Promise<{ transaction: PortfolioTransaction; holding: Holding | null }> {
  const date = input.traded_at.slice(0, 10);
  const trade = { quantity: input.quantity, price: input.price, fee: input.fee ?? 0, date };
  const lots = await deps.holdings.byCode(userId, input.code, q);
  const base = { code: input.code, side: input.side, quantity: input.quantity, price: input.price, fee: trade.fee, traded_at: input.traded_at };
  let holding: Holding | null;
  let averageCost: number;
  let realized: number | null = null;
  const [first, ...rest] = lots;
  if (input.side === 'buy') {
    const next = first ? mergeLot(first, trade) : { quantity: trade.quantity, average_price: (trade.quantity * trade.price + trade.fee) / trade.quantity, acquired_at: date };
    holding = first
      ? ((await deps.holdings.update(q, userId, first.id, next)) ?? null)
      : await deps.holdings.insert(q, userId, { code: input.code, ...next, note: null });
    averageCost = next.average_price;
  } else {
    // Average-cost method: the lots of the stock are one pool; what is left stays in the oldest lot.
    const sale = sellFrom(lots.length ? poolLots(lots) : null, trade, input.code);
    await deps.holdings.remove(q, userId, rest.map((l) => l.id));
    if (sale.remaining) holding = (await deps.holdings.update(q, userId, first!.id, sale.remaining)) ?? null;
    else (await deps.holdings.remove(q, userId, [first!.id]), (holding = null));
    averageCost = sale.average_cost;
    realized = sale.realized_pnl;
  }
  const transaction = await deps.transactions.insert(q, userId, { ...base, average_cost: averageCost, realized_pnl: realized });
  return { transaction, holding };
}
