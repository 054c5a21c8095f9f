/**
 * Alert service: create, read, update and delete a user's price alerts and alerts on screens,
 * and read their firing history. Another user's alert is "not found"; a screen alert must
 * name one of the caller's presets (else 400 with details.preset_id, as backtests do).
 * Active alerts of both kinds are capped together per tier (a 403 naming the limit); every
 * change is handed to `onChange` so the evaluators of every daemon instance pick it up. An
 * alert may name notification channels of its owner (`channels`) its firings are delivered to.
 */
import { DEFAULT_DWELL_S, type NewAlert, type NewPriceAlert, type ScreenMembership } from '../contract/alerts.js';
import type { Tier } from '../kernel/roles.js';
import { AppError, invalidRequest, isAppError, notFound } from '../errors.js';
import type { Alert, AlertFilter, AlertFiringRecord, AlertInsert, AlertPatch, AlertsRepo, AlertWrite } from '../store/alerts-repo.js';
import type { StocksRepo } from '../store/stocks-repo.js';
import { thresholdProblem } from './alert-rules.js';
import { isScreenAlertType } from '../kernel/alert-types.js';
import type { PresetsRepo } from '../store/presets-repo.js';

/** Most active alerts per tier; null = unlimited. */
export type AlertCaps = Readonly<Record<Tier, number | null>>;

/** The caps: free 10, basic 100, pro 1,000, enterprise unlimited. */
export const DEFAULT_ALERT_CAPS: AlertCaps = { free: 10, basic: 100, pro: 1000, enterprise: null };

/** The caller. */
export interface AlertOwner {
  id: string;
  tier: Tier;
}

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

/** Collaborators of the alert service. */
export interface AlertServiceDeps {
  alerts: AlertsRepo;
  stocks: Pick<StocksRepo, 'get'>;
  /** The caller's presets (screen alerts name one). */
  presets: Pick<PresetsRepo, 'get'>;
  caps: AlertCaps;
  /** Called after every successful write with the alert id (the evaluator's `changed`). */
  onChange?(alertId: string): Promise<void> | void;
  /** Notification channels (absent: alerts take none). */
  channels?: AlertChannelLinks;
  /**
   * Checks a screening body against a tier's cost budget (ScreenService.parse) and says whether
   * it has conditions (filters or an expression) beyond its universe and sort.
   * @throws AppError INVALID_REQUEST naming the limit
   */
  checkScreen?(query: Record<string, unknown>, tier: Tier): { conditions: boolean };
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

/** Create the alert service. */
export function createAlertService(deps: AlertServiceDeps): AlertService {
  function capError(owner: AlertOwner, active: number): AppError {
    const limit = deps.caps[owner.tier];
    return new AppError(
      'FORBIDDEN',
      `Active alert limit reached: the ${owner.tier} tier allows ${limit} active alerts and you have ${active}. Deactivate or delete an alert, or upgrade your tier.`,
      { tier: owner.tier, limit, active },
    );
  }

  async function settle(owner: AlertOwner, write: AlertWrite, id?: string): Promise<Alert> {
    if (write.ok) {
      await deps.onChange?.(write.alert.id);
      return write.alert;
    }
    if (write.reason === 'cap') throw capError(owner, write.active);
    throw notFound('Alert', { id });
  }

  function checkThreshold(alert: Alert | NewPriceAlert, threshold: number | undefined): void {
    if (threshold === undefined) return;
    const type = alert.alert_type;
    if (isScreenAlertType(type)) throw invalidRequest('A screen alert has no threshold', { threshold: `not allowed for ${type}` });
    const problem = thresholdProblem(type, threshold);
    if (problem) throw invalidRequest('Invalid threshold', { threshold: `${problem} for ${type}` });
  }

  /**
   * A screen alert re-runs its preset's screen on every tick, unattended: the preset must fit
   * the owner's budget. Answers whether it has conditions (true when unknown).
   */
  function checkPresetCost(owner: AlertOwner, query: Record<string, unknown>): boolean {
    try {
      return deps.checkScreen?.(query, owner.tier).conditions ?? true;
    } catch (err) {
      if (!isAppError(err)) throw err;
      throw new AppError('INVALID_REQUEST', `The preset's screen cannot be watched: ${err.message}`, {
        preset_id: err.message, ...Object.fromEntries(Object.entries(err.details).map(([k, v]) => [`preset.query.${k}`, v])),
      });
    }
  }

  /**
   * A screen alert's membership: as asked, or by default the preset's conditions when it has
   * any (a preset of a sort alone, "the top 50 by volume", has only its page).
   * @throws AppError INVALID_REQUEST for `conditions` on a preset without conditions (nothing would ever enter or leave)
   */
  function membershipOf(asked: ScreenMembership | undefined, conditions: boolean): ScreenMembership {
    if (asked === undefined) return conditions ? 'conditions' : 'page';
    if (asked === 'conditions' && !conditions) {
      throw invalidRequest('The preset has no conditions (filters or an expression): every stock meets them, so none would ever enter or leave', {
        membership: 'use "page" for a preset that only sorts (its first page, the top-N cut), or add a filter or an expression to the preset',
      });
    }
    return asked;
  }

  /** The row to insert: a price alert on a listed stock, or a screen alert on one of the owner's presets. */
  async function insertOf(owner: AlertOwner, input: AlertRequest): Promise<AlertInsert> {
    const common = { alert_type: input.alert_type, recurring: input.recurring ?? false, cooldown_s: input.cooldown_s ?? 0, note: input.note ?? null };
    if ('preset_id' in input) {
      const preset = await deps.presets.get(owner.id, input.preset_id);
      if (!preset) throw invalidRequest('Unknown preset', { preset_id: 'no preset of yours has this id' });
      const conditions = checkPresetCost(owner, preset.query);
      const membership = membershipOf(input.membership, conditions);
      return { ...common, code: null, preset_id: input.preset_id, threshold: null, membership, dwell_s: input.dwell_s ?? DEFAULT_DWELL_S };
    }
    checkThreshold(input, input.threshold);
    if (!(await deps.stocks.get(input.code))) throw invalidRequest('Unknown stock', { code: `no listed stock has the code ${input.code}` });
    return { ...common, code: input.code, preset_id: null, threshold: input.threshold, membership: null, dwell_s: null };
  }

  /** A patch's membership and dwell: screen alerts only; `conditions` needs a preset with conditions. */
  async function checkScreenPatch(owner: AlertOwner, current: Alert, patch: AlertPatch): Promise<void> {
    if (patch.membership === undefined && patch.dwell_s === undefined) return;
    if (current.preset_id === null) {
      const fields = Object.fromEntries((['membership', 'dwell_s'] as const).filter((k) => patch[k] !== undefined).map((k) => [k, `only for screen_enter and screen_exit`]));
      throw invalidRequest('A price alert has no membership or dwell', fields);
    }
    if (patch.membership !== 'conditions') return;
    const preset = await deps.presets.get(owner.id, current.preset_id);
    if (preset) membershipOf('conditions', checkPresetCost(owner, preset.query));
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
      const alert = await settle(owner, await deps.alerts.create(owner.id, await insertOf(owner, input), deps.caps[owner.tier]));
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
      await checkScreenPatch(owner, current, patch);
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
