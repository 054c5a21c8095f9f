/**
 * Alerts repository: price alerts and alerts on screens (scoped to the owner for the API,
 * unscoped for the evaluators) and their durable firing history. The active-alert cap is checked inside
 * the writing transaction so concurrent creates cannot pass it together; a firing is
 * recorded once per (alert, generation) and only while the alert is still active.
 */
import { randomUUID } from 'node:crypto';
import type { AlertFiring, ScreenMembership, Alert as WireAlert } from '../contract/alerts.js';
import type { AlertType } from '../kernel/alert-types.js';
import type { Db, Queryable } from './db.js';

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

/**
 * One recorded firing: the wire shape (daemon/contract) with its owner, generation and claim,
 * `fired_at` in ms since the epoch. Unique per (alert_id, generation, claim): a price firing has
 * claim '' (one per generation), a screen firing the stock and cause of the entry or exit.
 */
export type AlertFiringRecord = Omit<AlertFiring, 'fired_at'> & {
  user_id: string;
  generation: number;
  claim: string;
  fired_at: number;
};

/** A screen alert's firing to record: its claim identifies it (its generation is always 0). */
export type ScreenFiringRecord = Omit<AlertFiringRecord, 'generation'>;

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
const EVENT_COLS = 'id, alert_id, user_id, generation, claim, stock_code AS code, preset_id, alert_type, threshold, price, change_percent, volume, message, fired_at';

const INSERT_COLS = 'id, alert_id, user_id, generation, claim, stock_code, preset_id, alert_type, threshold, price, change_percent, volume, message, fired_at';
const insertParams = (r: AlertFiringRecord) => [
  r.id, r.alert_id, r.user_id, r.generation, r.claim, r.code, r.preset_id, r.alert_type, r.threshold, r.price, r.change_percent, r.volume, r.message, r.fired_at,
];

async function countActive(q: Queryable, userId: string, exceptId = ''): Promise<number> {
  return (await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM alerts WHERE user_id = ? AND active = 1 AND id <> ?', [userId, exceptId]))?.n ?? 0;
}

/** What else a firing's claim transaction records (notification deliveries' outbox). */
export interface AlertsRepoHooks {
  /** Runs inside the transaction that recorded `record`, after its insert; must only touch the database. */
  firingRecorded?(tx: Queryable, record: { id: string; alert_id: string; user_id: string; fired_at: number }): Promise<unknown>;
}

/** Create the alerts repository. */
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
        const rearm = activating || (patch.threshold !== undefined && patch.threshold !== current.threshold);
        const sets: string[] = [];
        const params: unknown[] = [];
        for (const k of ['threshold', 'note', 'cooldown_s', 'membership', 'dwell_s'] as const) if (patch[k] !== undefined) (sets.push(`${k} = ?`), params.push(patch[k]));
        for (const k of ['active', 'recurring'] as const) if (patch[k] !== undefined) (sets.push(`${k} = ?`), params.push(patch[k] ? 1 : 0));
        if (rearm) sets.push('armed = 1');
        sets.push('updated_at = ?');
        await tx.run(`UPDATE alerts SET ${sets.join(', ')} WHERE user_id = ? AND id = ?`, [...params, new Date().toISOString(), userId, id]);
        return { ok: true, alert: (await get(userId, id, tx))! };
      });
    },
    async delete(userId, id) {
      return (await db.run('DELETE FROM alerts WHERE user_id = ? AND id = ?', [userId, id])).changes === 1;
    },
    async listActive() {
      return (await db.all<AlertRow>(`${SELECT} WHERE a.active = 1`)).map(toAlert);
    },
    recordFiring(r) {
      return db.transaction(async (tx) => {
        // A deleted or deactivated alert does not fire; the UNIQUE key lets one instance record a firing.
        if (!(await tx.get('SELECT 1 AS x FROM alerts WHERE id = ? AND active = 1', [r.alert_id]))) return false;
        const inserted = await tx.run(
          `INSERT INTO alert_events (${INSERT_COLS}) VALUES (${INSERT_COLS.split(',').map(() => '?').join(', ')})
           ON CONFLICT (alert_id, generation, claim) DO NOTHING`,
          insertParams(r),
        );
        if (inserted.changes === 0) return false;
        await hooks.firingRecorded?.(tx, r);
        await tx.run(
          `UPDATE alerts SET fire_count = ${tx.dialect.greatest}(fire_count, ?), last_fired_at = ?, armed = 0,
             active = CASE WHEN recurring = 1 THEN active ELSE 0 END WHERE id = ?`,
          [r.generation + 1, r.fired_at, r.alert_id],
        );
        return true;
      });
    },
    recordScreenFiring(r, cooldownMs) {
      return db.transaction(async (tx) => {
        if (!(await tx.get('SELECT 1 AS x FROM alerts WHERE id = ? AND active = 1', [r.alert_id]))) return false;
        // The cooldown is per stock, and durable, so that every daemon applies the same one.
        if (cooldownMs > 0 && (await tx.get('SELECT 1 AS x FROM alert_events WHERE alert_id = ? AND stock_code = ? AND fired_at > ?', [r.alert_id, r.code, r.fired_at - cooldownMs]))) return false;
        const inserted = await tx.run(
          `INSERT INTO alert_events (${INSERT_COLS}) VALUES (${INSERT_COLS.split(',').map(() => '?').join(', ')})
           ON CONFLICT (alert_id, generation, claim) DO NOTHING`,
          insertParams({ ...r, generation: 0 }),
        );
        if (inserted.changes === 0) return false;
        await hooks.firingRecorded?.(tx, r);
        await tx.run(
          `UPDATE alerts SET fire_count = fire_count + 1, last_fired_at = ?, active = CASE WHEN recurring = 1 THEN active ELSE 0 END WHERE id = ?`,
          [r.fired_at, r.alert_id],
        );
        return true;
      });
    },
    async activeIdsOfPreset(presetId) {
      return (await db.all<{ id: string }>('SELECT id FROM alerts WHERE preset_id = ? AND active = 1', [presetId])).map((r) => r.id);
    },
    async rearm(id, generation) {
      await db.run('UPDATE alerts SET armed = 1 WHERE id = ? AND fire_count = ? AND armed = 0', [id, generation]);
    },
    firedBetween(userId, fromMs, toMs, limit) {
      // Served by the alert_events (user_id, fired_at) index.
      return db.all<AlertFiringRecord>(
        `SELECT ${EVENT_COLS} FROM alert_events WHERE user_id = ? AND fired_at >= ? AND fired_at < ? ORDER BY fired_at, ${db.dialect.insertionOrder} LIMIT ?`,
        [userId, fromMs, toMs, limit],
      );
    },
    async events(userId, f) {
      const where = ['user_id = ?'];
      const params: unknown[] = [userId];
      if (f.alertId) (where.push('alert_id = ?'), params.push(f.alertId));
      if (f.code) (where.push('stock_code = ?'), params.push(f.code));
      const clause = where.join(' AND ');
      const [items, count] = await Promise.all([
        db.all<AlertFiringRecord>(`SELECT ${EVENT_COLS} FROM alert_events WHERE ${clause} ORDER BY fired_at DESC, ${db.dialect.insertionOrder} DESC LIMIT ? OFFSET ?`, [...params, f.limit, f.offset]),
        db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM alert_events WHERE ${clause}`, params),
      ]);
      return { items, total: count?.n ?? 0 };
    },
  };
}
