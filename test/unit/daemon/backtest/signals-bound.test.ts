/**
 * The most rebalance dates a request can have, known before the history is read, is never below
 * the count the loaded history gives (so a run that fits its budget at the bound fits it for real).
 */
import { describe, expect, it } from 'vitest';
import { signalDays } from '../../../../daemon/backtest/calendar.js';
import { signalsAtMost } from '../../../../daemon/backtest/plan.js';
import type { RebalancePeriod } from '../../../../daemon/backtest/types.js';
import { addDays, tradingDaysBetween } from '../../../../daemon/kernel/krx-calendar.js';

describe('signalsAtMost', () => {
  const history = tradingDaysBetween('2023-01-02', '2026-06-30');
  const last = history.at(-1)!;

  it('is at least the real count for every period, start and end over three years of KRX trading days', () => {
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let i = 0; i < 300; i++) {
      const period = (['weekly', 'monthly', 'quarterly'] as RebalancePeriod[])[i % 3]!;
      const fromDay = next(history.length - 2);
      const toDay = fromDay + 1 + next(history.length - fromDay - 1);
      // A from on a non-trading day resolves to the trading day before it; a to likewise.
      const from = addDays(history[fromDay]!, next(2));
      const withTo = i % 2 === 0;
      const real = signalDays(history, fromDay, withTo ? toDay : history.length - 1, period).length;
      const bound = signalsAtMost({ from, rebalance: period, ...(withTo ? { to: history[toDay]! } : {}) }, last);
      expect(bound, `${period} ${from}…${withTo ? history[toDay] : last}`).toBeGreaterThanOrEqual(real);
    }
  });

  it('counts one date for a range that is empty', () => {
    expect(signalsAtMost({ from: '2025-03-01', to: '2025-02-01', rebalance: 'weekly' }, last)).toBe(1);
  });
});
