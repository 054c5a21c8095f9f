/**
 * A user's holdings valued at current prices: the live quote when the feed has one (a failing
 * feed falls back), else the last close and its change from the close before.
 */
import type { Logger } from 'pino';
import type { HoldingsRepo } from '../store/holdings-repo.js';
import type { PricesRepo } from '../store/prices-repo.js';
import type { StocksRepo } from '../store/stocks-repo.js';
import { valueHoldings, type HoldingView, type PortfolioTotals, type PriceQuote } from './valuation.js';

/** A live quote from the feed (daemon/market/feed/quote-store.ts), or null without one. */
export type LiveQuoteFn = (code: string) => Promise<{ price: number; change: number; change_percent: number; ts: number } | null>;

/** What a valuation reads (a part of the portfolio service's collaborators). */
export interface OverviewDeps {
  holdings: Pick<HoldingsRepo, 'list'>;
  stocks: Pick<StocksRepo, 'get'>;
  prices: Pick<PricesRepo, 'history'>;
  liveQuote?: LiveQuoteFn;
  logger?: Logger;
}

/** The price of `code` now: live, else the last close (null without any bar). */
export async function currentPrice(deps: OverviewDeps, code: string): Promise<PriceQuote | null> {
  try {
    const live = await deps.liveQuote?.(code);
    if (live) return { price: live.price, change: live.change, source: 'live', as_of: new Date(live.ts).toISOString() };
  } catch (err) {
    deps.logger?.warn({ err: (err as Error).message, code }, 'live quote unavailable; using the last close');
  }
  const bars = await deps.prices.history(code, { limit: 2 });
  const last = bars.at(-1);
  if (!last) return null;
  const prev = bars.length === 2 ? bars[0]!.close_price : null;
  return { price: last.close_price, change: prev === null ? null : last.close_price - prev, source: 'close', as_of: last.trade_date };
}

/** The user's holdings valued at current prices, with totals. */
export async function valueOverview(deps: OverviewDeps, userId: string): Promise<{ holdings: HoldingView[]; totals: PortfolioTotals }> {
  const holdings = await deps.holdings.list(userId);
  const codes = [...new Set(holdings.map((h) => h.code))];
  const [stocks, quotes] = await Promise.all([
    Promise.all(codes.map((c) => deps.stocks.get(c))),
    Promise.all(codes.map((c) => currentPrice(deps, c))),
  ]);
  const byCode = new Map(codes.map((c, i) => [c, { stock: stocks[i], quote: quotes[i] ?? null }]));
  return valueHoldings(holdings.map((h) => ({ holding: h, ...byCode.get(h.code)! })));
}
