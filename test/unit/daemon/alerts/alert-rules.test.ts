import { describe, expect, it } from 'vitest';
import { alertMessage, conditionMet, thresholdProblem } from '../../../../daemon/alerts/alert-rules.js';

const tick = (price: number, change_percent = 0, volume = 0) => ({ price, change_percent, volume });

describe('alert conditions', () => {
  it('price_above and price_below include the threshold itself', () => {
    expect([conditionMet('price_above', 70000, tick(69900), undefined), conditionMet('price_above', 70000, tick(70000), undefined), conditionMet('price_above', 70000, tick(70100), undefined)])
      .toEqual([false, true, true]);
    expect([conditionMet('price_below', 70000, tick(70100), undefined), conditionMet('price_below', 70000, tick(70000), undefined), conditionMet('price_below', 70000, tick(69900), undefined)])
      .toEqual([false, true, true]);
  });

  it('change_percent types compare the day change, negative thresholds included', () => {
    expect(conditionMet('change_percent_above', 5, tick(1, 4.99), undefined)).toBe(false);
    expect(conditionMet('change_percent_above', 5, tick(1, 5.2), undefined)).toBe(true);
    expect(conditionMet('change_percent_below', -3, tick(1, -2.9), undefined)).toBe(false);
    expect(conditionMet('change_percent_below', -3, tick(1, -3.5), undefined)).toBe(true);
  });

  it('volume_above compares the day volume with threshold × the 20-day average', () => {
    // 2 × 150,000 = 300,000
    expect(conditionMet('volume_above', 2, tick(1, 0, 299_999), 150_000)).toBe(false);
    expect(conditionMet('volume_above', 2, tick(1, 0, 300_000), 150_000)).toBe(true);
    expect(conditionMet('volume_above', 2, tick(1, 0, 10_000_000), undefined)).toBe(false);
  });
});

describe('threshold validation', () => {
  it('requires a positive threshold for prices and volume multiples', () => {
    expect(thresholdProblem('price_above', 0)).toMatch(/positive/);
    expect(thresholdProblem('price_below', -100)).toMatch(/positive/);
    expect(thresholdProblem('volume_above', 0)).toMatch(/positive multiple/);
    expect(thresholdProblem('price_above', 70000)).toBeNull();
  });

  it('accepts negative change thresholds within bounds', () => {
    expect(thresholdProblem('change_percent_below', -5)).toBeNull();
    expect(thresholdProblem('change_percent_above', 0)).toBeNull();
    expect(thresholdProblem('change_percent_below', -150)).toMatch(/between -100 and 1000/);
  });
});

describe('alert messages', () => {
  it('name the stock, the price and the threshold, and append the note', () => {
    const e = { code: '005930', name: 'Samsung Electronics', price: 72000, change_percent: 2.86, volume: 1_000_000 };
    expect(alertMessage({ alert_type: 'price_above', threshold: 71000, note: 'take profit' }, e)).toBe('Samsung Electronics (005930) price 72,000 reached 71,000 or above — take profit');
    expect(alertMessage({ alert_type: 'change_percent_above', threshold: 2.5 }, e)).toBe('Samsung Electronics (005930) is +2.86% today, at or above +2.5% (price 72,000)');
    expect(alertMessage({ alert_type: 'volume_above', threshold: 2 }, e, 400_000)).toBe('Samsung Electronics (005930) volume 1,000,000 is 2.5× its 20-day average 400,000 (threshold 2×)');
  });
});
