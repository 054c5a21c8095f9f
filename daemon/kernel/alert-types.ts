/** The alert types a user may create (shared vocabulary; imports nothing). */

/** Price alerts: on one stock, with a threshold. */
export const PRICE_ALERT_TYPES = ['price_above', 'price_below', 'change_percent_above', 'change_percent_below', 'volume_above'] as const;
/** Alerts on screens: on a preset's live screen, firing for the stock that enters or exits it. */
export const SCREEN_ALERT_TYPES = ['screen_enter', 'screen_exit'] as const;
/** Every alert type. */
export const ALERT_TYPES = [...PRICE_ALERT_TYPES, ...SCREEN_ALERT_TYPES] as const;
/** One alert type. */
export type AlertType = (typeof ALERT_TYPES)[number];
/** A price alert type. */
export type PriceAlertType = (typeof PRICE_ALERT_TYPES)[number];
/** A screen alert type. */
export type ScreenAlertType = (typeof SCREEN_ALERT_TYPES)[number];

/** True for `screen_enter`/`screen_exit`. */
export function isScreenAlertType(type: string): type is ScreenAlertType {
  return type === 'screen_enter' || type === 'screen_exit';
}
