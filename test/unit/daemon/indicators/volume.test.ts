import { describe, expect, it } from 'vitest';
import { cmf, meanBeforeLast, obv, obvWindow } from '../../../../daemon/indicators/volume.js';
import { expectNear } from './expect-close.js';
import { ACCUM_BARS, ACCUM_MFV, OBV_CLOSES, OBV_EXPECTED, OBV_VOLUMES, col } from './stockcharts-fixtures.js';

describe('obv', () => {
  it('matches the published StockCharts OBV table', () => {
    const series = obv(OBV_CLOSES, OBV_VOLUMES);
    expect(series[0]).toBe(0);
    expect(series.slice(1)).toEqual(OBV_EXPECTED);
  });
});

describe('obvWindow (20)', () => {
  it('equals the published OBV today minus the published OBV 20 bars earlier', () => {
    // Given the StockCharts table (30 closes; OBV 54,300 on the last day, 27,500 on day 10)
    // When OBV is taken over the last 20 daily changes
    // Then it is 54,300 − 27,500, whatever came before day 10
    expect(obvWindow(OBV_CLOSES, OBV_VOLUMES, 20)).toBe(54_300 - 27_500);
    expect(obvWindow(OBV_CLOSES.slice(5), OBV_VOLUMES.slice(5), 20)).toBe(54_300 - 27_500);
  });

  it('is null with fewer than 21 bars, and counts an unchanged close as nothing', () => {
    expect(obvWindow(OBV_CLOSES.slice(10), OBV_VOLUMES.slice(10), 20)).toBeNull();
    expect(obvWindow(new Array<number>(21).fill(10), new Array<number>(21).fill(500), 20)).toBe(0);
  });
});

describe('cmf (20)', () => {
  const series = cmf(col(ACCUM_BARS, 0), col(ACCUM_BARS, 1), col(ACCUM_BARS, 2), col(ACCUM_BARS, 3), 20);

  it('equals Σ published money-flow volume / Σ volume over 20 days', () => {
    // Days 1–20: Σ MFV = −27144.0057, Σ volume = 223675.891 → −0.121354
    expectNear(series[19], -27144.0057 / 223675.891, 1e-5);
    // Days 11–30: Σ MFV = −3070.1641, Σ volume = 204850.207 → −0.014987
    expectNear(series[29], -3070.1641 / 204850.207, 1e-5);
    // Every window, summed straight from the published columns.
    for (let end = 19; end < 30; end++) {
      const mfv = ACCUM_MFV.slice(end - 19, end + 1).reduce((a, b) => a + b, 0);
      const vol = col(ACCUM_BARS, 3).slice(end - 19, end + 1).reduce((a, b) => a + b, 0);
      expectNear(series[end], mfv / vol, 1e-5, `cmf[${end}]`);
    }
    expect(series[18]).toBeNull();
  });

  it('treats a bar with high = low as zero money flow and is null without volume', () => {
    const h = new Array<number>(20).fill(10);
    expect(cmf(h, h, h, new Array<number>(20).fill(100), 20)[19]).toBe(0);
    expect(cmf(h, h, h, new Array<number>(20).fill(0), 20)[19]).toBeNull();
  });
});

describe('meanBeforeLast', () => {
  it('averages the values before the last one', () => {
    // [1..21] period 20: mean of 1..20 = 10.5 (today's 21 excluded)
    expect(meanBeforeLast(Array.from({ length: 21 }, (_, i) => i + 1), 20)).toBe(10.5);
    expect(meanBeforeLast(new Array<number>(20).fill(1), 20)).toBeNull();
  });
});
