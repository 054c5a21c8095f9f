/**
 * Alert types and their conditions (pure). A condition is checked against one price
 * event: `price_above`/`price_below` compare the trade price, `change_percent_*` the day's
 * change against the previous close, `volume_above` the day's cumulative volume against
 * threshold × the 20-day average volume. "Above" and "below" include the threshold
 * itself (the price has reached it).
 */
import type { PriceAlertType as AlertType } from '../kernel/alert-types.js';


/** Types whose threshold must be greater than 0 (a price, or a multiple of the average volume). */
export const POSITIVE_THRESHOLD_TYPES: ReadonlySet<AlertType> = new Set(['price_above', 'price_below', 'volume_above']);

/** Bounds of a change-percent threshold (KRX daily limits are ±30%; listing days go further). */
export const CHANGE_PERCENT_BOUNDS = { min: -100, max: 1000 } as const;

/** What a condition reads from a price event. */
export interface TickValues {
  price: number;
  change_percent: number;
  volume: number;
}

/** The problem with `threshold` for `type`, or null when it is acceptable. */
export function thresholdProblem(type: AlertType, threshold: number): string | null {
  if (!Number.isFinite(threshold)) return 'must be a finite number';
  if (POSITIVE_THRESHOLD_TYPES.has(type)) {
    if (threshold <= 0) return type === 'volume_above' ? 'must be a positive multiple of the 20-day average volume' : 'must be a positive price';
    return null;
  }
  if (threshold < CHANGE_PERCENT_BOUNDS.min || threshold > CHANGE_PERCENT_BOUNDS.max) {
    return `must be a percent between ${CHANGE_PERCENT_BOUNDS.min} and ${CHANGE_PERCENT_BOUNDS.max}`;
  }
  return null;
}

/**
 * True when the tick meets the condition. `avgVolume` is the stock's 20-day average
 * volume; without one (no history) a volume alert cannot be met.
 */
export function conditionMet(type: AlertType, threshold: number, tick: TickValues, avgVolume: number | undefined): boolean {
  switch (type) {
    case 'price_above':
      return tick.price >= threshold;
    case 'price_below':
      return tick.price <= threshold;
    case 'change_percent_above':
      return tick.change_percent >= threshold;
    case 'change_percent_below':
      return tick.change_percent <= threshold;
    case 'volume_above':
      return avgVolume !== undefined && avgVolume > 0 && tick.volume >= threshold * avgVolume;
  }
}

const number = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
const signed = (n: number) => `${n > 0 ? '+' : ''}${number(n)}`;

/** The human message of a firing, e.g. "Samsung Electronics (005930) price 72,000 reached 71,000 or above". */
export function alertMessage(alert: { alert_type: AlertType; threshold: number; note?: string | null }, tick: TickValues & { code: string; name: string }, avgVolume?: number): string {
  const who = `${tick.name} (${tick.code})`;
  let text: string;
  switch (alert.alert_type) {
    case 'price_above':
      text = `${who} price ${number(tick.price)} reached ${number(alert.threshold)} or above`;
      break;
    case 'price_below':
      text = `${who} price ${number(tick.price)} reached ${number(alert.threshold)} or below`;
      break;
    case 'change_percent_above':
      text = `${who} is ${signed(tick.change_percent)}% today, at or above ${signed(alert.threshold)}% (price ${number(tick.price)})`;
      break;
    case 'change_percent_below':
      text = `${who} is ${signed(tick.change_percent)}% today, at or below ${signed(alert.threshold)}% (price ${number(tick.price)})`;
      break;
    case 'volume_above': {
      const ratio = avgVolume ? tick.volume / avgVolume : 0;
      text = `${who} volume ${number(tick.volume)} is ${number(ratio)}× its 20-day average ${number(avgVolume ?? 0)} (threshold ${number(alert.threshold)}×)`;
      break;
    }
  }
  return alert.note ? `${text} — ${alert.note}` : text;
}
