import { describe, expect, it } from 'vitest';
import {
  momentum,
  periodReturn,
  relativeStrength,
  windowMax,
  windowMin,
  ytdReturn,
} from '../../../../daemon/indicators/returns.js';
import { expectNear } from './expect-close.js';

/** closes[i] = 100 + i. */
const linear = (n: number): number[] => Array.from({ length: n }, (_, i) => 100 + i);

describe('periodReturn', () => {
  it('compares the last close with the close N trading days earlier', () => {
    // 6 closes 100..105, 5 days back: 105 / 100 − 1 = 5%
    expectNear(periodReturn(linear(6), 5), 5, 1e-12);
    // a halted stock's newer last close (110) replaces the last bar's close
    expectNear(periodReturn(linear(6), 5, 110), 10, 1e-12);
  });

  it('is null with N closes or fewer', () => {
    expect(periodReturn(linear(5), 5)).toBeNull();
  });
});

describe('momentum (12-1)', () => {
  it('runs from the close 252 days ago to the close 21 days ago', () => {
    // 253 closes 100..352: t−21 is index 231 → 331; t−252 is index 0 → 100; 331/100 − 1 = 231%
    expectNear(momentum(linear(253), 252, 21), 231, 1e-9);
    expect(momentum(linear(252), 252, 21)).toBeNull();
  });
});

describe('ytdReturn', () => {
  it('uses the last close before 1 January of the as-of year', () => {
    const dates = ['2024-12-27', '2024-12-30', '2025-01-02', '2025-01-03'];
    const closes = [90, 100, 104, 108];
    // 108 / 100 − 1 = 8%
    expectNear(ytdReturn(dates, closes, '2025-01-03', 108), 8, 1e-12);
  });

  it('is null when no bar precedes the year (listed this year)', () => {
    expect(ytdReturn(['2025-02-03', '2025-02-04'], [10, 11], '2025-02-04', 11)).toBeNull();
  });
});

describe('52-week extremes', () => {
  it('uses exactly the last 252 values and is null with fewer', () => {
    const highs = linear(260);
    // last 252 of 100..359 are 108..359
    expect(windowMax(highs, 252)).toBe(359);
    expect(windowMin(highs, 252)).toBe(108);
    expect(windowMax(linear(251), 252)).toBeNull();
  });
});

describe('relativeStrength', () => {
  it('subtracts the index return between the same dates', () => {
    // stock 100 → 120 (+20%), index 2000 → 2100 (+5%) over 63 days: 15 pp
    const stock = new Array<number>(64).fill(100);
    stock[63] = 120;
    const index: (number | null)[] = new Array<number | null>(64).fill(2000);
    index[63] = 2100;
    expectNear(relativeStrength(stock, index, 63), 15, 1e-9);
  });

  it('is null when the index has no close on either date', () => {
    const stock = new Array<number>(64).fill(100);
    const index: (number | null)[] = new Array<number | null>(64).fill(2000);
    index[0] = null;
    expect(relativeStrength(stock, index, 63)).toBeNull();
  });
});
