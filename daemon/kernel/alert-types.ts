/** The alert types a user may create (shared vocabulary; imports nothing). */

/** Every alert type (issue 7). */
export const ALERT_TYPES = ['price_above', 'price_below', 'change_percent_above', 'change_percent_below', 'volume_above'] as const;
/** One alert type. */
export type AlertType = (typeof ALERT_TYPES)[number];
