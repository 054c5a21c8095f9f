/**
 * fillComputedIndex reads bars a day at a time (yielding to the event loop between days)
 * and still computes exactly the chain-linked series of the all-at-once function.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { computeCapWeightedIndex } from '../../../daemon/market/cap-weighted-index.js';
import { createMarketDataService, type MarketDataService } from '../../../daemon/market/market-data-service.js';
import { createFinancialsRepo } from '../../../daemon/store/financials-repo.js';
import { createIndexRepo, type IndexRepo } from '../../../daemon/store/index-repo.js';
import { createIndicatorsRepo } from '../../../daemon/store/indicators-repo.js';
import { createPricesRepo, type PricesRepo } from '../../../daemon/store/prices-repo.js';
import { createStocksRepo, type StocksRepo } from '../../../daemon/store/stocks-repo.js';
import { generateSampleMarket } from '../../../loaders/sample-market.js';
import { openTestDb, type TestDb } from '../../helpers/test-store.js';

describe('the computed market index', () => {
  let store: TestDb;
  let prices: PricesRepo;
  let stocks: StocksRepo;
  let index: IndexRepo;
  let market: MarketDataService;

  beforeAll(async () => {
    store = await openTestDb('computed-index');
    prices = createPricesRepo(store.db);
    stocks = createStocksRepo(store.db);
    index = createIndexRepo(store.db);
    market = createMarketDataService({ db: store.db, stocks, prices, financials: createFinancialsRepo(store.db), index, indicators: createIndicatorsRepo(store.db) });
    // Given a small sample market without its index series
    for (const chunk of generateSampleMarket({ seed: 5, stocks: 40, days: 80 })) await market.apply({ ...chunk, index: [] });
  });
  afterAll(() => store?.close());

  it('is read one trading day per query and equals the all-at-once computation', async () => {
    const barsOn = vi.spyOn(prices, 'barsOn');
    const recentBars = vi.spyOn(prices, 'recentBars');
    // When the index is filled
    const written = await market.fillComputedIndex();
    // Then every trading day was read on its own, never the whole history at once
    const dates = await prices.tradeDates();
    expect(dates).toHaveLength(80);
    expect(barsOn.mock.calls.map(([d]) => d)).toEqual(dates);
    expect(recentBars).not.toHaveBeenCalled();
    // And both markets' series are what the one-shot function computes from all bars
    const all = await prices.recentBars(10_000);
    const listed = await stocks.all();
    expect(written).toBe(160);
    for (const m of ['KOSPI', 'KOSDAQ'] as const) {
      const expected = computeCapWeightedIndex(m, listed, all);
      expect(await index.series(m)).toEqual(expected);
      expect(expected[0]?.close).toBe(1000);
    }
  });
});
