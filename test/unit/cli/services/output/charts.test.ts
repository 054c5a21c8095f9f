import { describe, expect, it } from 'vitest';
import { brailleChart, fit, resample, sparkline } from '../../../../../cli/services/output/charts.js';

describe('sparkline', () => {
  it('maps min…max onto the eight bar heights', () => {
    // (v − 1) / (8 − 1) × 7 = v − 1: one bar per level.
    expect(sparkline([1, 2, 3, 4, 5, 6, 7, 8])).toBe('▁▂▃▄▅▆▇█');
    // 0 → level 0, 50 → round(3.5) = 4 (▅), 100 → level 7.
    expect(sparkline([0, 50, 100])).toBe('▁▅█');
  });

  it('keeps only the last `width` values and scales them on their own range', () => {
    // The tail [10, 20] spans 10…20, so 10 → ▁ and 20 → █ even though 1000 came before.
    expect(sparkline([1000, 10, 20], 2)).toBe('▁█');
  });

  it('draws a flat series at mid height and nothing for no values', () => {
    expect(sparkline([5, 5, 5])).toBe('▄▄▄');
    expect(sparkline([])).toBe('');
    expect(sparkline([Number.NaN, 1, 2])).toBe('▁█');
  });
});

describe('resample', () => {
  it('keeps the last value of each of `columns` equal buckets', () => {
    // 6 values into 3 buckets of 2: [1,2] [3,4] [5,6] → 2, 4, 6.
    expect(resample([1, 2, 3, 4, 5, 6], 3)).toEqual([2, 4, 6]);
    // 5 into 2: bucket ends at floor(1·5/2) − 1 = 1 and floor(2·5/2) − 1 = 4.
    expect(resample([10, 11, 12, 13, 14], 2)).toEqual([11, 14]);
    expect(resample([1, 2], 10)).toEqual([1, 2]);
  });
});

describe('fit', () => {
  it('interpolates a short series linearly to fill the columns', () => {
    // 0 → 3 over 4 columns: steps of 3 / (4 − 1) = 1.
    expect(fit([0, 3], 4)).toEqual([0, 1, 2, 3]);
    // 3 points over 5 columns: positions 0, 0.5, 1, 1.5, 2 → 10, 15, 20, 10, 0.
    expect(fit([10, 20, 0], 5)).toEqual([10, 15, 20, 10, 0]);
    expect(fit([1, 2, 3, 4, 5, 6], 3)).toEqual([2, 4, 6]);
  });
});

describe('brailleChart', () => {
  it('plots a rising line across two characters (checked dot by dot)', () => {
    // 4 points on one text row = 4 dot rows; levels 3,2,1,0 (bottom to top).
    // Char 1: left column row 3 (dot 7 = 0x40) + right column row 2 (dot 6 = 0x20) = 0x60 → U+2860 ⡠
    // Char 2: left column row 1 (dot 2 = 0x02) + right column row 0 (dot 4 = 0x08) = 0x0A → U+280A ⠊
    expect(brailleChart([0, 1, 2, 3], { width: 2, height: 1 })).toEqual(['\u2860\u280a']);
  });

  it('stretches a short series over the whole width', () => {
    // [0, 3] on 2 characters = 4 points → 0, 1, 2, 3: the same line as above.
    expect(brailleChart([0, 3], { width: 2, height: 1 })).toEqual(['\u2860\u280a']);
  });

  it('joins a jump with a vertical run so the line has no holes', () => {
    // Levels: 0 → row 3, 3 → row 0. Column 1 gets rows 2, 1, 0 (0x20 | 0x10 | 0x08 = 0x38),
    // column 0 row 3 (0x40): 0x78 → U+2878 ⡸
    expect(brailleChart([0, 3], { width: 1, height: 1 })).toEqual(['\u2878']);
  });

  it('spreads levels over several text rows, top row first', () => {
    // height 2 → 8 levels: 0 → level 7, 7 → level 0. Column 0 (left): level 7 = text row 1, dot row 3 → 0x40.
    // Column 1 (right) runs levels 6…0: text row 1 dot rows 2,1,0 → 0x20|0x10|0x08;
    // text row 0 dot rows 3,2,1,0 → 0x80|0x20|0x10|0x08 = 0xB8.
    // Row 0: U+28B8 ⢸; row 1: 0x40|0x38 = 0x78 → U+2878 ⡸
    expect(brailleChart([0, 7], { width: 1, height: 2 })).toEqual(['\u28b8', '\u2878']);
  });

  it('draws a flat series in the middle and nothing for an empty one', () => {
    // 4 levels: middle = floor(3 / 2) = 1 → dots 2 (0x02) and 5 (0x10) = 0x12 → U+2812 ⠒
    expect(brailleChart([7, 7], { width: 1, height: 1 })).toEqual(['\u2812']);
    expect(brailleChart([], { width: 5, height: 2 })).toEqual([]);
  });
});
