import { describe, expect, it } from 'vitest';
import { breakout, limitFlags, newHigh, priceLimits, tickSize } from '../../../../daemon/indicators/events.js';

describe('tickSize (KRX table since 2023-01-25)', () => {
  it('follows the 1/5/10/50/100/500/1000 won bands', () => {
    expect(tickSize(1_999)).toBe(1);
    expect(tickSize(2_000)).toBe(5);
    expect(tickSize(19_990)).toBe(10);
    expect(tickSize(20_000)).toBe(50);
    expect(tickSize(199_900)).toBe(100);
    expect(tickSize(200_000)).toBe(500);
    expect(tickSize(500_000)).toBe(1_000);
  });
});

describe('priceLimits', () => {
  it('is ±30% of the previous close on round prices', () => {
    // 10,000 × 1.3 = 13,000 (tick 10); × 0.7 = 7,000 (tick 10)
    expect(priceLimits(10_000)).toEqual({ upper: 13_000, lower: 7_000 });
  });

  it('rounds the upper limit down and the lower limit up to the tick', () => {
    // 15,550 × 1.3 = 20,215 → tick 50 → 20,200; × 0.7 = 10,885 → tick 10 → 10,890
    expect(priceLimits(15_550)).toEqual({ upper: 20_200, lower: 10_890 });
    // 1,234 × 1.3 = 1,604.2 → tick 1 → 1,604; × 0.7 = 863.8 → 864
    expect(priceLimits(1_234)).toEqual({ upper: 1_604, lower: 864 });
  });
});

describe('limitFlags', () => {
  it('flags a close at the upper or lower limit', () => {
    expect(limitFlags([15_550, 20_200])).toEqual({ limitUp: 1, limitDown: 0 });
    expect(limitFlags([15_550, 10_890])).toEqual({ limitUp: 0, limitDown: 1 });
    // One tick below the upper limit is not limit-up.
    expect(limitFlags([15_550, 20_150])).toEqual({ limitUp: 0, limitDown: 0 });
  });

  it('is null without a previous close', () => {
    expect(limitFlags([10_000])).toEqual({ limitUp: null, limitDown: null });
  });
});

describe('breakout and new highs', () => {
  it('breakout_20 compares the close with the highest high of the previous 20 bars', () => {
    const highs = new Array<number>(21).fill(100);
    const closes = new Array<number>(21).fill(95);
    closes[20] = 101;
    expect(breakout(highs, closes, 20)).toBe(1);
    closes[20] = 100; // equal is not above
    expect(breakout(highs, closes, 20)).toBe(0);
    expect(breakout(highs.slice(1), closes.slice(1), 20)).toBeNull();
  });

  it('new_high_52w is 1 when the high reaches the previous 251-day high', () => {
    const highs = new Array<number>(252).fill(100);
    highs[10] = 150;
    highs[251] = 150;
    expect(newHigh(highs, 251)).toBe(1);
    highs[251] = 149;
    expect(newHigh(highs, 251)).toBe(0);
    expect(newHigh(highs.slice(1), 251)).toBeNull();
  });
});
