/**
 * The feed's stock list from the database: every listed stock with its last close (the
 * base of today's limits), the date of that close, its 20-day average volume (sizes the
 * simulator's trades) and whether it is halted as of its latest data.
 */
import type { PricesRepo } from '../../store/prices-repo.js';
import type { StocksRepo } from '../../store/stocks-repo.js';
import type { FeedStock } from './types.js';

/** Days of history read for the average volume. */
const VOLUME_DAYS = 20;

/** Build the loader the price feed calls at start, on leadership and on refresh. */
export function createStockLoader(deps: { stocks: Pick<StocksRepo, 'all'>; prices: Pick<PricesRepo, 'recentBars' | 'latestHalts'> }): () => Promise<FeedStock[]> {
  return async () => {
    const [stocks, bars, halts] = await Promise.all([deps.stocks.all(), deps.prices.recentBars(VOLUME_DAYS), deps.prices.latestHalts()]);
    const out: FeedStock[] = [];
    for (const s of stocks) {
      const history = bars.get(s.code) ?? [];
      const last = history.at(-1);
      const halt = halts.get(s.code);
      const prevClose = halt?.last_close ?? last?.close_price;
      // Without any close there is no base for the ±30% limit: the stock cannot be priced yet.
      if (!prevClose || prevClose <= 0) continue;
      const avgVolume = history.length ? history.reduce((sum, b) => sum + b.volume, 0) / history.length : undefined;
      out.push({
        code: s.code, name: s.name, market: s.market, sector: s.sector, prev_close: prevClose,
        close_date: halt?.trade_date ?? last?.trade_date,
        ...(avgVolume && avgVolume > 0 ? { avg_volume: avgVolume } : {}),
        ...(halt ? { halted: true } : {}),
      });
    }
    return out;
  };
}
