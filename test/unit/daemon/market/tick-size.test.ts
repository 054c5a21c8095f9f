import { describe, it, expect } from 'vitest';
import { isOnTick, priceLimits, roundToTick, tickSize } from '../../../../daemon/kernel/tick-size.js';

describe('tickSize', () => {
  it('uses the unified 2023 KRX table at every band edge', () => {
    // Given prices just below and at each band boundary
    const cases: [number, number][] = [
      [1, 1], [1_999, 1], [2_000, 5], [4_995, 5], [5_000, 10], [19_990, 10], [20_000, 50],
      [49_950, 50], [50_000, 100], [199_900, 100], [200_000, 500], [499_500, 500], [500_000, 1_000],
      [1_007_000, 1_000],
    ];
    // Then the tick is the one of the band the price falls in
    for (const [price, tick] of cases) expect(tickSize(price), `price ${price}`).toBe(tick);
  });

  it('rejects negative and non-finite prices', () => {
    expect(() => tickSize(-1)).toThrow(RangeError);
    expect(() => tickSize(Number.NaN)).toThrow(RangeError);
  });
});

describe('roundToTick', () => {
  it('rounds down, up and to the nearest tick (half up)', () => {
    // 12,345 is in the 10-won band: 12,340 below, 12,350 above, exactly half-way.
    expect(roundToTick(12_345, 'down')).toBe(12_340);
    expect(roundToTick(12_345, 'up')).toBe(12_350);
    expect(roundToTick(12_345, 'nearest')).toBe(12_350);
    expect(roundToTick(12_344)).toBe(12_340);
    // 199,450 is in the 100-won band: 1,994.5 ticks → 1,995 ticks = 199,500.
    expect(roundToTick(199_450)).toBe(199_500);
  });

  it('lands on a valid price when rounding up across a band boundary', () => {
    // 4,998 (5-won band) rounds up to 5,000, which is also a valid 10-won price.
    expect(roundToTick(4_998, 'up')).toBe(5_000);
    expect(isOnTick(5_000)).toBe(true);
    expect(roundToTick(19_995, 'up')).toBe(20_000);
  });

  it('leaves prices already on the grid unchanged', () => {
    for (const p of [1_537, 4_995, 18_140, 55_600, 259_000, 1_309_000]) {
      expect(roundToTick(p, 'down')).toBe(p);
      expect(roundToTick(p, 'up')).toBe(p);
    }
  });
});

describe('isOnTick', () => {
  it('accepts grid prices and refuses off-grid, zero and negative ones', () => {
    expect(isOnTick(5_510)).toBe(true);
    expect(isOnTick(5_515)).toBe(false); // 10-won band
    expect(isOnTick(24_730)).toBe(false); // 50-won band
    expect(isOnTick(0)).toBe(false);
    expect(isOnTick(-10)).toBe(false);
  });
});

describe('priceLimits', () => {
  it('gives ±30% for a round base price', () => {
    // 10,000: width 3,000 → 13,000 / 7,000, both on the 10-won grid.
    expect(priceLimits(10_000)).toEqual({ upper: 13_000, lower: 7_000 });
  });

  it('rounds the upper limit down and the lower limit up onto the tick grid', () => {
    // 199,400 (tick 100): width 59,820 → 59,800; 259,200 is in the 500 band → 259,000;
    // 139,600 is in the 100 band and already on it.
    expect(priceLimits(199_400)).toEqual({ upper: 259_000, lower: 139_600 });
    // 1,007,000 (tick 1,000): width 302,100 → 302,000; 1,309,000 and 705,000 (500 band) are on grid.
    expect(priceLimits(1_007_000)).toEqual({ upper: 1_309_000, lower: 705_000 });
    // 1,537 (tick 1): width 461.1 → 461; 1,998 / 1,076.
    expect(priceLimits(1_537)).toEqual({ upper: 1_998, lower: 1_076 });
  });

  it('matches limit moves observed in the real KRX files (2026-03)', () => {
    // [previous close, price at the limit that day] read from listing/*.csv
    // 대한광통신 4,245 → 5,510: width 1,273.5 → 1,270 (tick 5); 5,515 → 5,510 (tick 10)
    expect(priceLimits(4_245).upper).toBe(5_510);
    // 레이저쎌 3,995 → 5,190: width 1,198.5 → 1,195; 5,190 on the 10-won grid
    expect(priceLimits(3_995).upper).toBe(5_190);
    // 케이엠더블유 19,030 → 24,700: width 5,709 → 5,700; 24,730 → 24,700 (tick 50)
    expect(priceLimits(19_030).upper).toBe(24_700);
    // 안트로젠 42,800 → 55,600: width 12,840 → 12,800 (tick 50)
    expect(priceLimits(42_800).upper).toBe(55_600);
    // 디에이치엑스컴퍼니 475 → 617: width 142.5 → 142
    expect(priceLimits(475).upper).toBe(617);
    // 뉴인텍 548 → 384: width 164.4 → 164
    expect(priceLimits(548).lower).toBe(384);
    // 펄어비스 65,600 → 46,000: width 19,680 → 19,600 (tick 100)
    expect(priceLimits(65_600).lower).toBe(46_000);
  });

  it('rejects a non-positive base price', () => {
    expect(() => priceLimits(0)).toThrow(RangeError);
  });
});
