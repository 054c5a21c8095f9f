/**
 * Stock endpoints: list (from the in-memory snapshot), detail with latest indicators,
 * price (live quote when the feed runs, else the last close), history (day/week/month
 * bars) and quarterly financials with derived ratios. All need a token.
 */
import { z } from 'zod';
import {
  FinancialRow, FinancialsQuery, PriceBar, PriceHistoryQuery, StockDetail, StockListItem, StockListQuery, StockPrice,
} from '../../contract/stocks.js';
import { notFound } from '../../errors.js';
import { currentRatio, debtRatio, equityRatio, marginPercent } from '../../indicators/balance-sheet.js';
import { aggregateBars } from '../../market/aggregate-bars.js';
import type { LiveQuoteView } from '../../market/feed/quote-store.js';
import { stockCode } from '../../contract/fields.js';
import { type DailyBar, type FinancialQuarter, type StockRecord } from '../../kernel/records.js';
import { executeQuery } from '../../screening/engine/query.js';
import type { SnapshotService } from '../../screening/engine/snapshot-service.js';
import type { FinancialsRepo } from '../../store/financials-repo.js';
import type { IndicatorsRepo } from '../../store/indicators-repo.js';
import type { PricesRepo } from '../../store/prices-repo.js';
import type { StocksRepo } from '../../store/stocks-repo.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';

/** Collaborators of the stock routes. */
export interface StockRoutesDeps {
  stocks: StocksRepo;
  prices: PricesRepo;
  financials: FinancialsRepo;
  indicators: IndicatorsRepo;
  snapshot: SnapshotService;
  /** The live quote of a running feed (the quote store's), else null. */
  liveQuote?(code: string): Promise<LiveQuoteView | null>;
}

const codeParams = z.object({ code: stockCode() });

/** A quarter with its ratios, by the definitions the indicators of the same names use (over the quarter, not TTM). */
function withRatios(q: FinancialQuarter): FinancialRow {
  return {
    ...q,
    operating_margin: marginPercent(q.operating_profit, q.revenue),
    net_margin: marginPercent(q.net_profit, q.revenue),
    debt_ratio: debtRatio(q),
    equity_ratio: equityRatio(q),
    current_ratio: currentRatio(q),
  };
}

/**
 * One page of GET /stocks, read from the in-memory snapshot (its rows are the snapshot's
 * columns, not checked against StockListItem by the compiler).
 */
function listPage(snapshot: SnapshotService, q: StockListQuery) {
  const snap = snapshot.current();
  let codes: string[] | undefined;
  if (q.q) {
    const needle = q.q.toLowerCase();
    codes = snap.codes.filter((c, i) => c.toLowerCase().includes(needle) || (snap.names[i] ?? '').toLowerCase().includes(needle) || (snap.namesEnglish[i] ?? '').toLowerCase().includes(needle));
  }
  const order = q.order ?? (q.sort === 'code' || q.sort === 'name' ? 'asc' : 'desc');
  const result = codes?.length === 0
    ? { total: 0, page: q.page, per_page: q.limit, total_pages: 0, items: [] }
    : executeQuery(snap, {
        universe: { ...(q.market !== 'ALL' ? { market: q.market } : {}), ...(q.sector ? { sectors: [q.sector] } : {}), ...(codes ? { codes } : {}) },
        filters: [], sort: [{ field: q.sort, direction: order }], page: q.page, per_page: q.limit, fields: ['name_english', 'volume'],
      }, { presorted: true });
  const items = result.items.map((i) => ({
    code: i.code, name: i.name, name_english: i.name_english ?? null, market: i.market, sector: i.sector,
    close: i.close ?? null, change_percent: i.change_percent ?? null, market_cap: i.market_cap ?? null, volume: i.volume ?? null,
  }));
  return { items, meta: { total: result.total, page: result.page, per_page: result.per_page, total_pages: result.total_pages } };
}

/**
 * GET /stocks/{code}/price: the live quote while the feed runs (with its age, so a client can
 * tell a fresh price from one a silent feed left behind), else the last close (a halt's close
 * when the stock is halted).
 * @throws AppError NOT_FOUND when no price was ever loaded
 */
