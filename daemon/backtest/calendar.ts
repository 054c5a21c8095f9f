/**
 * Rebalance dates: the first signal is the trading day `from` resolves to; after it,
 * the last trading day of every week (ISO, Monday first), month or quarter, before `to`. Each
 * signal's screen uses data up to and including the signal day; its trades execute at the next
 * trading day's open (no look-ahead).
 */
import type { RebalancePeriod } from './types.js';

/** The period a date belongs to, as a comparable key. */
export function periodKey(date: string, period: RebalancePeriod): string {
  if (period === 'monthly') return date.slice(0, 7);
  if (period === 'quarterly') return `${date.slice(0, 4)}-Q${Math.floor((Number(date.slice(5, 7)) - 1) / 3) + 1}`;
  const d = new Date(`${date}T00:00:00Z`);
  const monday = new Date(d);
  monday.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return monday.toISOString().slice(0, 10);
}

/**
 * Signal day indices into `dates` between `fromDay` and `toDay` (inclusive bounds, both indices):
 * `fromDay`, then each period's last trading day after it. A signal on `toDay` itself is dropped
 * (nothing could be traded after it).
 */
export function signalDays(dates: readonly string[], fromDay: number, toDay: number, period: RebalancePeriod): number[] {
  const out = [fromDay];
  for (let d = fromDay + 1; d < toDay; d++) {
    const date = dates[d] ?? '';
    const next = dates[d + 1];
    if (next === undefined || periodKey(next, period) !== periodKey(date, period)) out.push(d);
  }
  return out;
}
