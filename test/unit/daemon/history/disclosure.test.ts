import { describe, expect, it } from 'vitest';
import { disclosureDeadline, quarterEnd } from '../../../../daemon/history/disclosure.js';
import { depthFor } from '../../../../daemon/history/point-indicators.js';
import { dayOnOrBefore } from '../../../../daemon/history/market-history.js';

describe('statutory disclosure deadlines', () => {
  it('ends quarters on the last day of their month, for December and other settlement months', () => {
    expect([1, 2, 3, 4].map((q) => quarterEnd(2024, q))).toEqual(['2024-03-31', '2024-06-30', '2024-09-30', '2024-12-31']);
    // A March year-end: fiscal 2024 runs April 2023 – March 2024.
    expect([1, 2, 3, 4].map((q) => quarterEnd(2024, q, 3))).toEqual(['2023-06-30', '2023-09-30', '2023-12-31', '2024-03-31']);
    expect(quarterEnd(2024, 1, 2)).toBe('2023-05-31');
  });

  it('allows 45 days after a quarter and 90 after the fiscal year', () => {
    expect(disclosureDeadline(2024, 1)).toBe('2024-05-15');
    expect(disclosureDeadline(2024, 3)).toBe('2024-11-14');
    expect(disclosureDeadline(2024, 4)).toBe('2025-03-31');
    expect(disclosureDeadline(2023, 4)).toBe('2024-03-30');
  });
});

describe('as-of helpers', () => {
  it('finds the last trading day on or before a date', () => {
    const dates = ['2025-01-02', '2025-01-03', '2025-01-06'];
    expect(dayOnOrBefore(dates, '2025-01-04')).toBe(1);
    expect(dayOnOrBefore(dates, '2025-01-06')).toBe(2);
    expect(dayOnOrBefore(dates, '2025-01-01')).toBe(-1);
  });

  it('needs the full history only for fields that read past bars', () => {
    expect(depthFor(['per', 'roe', 'market_cap', 'value_score', 'magic_formula_rank'])).toBe('point');
    expect(depthFor(['per', 'rsi_14'])).toBe('full');
    expect(depthFor(['overall_score'])).toBe('full');
    expect(depthFor(['change_percent'])).toBe('full');
  });
});
