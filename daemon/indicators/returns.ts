/**
 * Returns and momentum over trading-day windows, 52-week ranges and relative
 * strength against the market index. Inputs are oldest first; results are for
 * the latest bar. Percentages are × 100.
 */
import { pctChange } from './series.js';

/** Trading-day windows of the return indicators. */
export const RETURN_WINDOWS = {
  return_1w: 5,
  return_1m: 21,
  return_3m: 63,
  return_6m: 126,
  return_12m: 252,
} as const;

/** Trading days in a 52-week range. */
export const DAYS_52W = 252;

/**
 * Percentage return from the close `days` bars before the last one to `current`
 * (default: the last close). Needs days + 1 closes.
 */
export function periodReturn(closes: readonly number[], days: number, current?: number): number | null {
  const n = closes.length;
  if (n < days + 1) return null;
  return pctChange(current ?? closes[n - 1], closes[n - 1 - days]);
}

/**
 * 12-1 momentum: return from the close `from` bars ago to the close `skip` bars
 * ago (default 252 → 21), skipping the most recent month. Needs from + 1 closes.
 */
export function momentum(closes: readonly number[], from = 252, skip = 21): number | null {
  const n = closes.length;
  if (n < from + 1) return null;
  return pctChange(closes[n - 1 - skip], closes[n - 1 - from]);
}

/**
 * Year-to-date return: `current` against the last close dated before 1 January of
 * the year of `asOf` (YYYY-MM-DD). Null when no bar precedes that year.
 */
export function ytdReturn(dates: readonly string[], closes: readonly number[], asOf: string, current: number | null): number | null {
  const yearStart = `${asOf.slice(0, 4)}-01-01`;
  for (let i = dates.length - 1; i >= 0; i--) {
    if ((dates[i] ?? '') < yearStart) return pctChange(current, closes[i]);
  }
  return null;
}

/** Highest value of the last `window` entries; null with fewer entries. */
export function windowMax(values: readonly number[], window: number): number | null {
  const n = values.length;
  if (n < window || window <= 0) return null;
  let best = -Infinity;
  for (let i = n - window; i < n; i++) best = Math.max(best, values[i] ?? -Infinity);
  return best;
}

/** Lowest value of the last `window` entries; null with fewer entries. */
export function windowMin(values: readonly number[], window: number): number | null {
  const n = values.length;
  if (n < window || window <= 0) return null;
  let best = Infinity;
  for (let i = n - window; i < n; i++) best = Math.min(best, values[i] ?? Infinity);
  return best;
}

/**
 * Relative strength: the stock's return over `days` bars minus the index's return
 * between the same two trading dates, in percentage points. `indexCloses` is
 * aligned with `closes` (null where the index has no bar on that date).
 */
export function relativeStrength(
  closes: readonly number[],
  indexCloses: readonly (number | null)[],
  days: number,
): number | null {
  const n = closes.length;
  if (n < days + 1 || indexCloses.length !== n) return null;
  const stock = pctChange(closes[n - 1], closes[n - 1 - days]);
  const market = pctChange(indexCloses[n - 1], indexCloses[n - 1 - days]);
  return stock == null || market == null ? null : stock - market;
}
