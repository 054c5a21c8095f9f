import { describe, expect, it } from 'vitest';
import { blockRows, chartModel, resample, sparkline } from '../../../../../cli/services/output/chart.js';

describe('price chart geometry', () => {
  it('draws a rising series as rising blocks, and a flat one at half height', () => {
    expect(sparkline([1, 2, 3, 4, 5, 6, 7, 8])).toBe('▁▂▃▄▅▆▇█'); // (v − 1) / 7 × 7 = v − 1
    expect(sparkline([5, 5, 5])).toBe('▄▄▄');
  });

  it('fills columns in eighths of a cell over several rows', () => {
    // Two rows = 16 eighths. 0 → 1 eighth (the minimum stays visible), 10 → 16 eighths (two full cells).
    expect(blockRows([0, 10], 2)).toEqual([' █', '▁█']);
    // One row: 0 → 1, 5 → round(0.5 × 7) + 1 = 5 (▅), 10 → 8 (█).
    expect(blockRows([0, 5, 10], 1)).toEqual(['▁▅█']);
    // 0, 7.5, 15 over two rows: 7.5 → round(0.5 × 15) + 1 = 9 eighths = a full bottom cell and ▁ on top.
    expect(blockRows([0, 7.5, 15], 2)).toEqual([' ▁█', '▁██']);
  });

  it('resamples long series to the width, keeping the last value of each bucket', () => {
    const ten = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    expect(resample(ten, 5)).toEqual([1, 3, 5, 7, 9]);
    expect(resample(ten, 3)).toEqual([3, 6, 9]); // buckets 0–3, 4–6, 7–9
    expect(resample([4, 5], 10)).toEqual([4, 5]);
  });

  it('describes the range and the change from first to last close', () => {
    const model = chartModel([{ date: '2026-03-19', value: 200 }, { date: '2026-03-20', value: 150 }, { date: '2026-03-23', value: 220 }], 3, 1)!;
    // One row of 8 eighths: 200 → round(50/70 × 7) + 1 = round(5.0) + 1 = 6 (▆), 150 → 1 (▁), 220 → 8 (█).
    expect(model.rows).toEqual(['▆▁█']);
    expect([model.min, model.max, model.first.date, model.last.date]).toEqual([150, 220, '2026-03-19', '2026-03-23']);
    expect(model.changePercent).toBeCloseTo(10, 10); // (220 − 200) / 200 × 100
    expect(chartModel([], 10, 2)).toBeNull();
  });
});
