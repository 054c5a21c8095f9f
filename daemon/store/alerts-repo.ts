/**
 * Alerts repository: price alerts and alerts on screens (scoped to the owner for the API,
 * unscoped for the evaluators) and their durable firing history. The active-alert cap is checked inside
 * the writing transaction so concurrent creates cannot pass it together; a firing is
 * recorded once per (alert, generation) and only while the alert is still active.
 */
import { randomUUID } from 'node:crypto';
import type { ScreenMembership, Alert as WireAlert } from '../contract/alerts.js';
import type { AlertType } from '../kernel/alert-types.js';
import { firedBetween, firingsOf, recordFiring, recordScreenFiring, type AlertFiringRecord, type AlertsRepoHooks, type ScreenFiringRecord } from './alert-firings.js';
import type { Db, Queryable } from './db.js';

export type { AlertFiringRecord, AlertsRepoHooks, ScreenFiringRecord } from './alert-firings.js';

/** A stored alert: the wire shape (daemon/contract, less its channels) with its owner, `last_fired_at` in ms since the epoch. */
export type Alert = Omit<WireAlert, 'last_fired_at' | 'channels'> & {
  user_id: string;
  last_fired_at: number | null;
};

/** Fields of a new alert. */
export type AlertInsert = Pick<Alert, 'code' | 'preset_id' | 'alert_type' | 'threshold' | 'recurring' | 'cooldown_s' | 'note' | 'membership' | 'dwell_s'>;
/** Fields an update may change. */
export type AlertPatch = Partial<{ threshold: number; active: boolean; recurring: boolean; note: string | null; cooldown_s: number; membership: ScreenMembership; dwell_s: number }>;
/** Outcome of a write bounded by the active-alert cap. */
export type AlertWrite = { ok: true; alert: Alert } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'cap'; active: number };

/** List filters and paging. */
export interface AlertFilter {
  code?: string;
  active?: boolean;
  alert_type?: AlertType;
  limit: number;
  offset: number;
}

/** Alerts repository. */
export interface AlertsRepo {
  /** Insert unless the user already has `maxActive` active alerts (null = unlimited). */
  create(userId: string, input: AlertInsert, maxActive: number | null): Promise<AlertWrite>;
  get(userId: string, id: string): Promise<Alert | undefined>;
  /** Any user's alert (the evaluator's reload). */
  getById(id: string): Promise<Alert | undefined>;
  list(userId: string, filter: AlertFilter): Promise<{ items: Alert[]; total: number }>;
  /** Apply `patch`; a new threshold or a reactivation re-arms; activating respects `maxActive`. */
  update(userId: string, id: string, patch: AlertPatch, maxActive: number | null): Promise<AlertWrite>;
  delete(userId: string, id: string): Promise<boolean>;
  /** Every active alert of every user. */
  listActive(): Promise<Alert[]>;
  /** The ids of the active alerts on a preset (screen alerts). */
  activeIdsOfPreset(presetId: string): Promise<string[]>;
  /** Record a firing and advance the alert (disarm; a one-shot becomes inactive). False when already recorded or no longer active. */
  recordFiring(record: AlertFiringRecord): Promise<boolean>;
  /**
   * Record a screen alert's firing once per claim, unless the alert is no longer active or the
   * same stock fired for it less than `cooldownMs` ago; counts it (a one-shot becomes inactive).
   */
  recordScreenFiring(record: ScreenFiringRecord, cooldownMs: number): Promise<boolean>;
  /** Persist a re-arm, unless the alert has fired again since `generation`. */
  rearm(id: string, generation: number): Promise<void>;
  /** The user's firings, newest first. */
  events(userId: string, filter: { alertId?: string; code?: string; limit: number; offset: number }): Promise<{ items: AlertFiringRecord[]; total: number }>;
  /** The user's firings with fromMs <= fired_at < toMs, oldest first, at most `limit` (WebSocket session replay). */
  firedBetween(userId: string, fromMs: number, toMs: number, limit: number): Promise<AlertFiringRecord[]>;
}

interface AlertRow extends Omit<Alert, 'recurring' | 'active' | 'armed'> {
  recurring: number;
  active: number;
  armed: number;
}

const toAlert = (r: AlertRow): Alert => ({ ...r, recurring: r.recurring === 1, active: r.active === 1, armed: r.armed === 1 });
const SELECT = `SELECT a.id, a.user_id, a.stock_code AS code, s.name AS name, a.preset_id, a.alert_type, a.threshold, a.recurring, a.cooldown_s,
  a.membership, a.dwell_s, a.note, a.active, a.armed, a.fire_count, a.last_fired_at, a.created_at, a.updated_at FROM alerts a LEFT JOIN stocks s ON s.code = a.stock_code`;

