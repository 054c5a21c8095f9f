/**
 * KRX tick sizes (호가가격단위) and daily price limits (가격제한폭).
 * Since 2023-01-25 KOSPI and KOSDAQ share one tick table; the daily limit is
 * ±30% of the base price (normally the previous close). Pure functions, no I/O.
 */

/** Upper bounds (exclusive) of each price band and the tick that applies in it, ascending. */
export const TICK_SIZE_TABLE: readonly { readonly below: number; readonly tick: number }[] = [
  { below: 2_000, tick: 1 },
  { below: 5_000, tick: 5 },
  { below: 20_000, tick: 10 },
  { below: 50_000, tick: 50 },
  { below: 200_000, tick: 100 },
  { below: 500_000, tick: 500 },
  { below: Number.POSITIVE_INFINITY, tick: 1_000 },
];

/** Daily price limit as a fraction of the base price (KRX: 30% since 2015-06-15). */
export const DAILY_LIMIT_RATIO = 0.3;

/** How `roundToTick` resolves a price between two ticks. */
export type TickRoundMode = 'down' | 'up' | 'nearest';

/**
 * Tick size for a price (KRW).
 * @throws RangeError when the price is not a finite number ≥ 0.
 */
export function tickSize(price: number): number {
  if (!Number.isFinite(price) || price < 0) throw new RangeError(`invalid price: ${price}`);
  // Unrolled comparisons: this is called for every generated or validated bar.
  if (price < 2_000) return 1;
  if (price < 5_000) return 5;
  if (price < 20_000) return 10;
  if (price < 50_000) return 50;
  if (price < 200_000) return 100;
  if (price < 500_000) return 500;
  return 1_000;
}

/**
 * Rounds a price onto the tick grid of its band ('nearest' rounds half up).
 * Band boundaries are multiples of both neighbouring ticks, so the result is
 * always a valid price for its own band.
 * @throws RangeError when the price is not a finite number ≥ 0.
 */
export function roundToTick(price: number, mode: TickRoundMode = 'nearest'): number {
  const tick = tickSize(price);
  const units = price / tick;
  if (mode === 'down') return Math.floor(units) * tick;
  if (mode === 'up') return Math.ceil(units) * tick;
  return Math.floor(units + 0.5) * tick;
}

/** True when `price` is a positive price that lies on the KRX tick grid. */
export function isOnTick(price: number): boolean {
  return Number.isFinite(price) && price > 0 && price % tickSize(price) === 0;
}

/** Upper and lower price limit for one trading day. */
export interface PriceLimits {
  upper: number;
  lower: number;
}

/**
 * Daily limits from the base price (normally the previous close). KRX computes
 * the limit width as 30% of the base truncated to the base price's tick, then
 * rounds base + width down and base − width up onto the tick grid of the
 * resulting prices. Truncating the width first matters: for a base of 65,600
 * the lower limit is 46,000 (width 19,680 → 19,600), not 45,950 (65,600 × 0.7
 * = 45,920 rounded up) — 펄어비스 closed at 46,000 (−29.88%) on 2026-03-19.
 * @throws RangeError when `prevClose` is not a finite number > 0.
 */
export function priceLimits(prevClose: number): PriceLimits {
  if (!Number.isFinite(prevClose) || prevClose <= 0) throw new RangeError(`invalid base price: ${prevClose}`);
  const baseTick = tickSize(prevClose);
  // ×3/10 rather than ×0.3: for integer prices the product is exact, so the
  // truncation never loses a whole tick to a float error (10,000 × 0.3 = 3,000).
  const width = Math.floor((prevClose * 3) / 10 / baseTick) * baseTick;
  const upper = roundToTick(prevClose + width, 'down');
  const lower = roundToTick(prevClose - width, 'up');
  return { upper, lower: Math.max(lower, 1) };
}
