import { describe, expect, it } from 'vitest';
import {
  ema,
  pctChange,
  rollingMax,
  rollingMin,
  rollingStdDev,
  safeDiv,
  sampleStdDev,
  sma,
  wilderAverage,
} from '../../../../daemon/indicators/series.js';
import { expectNear, expectSeries } from './expect-close.js';
import { EMA10_EXPECTED, EMA_CLOSES } from './stockcharts-fixtures.js';

describe('sma', () => {
  it('averages each full window and leaves shorter prefixes null', () => {
    // [1,2,3,4,5], period 3: (1+2+3)/3 = 2, (2+3+4)/3 = 3, (3+4+5)/3 = 4
    expect(sma([1, 2, 3, 4, 5], 3)).toEqual([null, null, 2, 3, 4]);
  });

  it('is all null when there is less history than the period', () => {
    expect(sma([10, 20], 3)).toEqual([null, null]);
  });

  it('never averages a window that contains a null', () => {
    // windows: [1,null] → null, [null,3] → null, [3,5] → 4
    expect(sma([1, null, 3, 5], 2)).toEqual([null, null, null, 4]);
  });
});

describe('ema', () => {
  it('matches the published StockCharts 10-day EMA table (SMA seed, α = 2/11)', () => {
    // The published table rounds every step to 2 decimals, hence the 0.011 tolerance.
    expectSeries(ema(EMA_CLOSES, 10), EMA10_EXPECTED, 9, 0.011);
  });

  it('starts after leading nulls', () => {
    // seed = (2+4)/2 = 3 at index 2; then (6 − 3) × 2/3 + 3 = 5
    expect(ema([null, 2, 4, 6], 2)).toEqual([null, null, 3, 5]);
  });
});

describe('wilderAverage', () => {
  it('seeds with the simple mean and then smooths with (prev × (n−1) + v) / n', () => {
    // period 3 from index 1: seed = (3+6+9)/3 = 6 at index 3; next = (6×2 + 12)/3 = 8
    expect(wilderAverage([100, 3, 6, 9, 12], 3, 1)).toEqual([null, null, null, 6, 8]);
  });
});

describe('rolling extremes', () => {
  it('tracks the max and min of each full window', () => {
    const v = [5, 1, 4, 2, 8, 3];
    // windows of 3: [5,1,4] [1,4,2] [4,2,8] [2,8,3]
    expect(rollingMax(v, 3)).toEqual([null, null, 5, 4, 8, 8]);
    expect(rollingMin(v, 3)).toEqual([null, null, 1, 1, 2, 2]);
  });
});

describe('standard deviations', () => {
  it('computes the population deviation of each window', () => {
    // [2,4,4,4,5,5,7,9]: mean 5, squared deviations sum 32, /8 = 4 → σ = 2
    const sd = rollingStdDev([2, 4, 4, 4, 5, 5, 7, 9], 8);
    expect(sd.slice(0, 7).every((v) => v === null)).toBe(true);
    expectNear(sd[7], 2, 1e-12);
  });

  it('computes the sample deviation with n − 1', () => {
    // [2,4,4,4,5,5,7,9]: 32 / 7 → √4.5714… = 2.13809
    expectNear(sampleStdDev([2, 4, 4, 4, 5, 5, 7, 9]), Math.sqrt(32 / 7), 1e-12);
    expect(sampleStdDev([1])).toBeNull();
  });
});

describe('null-safe arithmetic', () => {
  it('returns null on division by zero or missing operands', () => {
    expect(safeDiv(1, 0)).toBeNull();
    expect(safeDiv(null, 2)).toBeNull();
    expect(safeDiv(6, 3)).toBe(2);
  });

  it('computes percent changes only against a positive base', () => {
    expect(pctChange(110, 100)).toBeCloseTo(10, 12);
    expect(pctChange(110, 0)).toBeNull();
    expect(pctChange(110, -5)).toBeNull();
  });
});