async function countActive(q: Queryable, userId: string, exceptId = ''): Promise<number> {
  return (await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM alerts WHERE user_id = ? AND active = 1 AND id <> ?', [userId, exceptId]))?.n ?? 0;
}

/** The SET list of an update applying `patch` (`rearm`: arm it again), `updated_at` last, and its parameters but that time. */
function patchSets(patch: AlertPatch, rearm: boolean): { sets: string; params: unknown[] } {
  const sets: string[] = [];
  const params: unknown[] = [];
  for (const k of ['threshold', 'note', 'cooldown_s', 'membership', 'dwell_s'] as const) if (patch[k] !== undefined) (sets.push(`${k} = ?`), params.push(patch[k]));
  for (const k of ['active', 'recurring'] as const) if (patch[k] !== undefined) (sets.push(`${k} = ?`), params.push(patch[k] ? 1 : 0));
  if (rearm) sets.push('armed = 1');
  sets.push('updated_at = ?');
  return { sets: sets.join(', '), params };
}

/** Create the alerts repository (the firing history's queries are in alert-firings.ts). */
export function createAlertsRepo(db: Db, hooks: AlertsRepoHooks = {}): AlertsRepo {
  const getById = async (id: string, q: Queryable = db) => {
    const row = await q.get<AlertRow>(`${SELECT} WHERE a.id = ?`, [id]);
    return row && toAlert(row);
  };
  const get = async (userId: string, id: string, q: Queryable = db) => {
    const row = await q.get<AlertRow>(`${SELECT} WHERE a.user_id = ? AND a.id = ?`, [userId, id]);
    return row && toAlert(row);
  };
  return {
    create(userId, input, maxActive) {
      return db.transaction(async (tx): Promise<AlertWrite> => {
        const active = await countActive(tx, userId);
        if (maxActive !== null && active >= maxActive) return { ok: false, reason: 'cap', active };
        const id = randomUUID();
        const now = new Date().toISOString();
        await tx.run(
          `INSERT INTO alerts (id, user_id, stock_code, preset_id, alert_type, threshold, recurring, cooldown_s, membership, dwell_s, note, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [id, userId, input.code, input.preset_id, input.alert_type, input.threshold, input.recurring ? 1 : 0, input.cooldown_s, input.membership, input.dwell_s, input.note, now, now],
        );
        return { ok: true, alert: (await getById(id, tx))! };
      });
    },
    get: (userId, id) => get(userId, id),
    getById: (id) => getById(id),
    async list(userId, f) {
      const where = ['a.user_id = ?'];
      const params: unknown[] = [userId];
      if (f.code) (where.push('a.stock_code = ?'), params.push(f.code));
      if (f.active !== undefined) (where.push('a.active = ?'), params.push(f.active ? 1 : 0));
      if (f.alert_type) (where.push('a.alert_type = ?'), params.push(f.alert_type));
      const clause = where.join(' AND ');
      const [rows, count] = await Promise.all([
        db.all<AlertRow>(`${SELECT} WHERE ${clause} ORDER BY a.created_at DESC, a.${db.dialect.insertionOrder} DESC LIMIT ? OFFSET ?`, [...params, f.limit, f.offset]),
        db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM alerts a WHERE ${clause}`, params),
      ]);
      return { items: rows.map(toAlert), total: count?.n ?? 0 };
    },
    update(userId, id, patch, maxActive) {
      return db.transaction(async (tx): Promise<AlertWrite> => {
        const current = await get(userId, id, tx);
        if (!current) return { ok: false, reason: 'not_found' };
        const activating = patch.active === true && !current.active;
        if (activating && maxActive !== null) {
          const active = await countActive(tx, userId, id);
          if (active >= maxActive) return { ok: false, reason: 'cap', active };
        }
        const { sets, params } = patchSets(patch, activating || (patch.threshold !== undefined && patch.threshold !== current.threshold));
        await tx.run(`UPDATE alerts SET ${sets} WHERE user_id = ? AND id = ?`, [...params, new Date().toISOString(), userId, id]);
        return { ok: true, alert: (await get(userId, id, tx))! };
      });
    },
    async delete(userId, id) {
      return (await db.run('DELETE FROM alerts WHERE user_id = ? AND id = ?', [userId, id])).changes === 1;
    },
    async listActive() {
      return (await db.all<AlertRow>(`${SELECT} WHERE a.active = 1`)).map(toAlert);
    },
    recordFiring: (r) => recordFiring(db, hooks, r),
    recordScreenFiring: (r, cooldownMs) => recordScreenFiring(db, hooks, r, cooldownMs),
    async activeIdsOfPreset(presetId) {
      return (await db.all<{ id: string }>('SELECT id FROM alerts WHERE preset_id = ? AND active = 1', [presetId])).map((r) => r.id);
    },
    async rearm(id, generation) {
      await db.run('UPDATE alerts SET armed = 1 WHERE id = ? AND fire_count = ? AND armed = 0', [id, generation]);
    },
    firedBetween: (userId, fromMs, toMs, limit) => firedBetween(db, userId, fromMs, toMs, limit),
    events: (userId, f) => firingsOf(db, userId, f),
  };
}
