/**
 * PricesRepo.barColumns on the pass's backend (the history read): every bar of the
 * asked stocks as columns, oldest first, each value the double the row read gives (prices that
 * need 17 digits included), nulls kept, other stocks left out.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DailyBar } from '../../../daemon/kernel/records.js';
import { createPricesRepo, parseBarColumns } from '../../../daemon/store/prices-repo.js';
import { createStocksRepo } from '../../../daemon/store/stocks-repo.js';
import { openTestDb, type TestDb } from '../../helpers/test-store.js';

const CODES = ['005930', '0126Z0', '000660'];

function bar(code: string, day: number): DailyBar {
  const close = 1234.5678901234567 + day * 0.1 + (code === '0126Z0' ? 0.30000000000000004 : 0);
  return {
    stock_code: code, trade_date: `2025-03-${String(10 + day).padStart(2, '0')}`, open_price: close - 1, high_price: close + 2, low_price: close - 3,
    close_price: close, volume: 1_000 * day, trading_value: 9_007_199_254_740_000 + day, market_cap: day % 2 === 0 ? null : 5e12 + day, shares_outstanding: day === 1 ? null : 1e9,
  };
}

describe('prices repository: bar columns', () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await openTestDb('bar-columns');
    await t.db.transaction((tx) => createStocksRepo(t.db).merge(tx, CODES.map((code) => ({ code, name: `종목${code}`, market: 'KOSPI' as const }))));
  });
  afterEach(() => t.close());

  it('gives each asked stock its bars as columns, equal to the rows, oldest first', async () => {
    // Given bars written out of date order
    const prices = createPricesRepo(t.db);
    const bars = CODES.flatMap((code) => [3, 1, 4, 2].map((d) => bar(code, d)));
    await t.db.transaction((tx) => prices.upsertBars(tx, bars));
    // When two of the three stocks are read as columns
    const read = await prices.barColumns(['0126Z0', '005930']);
    // Then each matches its rows exactly, and the third stock is absent
    expect(read.map((c) => c.stock_code).sort()).toEqual(['005930', '0126Z0']);
    for (const cols of read) {
      const rows = await prices.history(cols.stock_code, {});
      expect(cols.dates).toEqual(rows.map((r) => r.trade_date));
      expect(cols.close).toEqual(rows.map((r) => r.close_price));
      expect(cols.open).toEqual(rows.map((r) => r.open_price));
      expect(cols.high).toEqual(rows.map((r) => r.high_price));
      expect(cols.low).toEqual(rows.map((r) => r.low_price));
      expect(cols.volume).toEqual(rows.map((r) => Number(r.volume)));
      expect(cols.value).toEqual(rows.map((r) => Number(r.trading_value)));
      expect(cols.cap).toEqual(rows.map((r) => (r.market_cap == null ? null : Number(r.market_cap))));
      expect(cols.shares).toEqual(rows.map((r) => (r.shares_outstanding == null ? null : Number(r.shares_outstanding))));
    }
    expect(await prices.barColumns([])).toEqual([]);
  });

  it('puts columns joined in another order into date order, each value with its date', () => {
    const row = { stock_code: 'A', d: '2025-01-03,2025-01-01,2025-01-02', o: '3,1,2', h: '3,1,2', l: '3,1,2', c: '30.5,10.25,20', v: '3,1,2', tv: '3,1,2', mc: 'null,5,null', so: '7,null,8' };
    const cols = parseBarColumns(row);
    expect(cols.dates).toEqual(['2025-01-01', '2025-01-02', '2025-01-03']);
    expect(cols.close).toEqual([10.25, 20, 30.5]);
    expect(cols.open).toEqual([1, 2, 3]);
    expect(cols.cap).toEqual([5, null, null]);
    expect(cols.shares).toEqual([null, 8, 7]);
  });
});
