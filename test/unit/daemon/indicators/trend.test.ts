import { describe, expect, it } from 'vitest';
import { directionalMovement, macd, maAlignment, recentCrosses } from '../../../../daemon/indicators/trend.js';
import { expectNear, expectSeries } from './expect-close.js';
import { ADX_BARS, ADX_DI_EXPECTED, ADX_EXPECTED, col } from './stockcharts-fixtures.js';

describe('directional movement (Wilder, 14)', () => {
  const highs = col(ADX_BARS, 0);
  const lows = col(ADX_BARS, 1);
  const closes = col(ADX_BARS, 2);

  it('matches the published StockCharts +DI14 and −DI14', () => {
    const { plusDi, minusDi } = directionalMovement(highs, lows, closes, 14);
    for (const [i, plus, minus] of ADX_DI_EXPECTED) {
      expectNear(plusDi[i], plus, 1e-4, `+DI[${i}]`);
      expectNear(minusDi[i], minus, 1e-4, `−DI[${i}]`);
    }
    // DI needs 14 changes, i.e. 15 bars.
    expect(plusDi[13]).toBeNull();
  });

  it('matches the published StockCharts ADX, first value on the 28th bar', () => {
    expectSeries(directionalMovement(highs, lows, closes, 14).adx, ADX_EXPECTED, 27, 1e-4);
  });
});

describe('macd', () => {
  it('is EMA(fast) − EMA(slow) with an EMA signal line (hand-computed, periods 2/3/2)', () => {
    // closes 10 12 11 15 14 18
    // EMA2 (α 2/3, seed (10+12)/2 = 11): 11, 11, 41/3, 125/9, 449/27
    // EMA3 (α 1/2, seed (10+12+11)/3 = 11): 11, 13, 13.5, 63/4
    // MACD: idx2 0, idx3 2/3, idx4 7/18, idx5 449/27 − 63/4 = 95/108
    // signal (EMA2 of MACD, seed (0 + 2/3)/2 = 1/3 at idx3): 10/27, 230/324
    // histogram idx5: 95/108 − 230/324 = 55/324
    const m = macd([10, 12, 11, 15, 14, 18], 2, 3, 2);
    expect(m.macd.slice(0, 2)).toEqual([null, null]);
    expectNear(m.macd[2], 0, 1e-12);
    expectNear(m.macd[3], 2 / 3, 1e-12);
    expectNear(m.macd[4], 7 / 18, 1e-12);
    expectNear(m.macd[5], 95 / 108, 1e-12);
    expect(m.signal[2]).toBeNull();
    expectNear(m.signal[3], 1 / 3, 1e-12);
    expectNear(m.signal[4], 10 / 27, 1e-12);
    expectNear(m.signal[5], 230 / 324, 1e-12);
    expectNear(m.histogram[5], 55 / 324, 1e-12);
  });

  it('has no signal before 34 closes with the standard 12/26/9', () => {
    const closes = Array.from({ length: 40 }, (_, i) => 100 + Math.sin(i));
    const m = macd(closes);
    expect(m.macd[24]).toBeNull();
    expect(m.macd[25]).not.toBeNull();
    expect(m.signal[32]).toBeNull();
    expect(m.signal[33]).not.toBeNull();
  });
});

describe('maAlignment', () => {
  it('is 1 for 정배열, −1 for 역배열, 0 otherwise, null when an average is missing', () => {
    expect(maAlignment([50, 40, 30, 20])).toBe(1);
    expect(maAlignment([20, 30, 40, 50])).toBe(-1);
    expect(maAlignment([50, 40, 40, 20])).toBe(0);
    expect(maAlignment([50, 40, null, 20])).toBeNull();
  });
});

describe('recentCrosses', () => {
  it('flags a golden cross on the last day', () => {
    const fast = [1, 1, 1, 1, 1, 1, 3];
    const slow = [2, 2, 2, 2, 2, 2, 2];
    expect(recentCrosses(fast, slow, 5)).toEqual({ golden: 1, dead: 0 });
  });

  it('ignores a cross older than the lookback', () => {
    // The cross happens on day 1; the last 5 days are 2..6.
    expect(recentCrosses([1, 3, 3, 3, 3, 3, 3], [2, 2, 2, 2, 2, 2, 2], 5)).toEqual({ golden: 0, dead: 0 });
  });

  it('flags a dead cross and is null without enough averages', () => {
    expect(recentCrosses([3, 3, 3, 3, 3, 1], [2, 2, 2, 2, 2, 2], 5)).toEqual({ golden: 0, dead: 1 });
    expect(recentCrosses([3, 3, 3, 3, 3, 1], [null, 2, 2, 2, 2, 2], 5)).toEqual({ golden: null, dead: null });
  });
});
