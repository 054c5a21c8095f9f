/**
 * Alerts on the wire: price alerts and alerts on screens:
 * /alerts, /alerts/{id}, /alerts/events, /alerts/{id}/events.
 */
import type { AlertType } from '../kernel/alert-types.js';

export { ALERT_TYPES, PRICE_ALERT_TYPES, SCREEN_ALERT_TYPES, isScreenAlertType, type AlertType } from '../kernel/alert-types.js';

/** An alert as the API shows it. */
export interface Alert {
  id: string;
  /** The stock of a price alert; null for a screen alert. */
  code: string | null;
  /** The stock's name (null when the stock is no longer listed, and for a screen alert). */
  name: string | null;
  /** The preset whose live screen a `screen_enter`/`screen_exit` alert watches; null for a price alert. */
  preset_id: string | null;
  alert_type: AlertType;
  /** The threshold of a price alert; null for a screen alert. */
  threshold: number | null;
  recurring: boolean;
  cooldown_s: number;
  /** A screen alert's membership: `conditions` (meets the preset's filters and expression) or `page` (on its first page); null for a price alert. */
  membership: ScreenMembership | null;
  /** Seconds an entry or exit must hold before a screen alert counts it; null for a price alert. */
  dwell_s: number | null;
  note: string | null;
  active: boolean;
  /** False after a firing until the condition has been false again (price alerts; screen alerts stay armed). */
  armed: boolean;
  fire_count: number;
  /** ISO time of the last firing. */
  last_fired_at: string | null;
  created_at: string;
  updated_at: string;
  /** The notification channels its firings are delivered to (`/channels` ids; none: sockets and history only). */
  channels: string[];
}

/** One recorded firing (GET /alerts/events). */
export interface AlertFiring {
  id: string;
  alert_id: string;
  /** The stock that met the condition, or that entered or exited the screen. */
  code: string;
  /** The preset of a screen alert's firing; null for a price alert's. */
  preset_id: string | null;
  alert_type: AlertType;
  threshold: number | null;
  price: number;
  change_percent: number | null;
  volume: number | null;
  message: string;
  /** ISO time. */
  fired_at: string;
}

/** Body of POST /alerts for a price alert. */
export interface NewPriceAlert {
  code: string;
  alert_type: Exclude<AlertType, 'screen_enter' | 'screen_exit'>;
  threshold: number;
  recurring?: boolean;
  cooldown_s?: number;
  note?: string | null;
  /** Channels (ids of yours) its firings are delivered to. */
  channels?: string[];
}

/**
 * What makes a stock a member of a preset's screen for its alerts: `conditions` — it meets the
 * preset's filters and expression, wherever its sort puts it; `page` — it is on the preset's
 * first page (its sort and per_page: a top-N cut).
 */
export type ScreenMembership = 'conditions' | 'page';
/** The membership kinds. */
export const SCREEN_MEMBERSHIPS = ['conditions', 'page'] as const;
/** A screen alert's dwell when the request gives none (seconds). */
export const DEFAULT_DWELL_S = 30;
/** Longest dwell (seconds). */
export const MAX_DWELL_S = 3600;

/** Body of POST /alerts for an alert on a preset's live screen. */
export interface NewScreenAlert {
  preset_id: string;
  alert_type: 'screen_enter' | 'screen_exit';
  /** Default `conditions` when the preset has conditions (filters or an expression), else `page`. */
  membership?: ScreenMembership;
  /** Default DEFAULT_DWELL_S. */
  dwell_s?: number;
  recurring?: boolean;
  cooldown_s?: number;
  note?: string | null;
  /** Channels (ids of yours) its firings are delivered to. */
  channels?: string[];
}

/** Body of POST /alerts. */
export type NewAlert = NewPriceAlert | NewScreenAlert;

/** Body of PUT /alerts/{id} (at least one field; `threshold` only for price alerts). */
export type AlertPatch = Partial<{
  threshold: number;
  active: boolean;
  recurring: boolean;
  note: string | null;
  cooldown_s: number;
  channels: string[];
  /** Screen alerts only. */
  membership: ScreenMembership;
  /** Screen alerts only. */
  dwell_s: number;
}>;
