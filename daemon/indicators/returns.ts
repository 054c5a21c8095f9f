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
 * Percentage return from the close `days` bars before the last one (the one before `end`) to
 * `current` (default: the last close). Needs days + 1 closes.
 */
export function periodReturn(closes: ArrayLike<number>, days: number, current?: number, end = closes.length): number | null {
  const n = end;
  if (n < days + 1) return null;
  return pctChange(current ?? closes[n - 1], closes[n - 1 - days]);
}

/**
 * 12-1 momentum: return from the close `from` bars ago to the close `skip` bars
 * ago (default 252 → 21), skipping the most recent month. Needs from + 1 closes.
 */
export function momentum(closes: ArrayLike<number>, from = 252, skip = 21, end = closes.length): number | null {
  const n = end;
  if (n < from + 1) return null;
  return pctChange(closes[n - 1 - skip], closes[n - 1 - from]);
}

/**
 * Year-to-date return: `current` against the last close dated before 1 January of
 * the year of `asOf` (YYYY-MM-DD). Null when no bar precedes that year.
 */
export function ytdReturn(dates: readonly string[], closes: ArrayLike<number>, asOf: string, current: number | null): number | null {
  const i = lastDateBefore(dates, yearStart(asOf), -1, dates.length);
  return i >= 0 ? pctChange(current, closes[i]) : null;
}

/** 1 January of the year of `date` (YYYY-MM-DD). */
export const yearStart = (date: string): string => `${date.slice(0, 4)}-01-01`;

/**
 * The last index below `end` whose date (ascending dates) is before `before`, searched forward
 * from `after` (an index known to qualify, or −1); −1 when none.
 */
export function lastDateBefore(dates: readonly string[], before: string, after: number, end: number): number {
  let i = after;
  while (i + 1 < end && (dates[i + 1] ?? '') < before) i++;
  return i;
}

/** Highest value of the last `window` entries; null with fewer entries. */
export function windowMax(values: ArrayLike<number>, window: number, end = values.length): number | null {
  const n = end;
  if (n < window || window <= 0) return null;
  let best = -Infinity;
  for (let i = n - window; i < n; i++) best = Math.max(best, values[i] ?? -Infinity);
  return best;
}

/** Lowest value of the last `window` entries; null with fewer entries. */
export function windowMin(values: ArrayLike<number>, window: number, end = values.length): number | null {
  const n = end;
  if (n < window || window <= 0) return null;
  let best = Infinity;
  for (let i = n - window; i < n; i++) best = Math.min(best, values[i] ?? Infinity);
  return best;
}

/**
 * Relative strength: the stock's return over `days` bars minus the index's return
 * between the same two trading dates, in percentage points. `indexCloses` is
 * aligned with `closes` (null or NaN where the index has no bar on that date).
 */
export function relativeStrength(
  closes: ArrayLike<number>,
  indexCloses: ArrayLike<number | null>,
  days: number,
  end = closes.length,
): number | null {
  const n = end;
  if (n < days + 1 || indexCloses.length !== closes.length) return null;
  const stock = pctChange(closes[n - 1], closes[n - 1 - days]);
  const market = pctChange(known(indexCloses[n - 1]), known(indexCloses[n - 1 - days]));
  return stock == null || market == null ? null : stock - market;
}

/** null for a missing (null or NaN) value. */
const known = (v: number | null | undefined): number | null => (v == null || Number.isNaN(v) ? null : v);
