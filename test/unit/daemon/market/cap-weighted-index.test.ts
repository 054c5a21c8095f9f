import { describe, expect, it } from 'vitest';
import { computeCapWeightedIndex, createCapWeightedIndexBuilder } from '../../../../daemon/market/cap-weighted-index.js';
import type { DailyBar, StockRecord } from '../../../../daemon/kernel/records.js';

const stock = (code: string, shares: number, market: 'KOSPI' | 'KOSDAQ' = 'KOSPI'): StockRecord => ({
  code, name: code, name_english: null, market, sector: null, industry: null, listing_date: null, shares_outstanding: shares,
  board: null, settle_month: null, is_administrative: false, is_spac: false, is_preferred: false,
});
const bar = (code: string, date: string, close: number): DailyBar => ({
  stock_code: code, trade_date: date, open_price: close, high_price: close, low_price: close, close_price: close,
  volume: 1, trading_value: close, market_cap: null, shares_outstanding: null,
});

describe('computeCapWeightedIndex', () => {
  it('chain-links total market cap so a new listing does not move the level', () => {
    // Day 1: A 100×10 + B 50×20 = 2,000 → base 1,000.
    // Day 2: A 110×10 + B 50×20 = 2,100 vs 2,000 → 1,000 × 2,100/2,000 = 1,050.
    // Day 3: C lists (cap 500, no previous day: ignored); A 1,100 + B 55×20 = 2,200 vs 2,100 → 1,050 × 2,200/2,100 = 1,100.
    const stocks = [stock('AAAAAA', 10), stock('BBBBBB', 20), stock('CCCCCC', 5), stock('KQKQKQ', 1, 'KOSDAQ')];
    const bars = new Map([
      ['AAAAAA', [bar('AAAAAA', '2026-03-09', 100), bar('AAAAAA', '2026-03-10', 110), bar('AAAAAA', '2026-03-11', 110)]],
      ['BBBBBB', [bar('BBBBBB', '2026-03-09', 50), bar('BBBBBB', '2026-03-10', 50), bar('BBBBBB', '2026-03-11', 55)]],
      ['CCCCCC', [bar('CCCCCC', '2026-03-11', 100)]],
      ['KQKQKQ', [bar('KQKQKQ', '2026-03-09', 1), bar('KQKQKQ', '2026-03-10', 1000)]],
    ]);
    const series = computeCapWeightedIndex('KOSPI', stocks, bars);
    expect(series.map((b) => [b.trade_date, b.close])).toEqual([
      ['2026-03-09', 1000],
      ['2026-03-10', 1050],
      ['2026-03-11', 1100],
    ]);
    expect(series.every((b) => b.market === 'KOSPI')).toBe(true);
  });

  it('prefers the market cap the source reported over close × shares', () => {
    const stocks = [stock('AAAAAA', 10)];
    const b1 = { ...bar('AAAAAA', '2026-03-09', 100), market_cap: 4000 };
    const b2 = { ...bar('AAAAAA', '2026-03-10', 100), market_cap: 5000 };
    const series = computeCapWeightedIndex('KOSPI', stocks, new Map([['AAAAAA', [b1, b2]]]));
    expect(series[1]?.close).toBe(1250);
  });

  it('gives the same levels when fed one day at a time (as the chunked fill does)', () => {
    const stocks = [stock('AAAAAA', 10), stock('BBBBBB', 20), stock('KQKQKQ', 1, 'KOSDAQ')];
    const days = ['2026-03-09', '2026-03-10', '2026-03-11'];
    const closes = { AAAAAA: [100, 110, 110], BBBBBB: [50, 50, 55], KQKQKQ: [1, 1000, 3] } as const;
    const byCode = new Map(Object.entries(closes).map(([code, cs]) => [code, cs.map((c, i) => bar(code, days[i]!, c))]));
    const builder = createCapWeightedIndexBuilder('KOSPI', stocks);
    // Each day's bars of every market, as one read of a date returns them
    const daily = days.map((d) => builder.addDay(d, [...byCode.values()].flat().filter((b) => b.trade_date === d)));
    expect(daily).toEqual(computeCapWeightedIndex('KOSPI', stocks, byCode));
    expect(daily.map((b) => b?.close)).toEqual([1000, 1050, 1100]);
    expect(builder.addDay('2026-03-12', [])).toBeNull();
  });
});
