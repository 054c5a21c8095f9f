/**
 * The whole market as chunks of records, for the NDJSON export that
 * `stockscreen export` writes and every loader reads back (a lossless round trip).
 */
import type { MarketRecords } from '../../loaders/types.js';
import type { DesignationsRepo } from '../store/designations-repo.js';
import type { FinancialsRepo } from '../store/financials-repo.js';
import type { IndexRepo } from '../store/index-repo.js';
import type { PricesRepo } from '../store/prices-repo.js';
import type { StocksRepo } from '../store/stocks-repo.js';
import { MARKETS } from '../kernel/records.js';

/** Repositories the export reads. */
export interface ExportDeps {
  stocks: StocksRepo;
  prices: PricesRepo;
  financials: FinancialsRepo;
  index: IndexRepo;
  designations: DesignationsRepo;
}

/** Stocks first, then bars 100 stocks at a time, then halts, financials, index series and designations. */
export async function* exportMarket(deps: ExportDeps): AsyncGenerator<Partial<MarketRecords>> {
  const stocks = await deps.stocks.all();
  yield { stocks };
  for (let i = 0; i < stocks.length; i += 100) {
    yield { bars: await deps.prices.barsFor(stocks.slice(i, i + 100).map((s) => s.code)) };
  }
  yield { halts: await deps.prices.allHalts() };
  yield { financials: [...(await deps.financials.all()).values()].flat() };
  for (const market of MARKETS) yield { index: await deps.index.series(market) };
  yield { designations: await deps.designations.all() };
}
