import { describe, expect, it } from 'vitest';
import {
  atr,
  beta,
  bollinger,
  historicalVolatility,
  maxDrawdown,
} from '../../../../daemon/indicators/volatility.js';
import { expectNear, expectSeries } from './expect-close.js';
import {
  ATR_BARS,
  ATR_EXPECTED,
  BB_CLOSES,
  BB_LOWER_EXPECTED,
  BB_WIDTH_EXPECTED,
  col,
} from './stockcharts-fixtures.js';

describe('atr (Wilder, 14)', () => {
  it('matches the published StockCharts ATR table, first value on the 14th bar', () => {
    expectSeries(atr(col(ATR_BARS, 0), col(ATR_BARS, 1), col(ATR_BARS, 2), 14), ATR_EXPECTED, 13, 1e-6);
  });
});

describe('bollinger (20, 2σ population)', () => {
  const bb = bollinger(BB_CLOSES, 20, 2);

  it('matches the published lower band', () => {
    // The table shows bands rounded to 2 decimals.
    expectSeries(bb.lower, BB_LOWER_EXPECTED, 19, 0.006);
  });

  it('matches the published band width (upper − lower of rounded bands)', () => {
    BB_WIDTH_EXPECTED.forEach((w, k) => {
      const i = 19 + k;
      expectNear((bb.upper[i] ?? NaN) - (bb.lower[i] ?? NaN), w, 0.012, `width[${i}]`);
    });
  });

  it('derives %B and bandwidth from the bands', () => {
    // index 19: close 90.70, lower 86.12, upper 86.12 + 5.17 = 91.29
    // %B = (90.70 − 86.12) / 5.17 = 0.8859; middle = 88.7085 (Σ first 20 closes 1774.17 / 20)
    expectNear(bb.percentB[19], 0.8859, 0.003);
    // bandwidth = 5.17 / 88.7085 × 100 = 5.828%
    expectNear(bb.bandwidth[19], 5.828, 0.01);
    expectNear(bb.middle[19], 1774.17 / 20, 1e-9);
    expect(bb.upper[18]).toBeNull();
  });

  it('gives a null %B when the band has zero width', () => {
    const flat = bollinger(new Array<number>(20).fill(100), 20, 2);
    expect(flat.percentB[19]).toBeNull();
    expect(flat.bandwidth[19]).toBe(0);
  });
});

describe('historicalVolatility', () => {
  it('annualises the sample stdev of 20 daily log returns', () => {
    // Log returns alternate +0.01 / −0.01 (10 each): mean 0, sample variance 20 × 0.0001 / 19,
    // so σ = 0.01 × √(20/19) = 0.0102598; × √252 × 100 = 16.287%.
    const closes = [100];
    for (let i = 0; i < 20; i++) closes.push((closes[i] ?? 0) * Math.exp(i % 2 === 0 ? 0.01 : -0.01));
    expectNear(historicalVolatility(closes, 20), 16.287, 0.001);
  });

  it('is null with only 20 closes (19 returns)', () => {
    expect(historicalVolatility(new Array<number>(20).fill(100), 20)).toBeNull();
  });
});

describe('beta', () => {
  /** Index closes from returns 1% × sin(i), stock returns 1.5 × index return + 0.2%. */
  function build(days: number): { stock: number[]; index: number[] } {
    const stock = [1000];
    const index = [2000];
    for (let i = 1; i <= days; i++) {
      const rm = 0.01 * Math.sin(i);
      index.push((index[i - 1] ?? 0) * (1 + rm));
      stock.push((stock[i - 1] ?? 0) * (1 + 1.5 * rm + 0.002));
    }
    return { stock, index };
  }

  it('recovers the slope of stock returns on index returns (exactly 1.5 by construction)', () => {
    const { stock, index } = build(300);
    expectNear(beta(stock, index, 250, 120), 1.5, 1e-9);
  });

  it('is null with fewer than 120 overlapping returns', () => {
    const { stock, index } = build(300);
    // Remove the index on every other day in the window: no return has both days present.
    const sparse = index.map((v, i) => (i % 2 === 0 ? v : null));
    expect(beta(stock, sparse, 250, 120)).toBeNull();
    const short = build(119);
    expect(beta(short.stock, short.index, 250, 120)).toBeNull();
  });
});

describe('maxDrawdown', () => {
  it('is the worst fall from a running peak over 252 closes', () => {
    // 100 → peak 120 → trough 90 → 110: worst = 90 / 120 − 1 = −25%
    const closes = new Array<number>(252).fill(100);
    closes[100] = 120;
    for (let i = 101; i < 252; i++) closes[i] = i === 150 ? 90 : 110;
    expectNear(maxDrawdown(closes, 252), -25, 1e-9);
  });

  it('is 0 for a series that never falls and null with less than a year', () => {
    expect(maxDrawdown(Array.from({ length: 252 }, (_, i) => 100 + i), 252)).toBe(0);
    expect(maxDrawdown(new Array<number>(251).fill(100), 252)).toBeNull();
  });
});
