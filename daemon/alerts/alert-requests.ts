/**
 * What an alert request may ask, checked before anything is written: a price alert's stock and
 * threshold, a screen alert's preset (one of the caller's, within the caller's screening budget)
 * and membership, and which fields a patch may carry for the alert it changes. Each check throws
 * the 400 the caller sees, naming the field.
 */
import { DEFAULT_DWELL_S, type NewAlert, type NewPriceAlert, type ScreenMembership } from '../contract/alerts.js';
import { AppError, invalidRequest, isAppError } from '../errors.js';
import { isScreenAlertType } from '../kernel/alert-types.js';
import type { Tier } from '../kernel/roles.js';
import type { Alert, AlertInsert, AlertPatch } from '../store/alerts-repo.js';
import type { PresetsRepo } from '../store/presets-repo.js';
import type { StocksRepo } from '../store/stocks-repo.js';
import { thresholdProblem } from './alert-rules.js';

/** The caller. */
export interface AlertOwner {
  id: string;
  tier: Tier;
}

/** What the checks read: stocks, the caller's presets, and the screening budget. */
export interface AlertRequestDeps {
  stocks: Pick<StocksRepo, 'get'>;
  /** The caller's presets (screen alerts name one). */
  presets: Pick<PresetsRepo, 'get'>;
  /**
   * Checks a screening body against a tier's cost budget (ScreenService.parse) and says whether
   * it has conditions (filters or an expression) beyond its universe and sort.
   * @throws AppError INVALID_REQUEST naming the limit
   */
  checkScreen?(query: Record<string, unknown>, tier: Tier): { conditions: boolean };
}

/** @throws AppError INVALID_REQUEST for a threshold a screen alert cannot have or a price alert's type refuses */
export function checkThreshold(alert: Alert | NewPriceAlert, threshold: number | undefined): void {
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
function checkPresetCost(deps: AlertRequestDeps, owner: AlertOwner, query: Record<string, unknown>): boolean {
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
export async function insertOf(deps: AlertRequestDeps, owner: AlertOwner, input: NewAlert): Promise<AlertInsert> {
  const common = { alert_type: input.alert_type, recurring: input.recurring ?? false, cooldown_s: input.cooldown_s ?? 0, note: input.note ?? null };
  if ('preset_id' in input) {
    const preset = await deps.presets.get(owner.id, input.preset_id);
    if (!preset) throw invalidRequest('Unknown preset', { preset_id: 'no preset of yours has this id' });
    const conditions = checkPresetCost(deps, owner, preset.query);
    const membership = membershipOf(input.membership, conditions);
    return { ...common, code: null, preset_id: input.preset_id, threshold: null, membership, dwell_s: input.dwell_s ?? DEFAULT_DWELL_S };
  }
  checkThreshold(input, input.threshold);
  if (!(await deps.stocks.get(input.code))) throw invalidRequest('Unknown stock', { code: `no listed stock has the code ${input.code}` });
  return { ...common, code: input.code, preset_id: null, threshold: input.threshold, membership: null, dwell_s: null };
}

/** A patch's membership and dwell: screen alerts only; `conditions` needs a preset with conditions. */
export async function checkScreenPatch(deps: AlertRequestDeps, owner: AlertOwner, current: Alert, patch: AlertPatch): Promise<void> {
  if (patch.membership === undefined && patch.dwell_s === undefined) return;
  if (current.preset_id === null) {
    const fields = Object.fromEntries((['membership', 'dwell_s'] as const).filter((k) => patch[k] !== undefined).map((k) => [k, `only for screen_enter and screen_exit`]));
    throw invalidRequest('A price alert has no membership or dwell', fields);
  }
  if (patch.membership !== 'conditions') return;
  const preset = await deps.presets.get(owner.id, current.preset_id);
  if (preset) membershipOf('conditions', checkPresetCost(deps, owner, preset.query));
}
