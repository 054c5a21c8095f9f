/**
 * Alerts on the wire: price alerts and alerts on screens:
 * /alerts, /alerts/{id}, /alerts/events, /alerts/{id}/events. The answers, the patch body and
 * the list queries are zod schemas (validation, OpenAPI and the types from one place); the
 * create body's cross-field rules need the daemon's threshold checks, so its route composes
 * it from the field schemas here.
 */
import { z } from 'zod';
import { ALERT_TYPES, type AlertType } from '../kernel/alert-types.js';
import { PageQuery } from './envelope.js';
import { stockCode } from './fields.js';

export { ALERT_TYPES, PRICE_ALERT_TYPES, SCREEN_ALERT_TYPES, isScreenAlertType, type AlertType } from '../kernel/alert-types.js';

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

/** Most channels one alert delivers to. */
export const MAX_ALERT_CHANNELS = 10;
/** Longest cooldown of a recurring alert (seconds: 7 days). */
export const MAX_COOLDOWN_S = 7 * 86400;
/** Longest note (characters). */
export const MAX_ALERT_NOTE = 500;

/** The request fields of an alert, shared by POST /alerts (composed in its route) and PUT /alerts/{id}. */
export const alertFields = {
  code: stockCode(),
  alertType: z.enum(ALERT_TYPES, { error: `must be one of ${ALERT_TYPES.join(', ')}` }),
  threshold: z.number({ error: 'must be a number' }),
  cooldown: z.number({ error: 'must be a number of seconds' }).int('must be whole seconds').min(0, 'must not be negative').max(MAX_COOLDOWN_S, 'must be at most 604800 (7 days)'),
  membership: z
    .enum(SCREEN_MEMBERSHIPS, { error: `must be one of ${SCREEN_MEMBERSHIPS.join(', ')}` })
    .describe('Screen alerts: what makes a stock a member. "conditions": it meets the preset\'s filters and expression, wherever its sort puts it; "page": it is on the preset\'s first page (its sort and per_page, a top-N cut). Default "conditions" when the preset has filters or an expression, else "page"'),
  dwell: z
    .number({ error: 'must be a number of seconds' })
    .int('must be whole seconds')
    .min(0, 'must not be negative')
    .max(MAX_DWELL_S, `must be at most ${MAX_DWELL_S} (an hour)`)
    .describe(`Screen alerts: seconds an entry (exit) must hold before it counts; a stock that enters and leaves again within it does not fire (a stock hovering at the edge of the screen). 0 counts every change at once. Default ${DEFAULT_DWELL_S}`),
  note: z.string().max(MAX_ALERT_NOTE, `must be at most ${MAX_ALERT_NOTE} characters`).nullable(),
  channels: z
    .array(z.uuid('must be a channel id'), { error: 'must be an array of channel ids' })
    .max(MAX_ALERT_CHANNELS, `at most ${MAX_ALERT_CHANNELS} channels`)
    .describe('Notification channels of yours (GET /channels) each firing is delivered to (webhook, Telegram, Slack, Discord, e-mail); [] for none'),
};

/** Body of PUT /alerts/{id} (at least one field; `threshold` only for price alerts; `membership` and `dwell_s` only for screen alerts). */
export const AlertPatch = z
  .strictObject({
    threshold: alertFields.threshold.optional(), active: z.boolean().optional(), recurring: z.boolean().optional(), note: alertFields.note.optional(), cooldown_s: alertFields.cooldown.optional(),
    channels: alertFields.channels.optional(), membership: alertFields.membership.optional(), dwell_s: alertFields.dwell.optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one of threshold, active, recurring, note, cooldown_s, channels, membership, dwell_s' });
export type AlertPatch = z.output<typeof AlertPatch>;

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** Query of GET /alerts. */
export const AlertListQuery = z.object({ code: alertFields.code.optional(), active: bool.optional(), type: alertFields.alertType.optional(), ...PageQuery.shape });
export type AlertListQuery = z.output<typeof AlertListQuery>;
/** Query of GET /alerts/events (GET /alerts/{id}/events: without `code`). */
export const AlertEventsQuery = z.object({ code: alertFields.code.optional(), ...PageQuery.shape });

/**
 * An alert as the API shows it. `armed` is false after a firing until the condition has been
 * false again (price alerts; screen alerts stay armed); `last_fired_at` is an ISO time;
 * `channels` are `/channels` ids (none: sockets and history only).
 */
export const Alert = z
  .object({
    id: z.string(), code: z.string().nullable().describe('The stock of a price alert; null for a screen alert'), name: z.string().nullable(),
    preset_id: z.string().nullable().describe('The preset of a screen_enter/screen_exit alert; null for a price alert'),
    alert_type: alertFields.alertType, threshold: z.number().nullable().describe('Null for a screen alert'), recurring: z.boolean(),
    cooldown_s: z.number(),
    membership: z.enum(SCREEN_MEMBERSHIPS).nullable().describe('A screen alert\'s membership ("conditions" or "page"); null for a price alert'),
    dwell_s: z.number().nullable().describe('Seconds an entry or exit must hold before a screen alert counts it; null for a price alert'),
    note: z.string().nullable(), active: z.boolean(),
    armed: z.boolean().describe('False after a firing until the condition has been false again'),
    fire_count: z.number(), last_fired_at: z.string().nullable(), created_at: z.string(), updated_at: z.string(),
    channels: z.array(z.string()).describe('The notification channels its firings are delivered to'),
  })
  .meta({ id: 'Alert' });
export type Alert = z.output<typeof Alert>;

/** One recorded firing (GET /alerts/events); `fired_at` is an ISO time. */
export const AlertFiring = z
  .object({
    id: z.string(), alert_id: z.string(), code: z.string().describe('The stock that met the condition, or entered or exited the screen'),
    preset_id: z.string().nullable().describe('The preset of a screen alert\'s firing'), alert_type: alertFields.alertType, threshold: z.number().nullable(), price: z.number(),
    change_percent: z.number().nullable(), volume: z.number().nullable(), message: z.string(), fired_at: z.string(),
  })
  .meta({ id: 'AlertFiring' });
export type AlertFiring = z.output<typeof AlertFiring>;
