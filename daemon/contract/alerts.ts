/** Price alerts on the wire (issue 7): /alerts, /alerts/{id}, /alerts/events, /alerts/{id}/events. */
import type { AlertType } from '../kernel/alert-types.js';

export { ALERT_TYPES, type AlertType } from '../kernel/alert-types.js';

/** An alert as the API shows it. */
export interface Alert {
  id: string;
  code: string;
  /** The stock's name (null when the stock is no longer listed). */
  name: string | null;
  alert_type: AlertType;
  threshold: number;
  recurring: boolean;
  cooldown_s: number;
  note: string | null;
  active: boolean;
  /** False after a firing until the condition has been false again. */
  armed: boolean;
  fire_count: number;
  /** ISO time of the last firing. */
  last_fired_at: string | null;
  created_at: string;
  updated_at: string;
}

/** One recorded firing (GET /alerts/events). */
export interface AlertFiring {
  id: string;
  alert_id: string;
  code: string;
  alert_type: AlertType;
  threshold: number;
  price: number;
  change_percent: number | null;
  volume: number | null;
  message: string;
  /** ISO time. */
  fired_at: string;
}

/** Body of POST /alerts. */
export interface NewAlert {
  code: string;
  alert_type: AlertType;
  threshold: number;
  recurring?: boolean;
  cooldown_s?: number;
  note?: string | null;
}

/** Body of PUT /alerts/{id} (at least one field). */
export type AlertPatch = Partial<Pick<Alert, 'threshold' | 'active' | 'recurring' | 'note' | 'cooldown_s'>>;