async function priceOf(deps: StockRoutesDeps, stock: StockRecord): Promise<StockPrice> {
  const { code, name } = stock;
  const live = (await deps.liveQuote?.(code)) ?? null;
  if (live) {
    const { ts, ...quote } = live;
    return { code, name, ...quote, as_of: new Date(ts).toISOString(), age_ms: Math.max(0, Date.now() - ts), source: 'live', halted: false };
  }
  const recent = await deps.prices.history(code, { limit: 2 });
  const last = recent.at(-1);
  const prev = recent.length === 2 ? recent[0] : undefined;
  const halt = await deps.prices.latestHalt(code);
  if (!last && !halt) throw notFound(`Price of ${code}`, { code, reason: 'no price data loaded for this stock' });
  const price = halt ? halt.last_close : last!.close_price;
  const base = halt ? last?.close_price ?? null : prev?.close_price ?? null;
  return {
    code, name, price,
    change: base === null ? null : price - base,
    change_percent: base === null ? null : ((price - base) / base) * 100,
    open: halt ? null : last!.open_price, high: halt ? null : last!.high_price, low: halt ? null : last!.low_price,
    volume: halt ? 0 : last!.volume, trading_value: halt ? 0 : last!.trading_value,
    as_of: halt ? halt.trade_date : last!.trade_date, source: 'close', halted: Boolean(halt),
  };
}

/** Register the stock routes. */
export function registerStockRoutes(api: ApiBuilder, deps: StockRoutesDeps): void {
  const tags = ['stocks'];
  async function requireStock(code: string) {
    const stock = await deps.stocks.get(code);
    if (!stock) throw notFound(`Stock ${code}`, { code }); // "Stock 999999 not found": the message names the code
    return stock;
  }

  api.route(
    { method: 'get', path: '/stocks', summary: 'List stocks (filter by market, sector, code or name substring)', tags, access: 'user', query: StockListQuery, response: z.array(StockListItem) },
    (req, res) => {
      const { items, meta } = listPage(deps.snapshot, req.valid.query);
      sendSuccess(req, res, items, { meta });
    },
  );
  api.route(
    { method: 'get', path: '/stocks/:code', summary: 'A stock with its latest indicators', tags, access: 'user', params: codeParams, response: StockDetail, errors: [404] },
    async (req, res) => {
      const { code } = req.valid.params;
      const stock = await requireStock(code);
      const ind = await deps.indicators.get(code);
      sendSuccess<StockDetail>(req, res, { ...stock, indicators_as_of: ind?.as_of ?? null, indicators: ind?.values ?? {} });
    },
  );
  api.route(
    { method: 'get', path: '/stocks/:code/price', summary: 'Latest price (live when the feed runs, else the last close)', tags, access: 'user', params: codeParams, response: StockPrice, errors: [404] },
    async (req, res) => sendSuccess<StockPrice>(req, res, await priceOf(deps, await requireStock(req.valid.params.code))),
  );
  api.route(
    { method: 'get', path: '/stocks/:code/history', summary: 'OHLCV bars, oldest first (day, week or month)', tags, access: 'user', params: codeParams, query: PriceHistoryQuery, response: z.array(PriceBar), errors: [404] },
    async (req, res) => {
      const { code } = req.valid.params;
      const q = req.valid.query;
      await requireStock(code);
      const bars: DailyBar[] = await deps.prices.history(code, { from: q.from, to: q.to, limit: q.interval === 'day' ? q.limit : undefined });
      const rows = q.interval === 'day' ? bars : aggregateBars(bars, q.interval);
      const limited = q.limit && rows.length > q.limit ? rows.slice(rows.length - q.limit) : rows;
      sendSuccess<PriceBar[]>(req, res, limited, { meta: { code, interval: q.interval, count: limited.length } });
    },
  );
  api.route(
    {
      method: 'get', path: '/stocks/:code/financials', summary: 'Quarterly statements, newest first, with derived ratios', tags, access: 'user', params: codeParams, query: FinancialsQuery, response: z.array(FinancialRow), errors: [404],
      description:
        'Each quarter carries its ratios in percent, by the definitions of the indicators of the same names (GET /screen/fields), over the quarter rather than TTM: ' +
        'operating_margin and net_margin (profit / revenue; null when revenue ≤ 0), debt_ratio (total liabilities, else total assets − equity, / equity; null when equity ≤ 0), ' +
        'equity_ratio (equity / total assets; null when assets ≤ 0) and current_ratio (current assets / current liabilities; null when those liabilities ≤ 0).',
    },
    async (req, res) => {
      const { code } = req.valid.params;
      await requireStock(code);
      const rows = await deps.financials.forStock(code, req.valid.query.limit);
      sendSuccess<FinancialRow[]>(req, res, rows.map(withRatios), { meta: { code, quarters: rows.length } });
    },
  );
}
