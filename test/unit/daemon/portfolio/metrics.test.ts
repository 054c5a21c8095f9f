import { describe, expect, it } from 'vitest';
import { computePerformance, periodStart } from '../../../../daemon/portfolio/metrics.js';
import { buildValueSeries, type PositionHistory } from '../../../../daemon/portfolio/value-series.js';

/*
 * A hand-computed two-stock portfolio over five trading days d0..d4
 * (2024-12-27, 12-30, 2025-01-02, 01-03, 01-06):
 *   A: 10 shares held from d0, closes 100, 110, 99, 99, 99
 *   B:  1 share  held from d2, closes (900, 950 before it is held), 1010, 1110, 1068
 * Values Σ q × close: d0 1,000; d1 1,100; d2 990 + 1,010 = 2,000; d3 990 + 1,110 = 2,100; d4 990 + 1,068 = 2,058.
 * Time-weighted daily returns, on the positions held the day before (B's purchase is not a gain):
 *   r1 = 1,100 / 1,000 − 1 = +0.10; r2 = 990 / 1,100 − 1 = −0.10 (A only);
 *   r3 = 2,100 / 2,000 − 1 = +0.05; r4 = 2,058 / 2,100 − 1 = −0.02.
 * Growth index: 1, 1.1, 0.99, 1.0395, 1.01871 → total +1.871%.
 */
const D = ['2024-12-27', '2024-12-30', '2025-01-02', '2025-01-03', '2025-01-06'] as const;
const closes = (values: number[], dates: readonly string[] = D) => values.map((close, i) => ({ date: dates[i]!, close }));
const POSITIONS: PositionHistory[] = [
  { code: 'A', quantity: 10, acquired_at: D[0], closes: closes([100, 110, 99, 99, 99]) },
  { code: 'B', quantity: 1, acquired_at: D[2], closes: closes([900, 950, 1010, 1110, 1068]) },
];
// KOSPI daily returns +2%, −2%, +1%, −1%: 2,500 → 2,550 → 2,499 → 2,523.99 → 2,498.7501
const KOSPI = new Map<string, number>([[D[0], 2500], [D[1], 2550], [D[2], 2499], [D[3], 2523.99], [D[4], 2498.7501]]);

describe('value series', () => {
  it('sums quantity × close from each acquisition and measures time-weighted returns', () => {
    const s = buildValueSeries(POSITIONS);
    expect(s.dates).toEqual([...D]);
    expect(s.values).toEqual([1000, 1100, 2000, 2100, 2058]);
    const expected = [0, 0.1, -0.1, 0.05, -0.02];
    s.returns.forEach((r, i) => expect(r).toBeCloseTo(expected[i]!, 12));
    [1, 1.1, 0.99, 1.0395, 1.01871].forEach((w, i) => expect(s.wealth[i]).toBeCloseTo(w, 12));
  });

  it('carries a close forward over a day without a bar (a halt)', () => {
    // X: 2 shares, no bar on d1 → valued at the d0 close 50; d2 close 55.
    // Y: 1 share, closes 100 every day. Values: 200, 200, 210; r2 = 210 / 200 − 1 = 0.05.
    const s = buildValueSeries([
      { code: 'X', quantity: 2, acquired_at: D[0], closes: [{ date: D[0], close: 50 }, { date: D[2], close: 55 }] },
      { code: 'Y', quantity: 1, acquired_at: D[0], closes: closes([100, 100, 100], D.slice(0, 3)) },
    ]);
    expect(s.values).toEqual([200, 200, 210]);
    expect(s.returns[2]).toBeCloseTo(0.05, 12);
  });

  it('is empty without positions', () => {
    expect(buildValueSeries([])).toEqual({ dates: [], values: [], returns: [], wealth: [] });
  });
});

