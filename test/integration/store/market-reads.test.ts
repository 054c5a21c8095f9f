/**
 * Market reads on the pass's backend that are shaped for the event loop: the stock
 * list is read in pages, and the trade-date queries skip-scan the date index. Both must
 * still answer exactly what a plain query would.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DailyBar } from '../../../daemon/kernel/records.js';
import { createPricesRepo } from '../../../daemon/store/prices-repo.js';
import { createStocksRepo } from '../../../daemon/store/stocks-repo.js';
import { openTestDb, type TestDb } from '../../helpers/test-store.js';

/** More codes than one page of `all()` (400), alphanumeric ones included. */
const CODES = [...Array.from({ length: 905 }, (_, i) => String(200_000 + i * 3).padStart(6, '0')), '0126Z0', '00680K'];

function bar(code: string, date: string): DailyBar {
  return { stock_code: code, trade_date: date, open_price: 100, high_price: 110, low_price: 90, close_price: 105, volume: 10, trading_value: 1_050, market_cap: null, shares_outstanding: null };
}

describe('market reads', () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await openTestDb('market-reads');
  });
  afterEach(() => t.close());

  it('lists every stock once, in code order, across pages', async () => {
    // Given 907 stocks
    const stocks = createStocksRepo(t.db);
    await t.db.transaction((tx) => stocks.merge(tx, CODES.map((code) => ({ code, name: `종목${code}`, market: 'KOSDAQ' as const }))));
    // When the whole list is read
    const all = await stocks.all();
    // Then it holds each exactly once, sorted as the database sorts codes
    expect(all.map((s) => s.code)).toEqual([...CODES].sort());
    expect(all.find((s) => s.code === '0126Z0')).toMatchObject({ name: '종목0126Z0', market: 'KOSDAQ' });
  });

  it('finds the trading days and the n-th latest one, with stocks trading on different days', async () => {
    // Given bars on six dates, no stock trading on all of them
    const prices = createPricesRepo(t.db);
    const stocks = createStocksRepo(t.db);
    await t.db.transaction(async (tx) => {
      await stocks.merge(tx, [{ code: '005930', name: 'A', market: 'KOSPI' }, { code: '000660', name: 'B', market: 'KOSPI' }]);
      await prices.upsertBars(tx, [
        bar('005930', '2026-03-02'), bar('005930', '2026-03-03'), bar('005930', '2026-03-05'),
        bar('000660', '2026-03-03'), bar('000660', '2026-03-04'), bar('000660', '2026-03-06'), bar('000660', '2026-03-09'),
      ]);
    });
    // Then every date appears once, oldest first
    expect(await prices.tradeDates()).toEqual(['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06', '2026-03-09']);
    // And the n-th latest counts dates, not bars; past the oldest it answers the oldest
    expect(await prices.nthLatestDate(1)).toBe('2026-03-09');
    expect(await prices.nthLatestDate(3)).toBe('2026-03-05');
    expect(await prices.nthLatestDate(6)).toBe('2026-03-02');
    expect(await prices.nthLatestDate(300)).toBe('2026-03-02');
  });

  it('answers no dates on an empty market', async () => {
    const prices = createPricesRepo(t.db);
    expect(await prices.tradeDates()).toEqual([]);
    expect(await prices.nthLatestDate(10)).toBeNull();
  });
});
