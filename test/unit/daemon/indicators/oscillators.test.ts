import { describe, expect, it } from 'vitest';
import {
  cci,
  fastStochastic,
  mfi,
  psychologicalLine,
  rsi,
  slowStochastic,
  williamsR,
} from '../../../../daemon/indicators/oscillators.js';
import { expectNear, expectSeries } from './expect-close.js';
import {
  CCI_BARS,
  CCI_EXPECTED,
  MFI_BARS,
  MFI_EXPECTED,
  RSI_CLOSES,
  RSI_EXPECTED,
  SOO_CLOSES_FROM_13,
  SOO_FAST_K,
  SOO_HIGHS,
  SOO_LOWS,
  SOO_SLOW_K_FROM_16,
  col,
} from './stockcharts-fixtures.js';

// The stochastic table has no closes before index 13; %K never reads them, so any
// in-range filler works (the bar's midpoint here).
const SOO_CLOSES = SOO_HIGHS.map((h, i) => (i < 13 ? (h + (SOO_LOWS[i] ?? h)) / 2 : (SOO_CLOSES_FROM_13[i - 13] ?? NaN)));

describe('rsi (Wilder)', () => {
  it('matches the published StockCharts 14-day RSI table', () => {
    expectSeries(rsi(RSI_CLOSES, 14), RSI_EXPECTED, 14, 0.005);
  });

  it('is null with fewer than 15 closes (14 changes)', () => {
    expect(rsi(RSI_CLOSES.slice(0, 14), 14).every((v) => v === null)).toBe(true);
  });

  it('is 100 when prices only rose and null when they never moved', () => {
    const rising = Array.from({ length: 16 }, (_, i) => 100 + i);
    expect(rsi(rising, 14).at(-1)).toBe(100);
    expect(rsi(new Array<number>(16).fill(100), 14).at(-1)).toBeNull();
  });
});

describe('stochastic', () => {
  it('matches the published fast %K (14)', () => {
    expectSeries(fastStochastic(SOO_HIGHS, SOO_LOWS, SOO_CLOSES, 14), SOO_FAST_K, 13, 1e-4);
  });

  it('slow %K (14,3,3) equals the published 3-day SMA of fast %K', () => {
    const { k } = slowStochastic(SOO_HIGHS, SOO_LOWS, SOO_CLOSES, 14, 3, 3);
    // The table starts its 3-day SMA one row late (index 16); index 15 is (70.438+67.609+89.202)/3 = 75.750.
    expectNear(k[15], (70.43822 + 67.608909 + 89.202108) / 3, 1e-4);
    expectSeries(k.slice(16), SOO_SLOW_K_FROM_16, 0, 1e-4);
    expect(k[14]).toBeNull();
  });

  it('slow %D is the 3-day SMA of slow %K', () => {
    const { d } = slowStochastic(SOO_HIGHS, SOO_LOWS, SOO_CLOSES, 14, 3, 3);
    // index 18: (74.20719 + 78.920124 + 70.694021) / 3 = 74.607112
    expectNear(d[18], 74.607112, 1e-4);
    // index 29: (47.242825 + 49.200251 + 54.64869) / 3 = 50.363922
    expectNear(d[29], 50.363922, 1e-4);
    expect(d[16]).toBeNull();
  });
});

describe('williams %R', () => {
  it('is fast %K − 100 on the published stochastic table', () => {
    // %R = (HH − C)/(HH − LL) × −100 = %K − 100, e.g. 70.43822 − 100 = −29.56178
    const r = williamsR(SOO_HIGHS, SOO_LOWS, SOO_CLOSES, 14);
    expectSeries(r, SOO_FAST_K.map((k) => k - 100), 13, 1e-4);
  });

  it('is null when the 14-day range is zero', () => {
    const flat = new Array<number>(14).fill(50);
    expect(williamsR(flat, flat, flat, 14).at(-1)).toBeNull();
  });
});

describe('cci', () => {
  it('matches the published StockCharts 20-day CCI table', () => {
    expectSeries(cci(col(CCI_BARS, 0), col(CCI_BARS, 1), col(CCI_BARS, 2), 20), CCI_EXPECTED, 19, 1e-3);
  });
});

describe('mfi', () => {
  it('matches the published StockCharts 14-day MFI table', () => {
    const series = mfi(col(MFI_BARS, 0), col(MFI_BARS, 1), col(MFI_BARS, 2), col(MFI_BARS, 3), 14);
    expectSeries(series, MFI_EXPECTED, 14, 1e-4);
  });

  it('is 100 with no negative money flow in the window', () => {
    const up = Array.from({ length: 15 }, (_, i) => 10 + i);
    expect(mfi(up, up, up, new Array<number>(15).fill(1000), 14).at(-1)).toBe(100);
  });
});

describe('psychological line', () => {
  it('is the share of up closes among the last 10 changes', () => {
    // changes: +1 −1 +1 +1 0 +1 −1 +1 +1 +1 → 7 ups of 10 = 70%
    const closes = [10, 11, 10, 11, 12, 12, 13, 12, 13, 14, 15];
    const psy = psychologicalLine(closes, 10);
    expect(psy[10]).toBeCloseTo(70, 12);
    expect(psy[9]).toBeNull();
  });
});