describe('performance statistics', () => {
  // The hand-checked figures below use 4 daily returns: the minimum is lowered to match.
  const stats = computePerformance(buildValueSeries(POSITIONS), KOSPI, 0.03, { minDays: 2 });

  it('compounds the period returns from the right anchor day', () => {
    // 1W: 2025-01-06 − 7 days = 12-30 → anchor d1: 1.01871 / 1.1 − 1 = −7.39%
    // YTD: anchor = last day on or before 2024-12-31 = d1 → −7.39%
    // 1M, 3M, 6M, 1Y start before the history → since d0: +1.871%
    expect(stats.returns['1W']).toBeCloseTo(-7.39, 9);
    expect(stats.returns.YTD).toBeCloseTo(-7.39, 9);
    for (const p of ['1M', '3M', '6M', '1Y'] as const) expect(stats.returns[p]).toBeCloseTo(1.871, 9);
    expect(stats.window).toEqual({ from: D[0], to: D[4], days: 4 });
  });

  it('annualises the sample volatility with √252', () => {
    // mean r = (0.10 − 0.10 + 0.05 − 0.02) / 4 = 0.0075; deviations 0.0925, −0.1075, 0.0425, −0.0275
    // squares 0.00855625 + 0.01155625 + 0.00180625 + 0.00075625 = 0.022675; / 3 = 0.0075583…; sd = 0.0869387
    // 0.0869387 × 15.874508 = 1.380109 → 138.0109%
    expect(stats.volatility_percent).toBeCloseTo(138.0109, 3);
  });

  it('measures the max drawdown on the growth index, not on the value (a purchase is no recovery)', () => {
    // peak 1.1 (d1) → trough 0.99 (d2): 0.11 / 1.1 = 10%; the value rose 1,100 → 2,000 meanwhile
    expect(stats.max_drawdown_percent).toBeCloseTo(10, 9);
  });

  it('computes the Sharpe ratio against the daily risk-free rate', () => {
    // (0.0075 − 0.03 / 252) / 0.0869387 × 15.874508 = (0.0075 − 0.000119048) / 0.0869387 × 15.874508 = 1.34772
    expect(stats.sharpe_ratio).toBeCloseTo(1.34772, 4);
  });

  it('computes beta and the excess return against KOSPI', () => {
    // index returns m: 0.02, −0.02, 0.01, −0.01 (mean 0)
    // cov = (0.0925×0.02 + 0.1075×0.02 + 0.0425×0.01 + 0.0275×0.01) / 3 = 0.0047 / 3; var m = 0.001 / 3 → beta 4.7
    expect(stats.beta).toBeCloseTo(4.7, 9);
    // KOSPI: 1.02 × 0.98 × 1.01 × 0.99 − 1 = −0.049996%; excess = 1.871 + 0.049996 = 1.920996 points
    expect(stats.benchmark_return_percent).toBeCloseTo(-0.049996, 6);
    expect(stats.excess_return_percent).toBeCloseTo(1.920996, 6);
  });

  it('leaves beta and the benchmark unset without index data, and Sharpe unset without variance', () => {
    const flat = computePerformance(buildValueSeries([{ code: 'F', quantity: 1, acquired_at: D[0], closes: closes([10, 10, 10]) }]), new Map(), 0.03, { minDays: 2 });
    expect(flat.beta).toBeNull();
    expect(flat.benchmark_return_percent).toBeNull();
    expect(flat.excess_return_percent).toBeNull();
    expect(flat.volatility_percent).toBe(0);
    expect(flat.sharpe_ratio).toBeNull();
    expect(flat.unavailable).toEqual({
      sharpe_ratio: 'undefined: the value did not move',
      beta: 'needs 2 daily returns with KOSPI closes; has 0',
      benchmark_return_percent: 'no KOSPI closes over the window',
      excess_return_percent: 'no KOSPI closes over the window',
    });
  });

  it('leaves volatility, Sharpe and beta null with the reason below 20 daily returns (the default), never 0', () => {
    // Given the same 5-day history with the default minimum
    const short = computePerformance(buildValueSeries(POSITIONS), KOSPI, 0.03);
    // Then the figures that need a longer history are null and say why; the rest are computed
    expect([short.volatility_percent, short.sharpe_ratio, short.beta]).toEqual([null, null, null]);
    expect(short.unavailable).toEqual({ volatility_percent: 'needs 20 daily returns; has 4', sharpe_ratio: 'needs 20 daily returns; has 4', beta: 'needs 20 daily returns with KOSPI closes; has 4' });
    expect(short.returns['1W']).toBeCloseTo(-7.39, 9);
  });

  it('gives nulls for a single day of history: nothing to compare with', () => {
    const one = computePerformance(buildValueSeries([{ code: 'N', quantity: 1, acquired_at: D[4], closes: closes([10, 10, 10, 10, 11]) }]), KOSPI, 0.03);
    expect(one.returns).toEqual({ '1W': null, '1M': null, '3M': null, '6M': null, YTD: null, '1Y': null });
    expect(one.max_drawdown_percent).toBeNull();
    expect(one.unavailable.returns).toBe('needs 2 trading days of history; has 1');
  });

  it('gives nulls, each with its reason, for an empty portfolio', () => {
    const empty = computePerformance(buildValueSeries([]), KOSPI, 0.03);
    expect(empty.returns).toEqual({ '1W': null, '1M': null, '3M': null, '6M': null, YTD: null, '1Y': null });
    expect([empty.volatility_percent, empty.max_drawdown_percent, empty.sharpe_ratio, empty.beta, empty.excess_return_percent]).toEqual([null, null, null, null, null]);
    expect(empty.unavailable.sharpe_ratio).toBe('no trading day with a close since the holdings were acquired');
  });
});

describe('period start dates', () => {
  it('counts calendar periods back from the last day, clamping month ends', () => {
    expect(periodStart('1W', '2025-03-05')).toBe('2025-02-26');
    expect(periodStart('1M', '2025-03-31')).toBe('2025-02-28');
    expect(periodStart('3M', '2025-05-31')).toBe('2025-02-28');
    expect(periodStart('6M', '2025-08-31')).toBe('2025-02-28');
    expect(periodStart('1Y', '2024-02-29')).toBe('2023-02-28');
    expect(periodStart('YTD', '2025-06-15')).toBe('2024-12-31');
  });
});
