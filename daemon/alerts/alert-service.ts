/**
 * Alert service: create, read, update and delete a user's price alerts and alerts on screens,
 * and read their firing history. Another user's alert is "not found"; a screen alert must
 * name one of the caller's presets (else 400 with details.preset_id, as backtests do).
 * Active alerts of both kinds are capped together per tier (a 403 naming the limit); every
 * change is handed to `onChange` so the evaluators of every daemon instance pick it up. An
 * alert may name notification channels of its owner (`channels`) its firings are delivered to.
 */
import type { NewAlert } from '../contract/alerts.js';
import type { Tier } from '../kernel/roles.js';
import { AppError, invalidRequest, notFound } from '../errors.js';
import type { Alert, AlertFilter, AlertFiringRecord, AlertPatch, AlertsRepo, AlertWrite } from '../store/alerts-repo.js';
import { checkScreenPatch, checkThreshold, insertOf, type AlertOwner, type AlertRequestDeps } from './alert-requests.js';

/** Most active alerts per tier; null = unlimited. */
export type AlertCaps = Readonly<Record<Tier, number | null>>;

/** The caps: free 10, basic 100, pro 1,000, enterprise unlimited. */
export const DEFAULT_ALERT_CAPS: AlertCaps = { free: 10, basic: 100, pro: 1000, enterprise: null };

/** The caller (declared beside the request checks, which read its tier). */
export type { AlertOwner } from './alert-requests.js';

/** A new alert (POST /alerts): the wire contract's body. */
export type AlertRequest = NewAlert;

/** An alert with the channels its firings are delivered to. */
export type ChanneledAlert = Alert & { channels: string[] };

/** Which notification channels an alert's firings go to. */
export interface AlertChannelLinks {
  /** @throws AppError INVALID_REQUEST naming `channels.<i>` for an id that is not one of the user's channels */
  check(userId: string, ids: readonly string[]): Promise<void>;
  set(alertId: string, ids: readonly string[]): Promise<void>;
  of(alertIds: readonly string[]): Promise<Map<string, string[]>>;
  clear(alertId: string): Promise<void>;
}

/** Collaborators of the alert service (and, from AlertRequestDeps, of its request checks). */
export interface AlertServiceDeps extends AlertRequestDeps {
  alerts: AlertsRepo;
  caps: AlertCaps;
  /** Called after every successful write with the alert id (the evaluator's `changed`). */
  onChange?(alertId: string): Promise<void> | void;
  /** Notification channels (absent: alerts take none). */
  channels?: AlertChannelLinks;
}

/** Alert service. */
export interface AlertService {
  /** @throws AppError INVALID_REQUEST (unknown stock or preset, bad threshold), FORBIDDEN (tier cap reached) */
  create(owner: AlertOwner, input: AlertRequest): Promise<ChanneledAlert>;
  /** @throws AppError NOT_FOUND */
  get(userId: string, id: string): Promise<ChanneledAlert>;
  list(userId: string, filter: AlertFilter): Promise<{ items: ChanneledAlert[]; total: number }>;
  /** @throws AppError NOT_FOUND, INVALID_REQUEST (bad threshold, a threshold for a screen alert, an unknown channel), FORBIDDEN (reactivating over the cap) */
  update(owner: AlertOwner, id: string, patch: AlertPatch & { channels?: string[] }): Promise<ChanneledAlert>;
  /** @throws AppError NOT_FOUND */
  delete(userId: string, id: string): Promise<void>;
  /** Firings of one alert (NOT_FOUND when not the user's) or of all the user's alerts. */
  events(userId: string, filter: { alertId?: string; code?: string; limit: number; offset: number }): Promise<{ items: AlertFiringRecord[]; total: number }>;
}

/** The 403 of a write over the owner's tier cap of active alerts. */
function capError(caps: AlertCaps, owner: AlertOwner, active: number): AppError {
  const limit = caps[owner.tier];
  return new AppError(
    'FORBIDDEN',
    `Active alert limit reached: the ${owner.tier} tier allows ${limit} active alerts and you have ${active}. Deactivate or delete an alert, or upgrade your tier.`,
    { tier: owner.tier, limit, active },
  );
}

/** Create the alert service. */
export function createAlertService(deps: AlertServiceDeps): AlertService {
  async function settle(owner: AlertOwner, write: AlertWrite, id?: string): Promise<Alert> {
    if (write.ok) {
      await deps.onChange?.(write.alert.id);
      return write.alert;
    }
    if (write.reason === 'cap') throw capError(deps.caps, owner, write.active);
    throw notFound('Alert', { id });
  }

  async function get(userId: string, id: string): Promise<Alert> {
    const alert = await deps.alerts.get(userId, id);
    if (!alert) throw notFound('Alert', { id });
    return alert;
  }

  async function withChannels<A extends Alert>(alerts: A[]): Promise<(A & { channels: string[] })[]> {
    const links = deps.channels && alerts.length ? await deps.channels.of(alerts.map((a) => a.id)) : new Map<string, string[]>();
    return alerts.map((a) => ({ ...a, channels: links.get(a.id) ?? [] }));
  }

  async function checkChannels(userId: string, ids: readonly string[] | undefined): Promise<void> {
    if (ids === undefined || ids.length === 0) return;
    if (!deps.channels) throw invalidRequest('Notification channels are not available', { channels: 'not available on this daemon' });
    await deps.channels.check(userId, ids);
  }

  return {
    async create(owner, input) {
      await checkChannels(owner.id, input.channels);
      const alert = await settle(owner, await deps.alerts.create(owner.id, await insertOf(deps, owner, input), deps.caps[owner.tier]));
      if (input.channels?.length) {
        try {
          await deps.channels!.set(alert.id, input.channels);
        } catch (err) {
          // A channel deleted meanwhile: no half-made alert is left behind.
          await deps.alerts.delete(owner.id, alert.id).catch(() => undefined);
          await deps.onChange?.(alert.id);
          throw err;
        }
      }
      return (await withChannels([alert]))[0]!;
    },
    get: async (userId, id) => (await withChannels([await get(userId, id)]))[0]!,
    async list(userId, filter) {
      const { items, total } = await deps.alerts.list(userId, filter);
      return { items: await withChannels(items), total };
    },
    async update(owner, id, { channels, ...patch }) {
      const current = await get(owner.id, id);
      checkThreshold(current, patch.threshold);
      await checkScreenPatch(deps, owner, current, patch);
      await checkChannels(owner.id, channels);
      const alert = Object.keys(patch).length > 0 ? await settle(owner, await deps.alerts.update(owner.id, id, patch, deps.caps[owner.tier]), id) : current;
      if (channels !== undefined && deps.channels) await deps.channels.set(id, channels);
      return (await withChannels([alert]))[0]!;
    },
    async delete(userId, id) {
      if (!(await deps.alerts.delete(userId, id))) throw notFound('Alert', { id });
      await deps.channels?.clear(id);
      await deps.onChange?.(id);
    },
    async events(userId, filter) {
      if (filter.alertId) await get(userId, filter.alertId);
      return deps.alerts.events(userId, filter);
    },
  };
}
