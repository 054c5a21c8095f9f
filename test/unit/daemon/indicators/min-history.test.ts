/**
 * The registry's `min_history` and the calculations agree: with 10 days of
 * history, every indicator that needs more data is null — not 0, not computed on a
 * partial window — and the rest are correct. For every history length around each
 * declared minimum, a price- or index-based indicator must be null exactly when it has
 * fewer bars than it declares.
 */
import { describe, expect, it } from 'vitest';
import { computeStockIndicators, type StockSeries } from '../../../../daemon/indicators/compute.js';
import { INDICATORS } from '../../../../daemon/indicators/registry.js';
import type { DailyBar, IndexBar } from '../../../../daemon/kernel/records.js';

const TOTAL = 300;

/** Calendar days ending 2024-01-01, so from 2 bars on there is a close of the previous year (return_ytd's base). */
function dates(n: number): string[] {
  const end = Date.parse('2024-01-01T00:00:00Z');
  return Array.from({ length: n }, (_, i) => new Date(end - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** A rising, oscillating series (up and down days, a range every day) with volume on every bar. */
function bars(days: readonly string[]): DailyBar[] {
  return days.map((trade_date, i) => {
    const close = Math.round(1000 + 2 * i + 40 * Math.sin(i / 3));
    return {
      stock_code: '000001', trade_date, open_price: close - 3, high_price: close + 8, low_price: close - 9, close_price: close,
      volume: 1000 + 300 * (i % 7), trading_value: close * (1000 + 300 * (i % 7)), market_cap: null, shares_outstanding: null,
    };
  });
}

function index(days: readonly string[]): IndexBar[] {
  return days.map((trade_date, i) => ({
    market: 'KOSPI', trade_date, open: null, high: null, low: null, close: 2500 + i + 30 * Math.cos(i / 4), volume: null, trading_value: null,
  }));
}

const ALL_DAYS = dates(TOTAL);
const ALL_BARS = bars(ALL_DAYS);
const INDEX = index(ALL_DAYS);

/** Indicators read from prices (and the index) only; statements and cross-sections are checked elsewhere. */
const PRICE_BASED = INDICATORS.filter((d) => d.inputs.length > 0 && d.inputs.every((i) => i === 'prices' || i === 'index'));

/** Every declared minimum, one below it, and a few fixed lengths (10 = the real KRX folder). */
const LENGTHS = [...new Set([1, 2, 10, ...PRICE_BASED.flatMap((d) => [d.min_history - 1, d.min_history]), 260])]
  .filter((n) => n >= 1 && n <= TOTAL)
  .sort((a, b) => a - b);

function valuesWith(n: number) {
  const stock: StockSeries = {
    code: '000001', market: 'KOSPI', bars: ALL_BARS.slice(TOTAL - n), financials: [], shares_outstanding: 1_000_000, last_close: null, halted: false,
  };
  return computeStockIndicators(stock, INDEX, ALL_DAYS[TOTAL - 1]!);
}

describe('min_history of price-based indicators', () => {
  it('covers every price- and index-based indicator', () => {
    expect(PRICE_BASED.length).toBeGreaterThan(60);
    expect(PRICE_BASED.map((d) => d.id)).toContain('obv');
  });

  it.each(LENGTHS)('with %i bars, an indicator is null exactly when it declares more history', (n) => {
    // Given n bars of a series on which every indicator is defined once it has enough history
    // When every indicator is computed
    const values = valuesWith(n);
    // Then the null ones are exactly those that declare more than n bars
    const shouldBeNull = PRICE_BASED.filter((d) => d.min_history > n).map((d) => d.id);
    const isNull = PRICE_BASED.filter((d) => values[d.id] === null).map((d) => d.id);
    expect(isNull).toEqual(shouldBeNull);
  });
});

describe('obv over its fixed 20-day window', () => {
  it('does not depend on how much older history is loaded', () => {
    // Given the same last 21 bars with 0, 100 and 279 older bars before them
    const [a, b, c] = [21, 121, 300].map((n) => valuesWith(n).obv);
    // Then OBV is the same number: older bars do not move it
    expect(a).not.toBeNull();
    expect(b).toBe(a);
    expect(c).toBe(a);
  });
});
