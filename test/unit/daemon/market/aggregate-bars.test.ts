import { describe, expect, it } from 'vitest';
import { aggregateBars } from '../../../../daemon/market/aggregate-bars.js';
import type { DailyBar } from '../../../../daemon/kernel/records.js';

const bar = (trade_date: string, o: number, h: number, l: number, c: number, v: number): DailyBar => ({
  stock_code: '005930', trade_date, open_price: o, high_price: h, low_price: l, close_price: c, volume: v, trading_value: v * c, market_cap: null, shares_outstanding: null,
});

// Fri 2026-02-27, then Mon 03-02 (holiday 3.1 falls on a Sunday; 03-02 is the substitute day, so none traded),
// so the week of 03-02 here has Tue 03-03 … Fri 03-06, then Mon 03-09.
const bars = [
  bar('2026-02-27', 100, 110, 95, 105, 10),
  bar('2026-03-03', 106, 120, 104, 118, 20),
  bar('2026-03-04', 118, 119, 101, 102, 30),
  bar('2026-03-06', 102, 130, 100, 125, 40),
  bar('2026-03-09', 125, 126, 90, 91, 50),
];

describe('aggregateBars', () => {
  it('builds week bars: first open, highest high, lowest low, last close, summed volume, dated by the last day', () => {
    expect(aggregateBars(bars, 'week').map((b) => [b.trade_date, b.open_price, b.high_price, b.low_price, b.close_price, b.volume])).toEqual([
      ['2026-02-27', 100, 110, 95, 105, 10],
      ['2026-03-06', 106, 130, 100, 125, 90],
      ['2026-03-09', 125, 126, 90, 91, 50],
    ]);
  });

  it('builds month bars and sums trading value', () => {
    const months = aggregateBars(bars, 'month');
    expect(months.map((b) => [b.trade_date, b.open_price, b.high_price, b.low_price, b.close_price, b.volume])).toEqual([
      ['2026-02-27', 100, 110, 95, 105, 10],
      ['2026-03-09', 106, 130, 90, 91, 140],
    ]);
    // 20×118 + 30×102 + 40×125 + 50×91 = 2,360 + 3,060 + 5,000 + 4,550 = 14,970
    expect(months[1]?.trading_value).toBe(14970);
  });

  it('does not modify its input', () => {
    const copy = structuredClone(bars);
    aggregateBars(bars, 'month');
    expect(bars).toEqual(copy);
  });
});
