/**
 * The durable firing history of alerts (table alert_events): recording a firing once per
 * (alert, generation, claim), only while its alert is active, together with what the firing
 * changes on the alert and what else its transaction records (hooks); and the owner's reads.
 */
import type { AlertFiring } from '../contract/alerts.js';
import type { Db, Queryable } from './db.js';

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

/** What else a firing's claim transaction records (notification deliveries' outbox). */
export interface AlertsRepoHooks {
  /** Runs inside the transaction that recorded `record`, after its insert; must only touch the database. */
  firingRecorded?(tx: Queryable, record: { id: string; alert_id: string; user_id: string; fired_at: number }): Promise<unknown>;
}

const EVENT_COLS = 'id, alert_id, user_id, generation, claim, stock_code AS code, preset_id, alert_type, threshold, price, change_percent, volume, message, fired_at';
const INSERT_COLS = 'id, alert_id, user_id, generation, claim, stock_code, preset_id, alert_type, threshold, price, change_percent, volume, message, fired_at';
const insertParams = (r: AlertFiringRecord) => [
  r.id, r.alert_id, r.user_id, r.generation, r.claim, r.code, r.preset_id, r.alert_type, r.threshold, r.price, r.change_percent, r.volume, r.message, r.fired_at,
];

const isActive = async (tx: Queryable, alertId: string) => Boolean(await tx.get('SELECT 1 AS x FROM alerts WHERE id = ? AND active = 1', [alertId]));

/** Insert `r` unless its (alert, generation, claim) is recorded already, then run the hook; false: it was. */
async function insertFiring(tx: Queryable, r: AlertFiringRecord, hooks: AlertsRepoHooks): Promise<boolean> {
  const inserted = await tx.run(
    `INSERT INTO alert_events (${INSERT_COLS}) VALUES (${INSERT_COLS.split(',').map(() => '?').join(', ')})
     ON CONFLICT (alert_id, generation, claim) DO NOTHING`,
    insertParams(r),
  );
  if (inserted.changes === 0) return false;
  await hooks.firingRecorded?.(tx, r);
  return true;
}

/** Record a price alert's firing and advance the alert (disarm; a one-shot becomes inactive). False when already recorded or no longer active. */
export function recordFiring(db: Db, hooks: AlertsRepoHooks, r: AlertFiringRecord): Promise<boolean> {
  return db.transaction(async (tx) => {
    // A deleted or deactivated alert does not fire; the UNIQUE key lets one instance record a firing.
    if (!(await isActive(tx, r.alert_id)) || !(await insertFiring(tx, r, hooks))) return false;
    await tx.run(
      `UPDATE alerts SET fire_count = ${tx.dialect.greatest}(fire_count, ?), last_fired_at = ?, armed = 0,
         active = CASE WHEN recurring = 1 THEN active ELSE 0 END WHERE id = ?`,
      [r.generation + 1, r.fired_at, r.alert_id],
    );
    return true;
  });
}

/**
 * Record a screen alert's firing once per claim, unless the alert is no longer active or the
 * same stock fired for it less than `cooldownMs` ago; counts it (a one-shot becomes inactive).
 */
export function recordScreenFiring(db: Db, hooks: AlertsRepoHooks, r: ScreenFiringRecord, cooldownMs: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (!(await isActive(tx, r.alert_id))) return false;
    // The cooldown is per stock, and durable, so that every daemon applies the same one.
    if (cooldownMs > 0 && (await tx.get('SELECT 1 AS x FROM alert_events WHERE alert_id = ? AND stock_code = ? AND fired_at > ?', [r.alert_id, r.code, r.fired_at - cooldownMs]))) return false;
    if (!(await insertFiring(tx, { ...r, generation: 0 }, hooks))) return false;
    await tx.run(
      `UPDATE alerts SET fire_count = fire_count + 1, last_fired_at = ?, active = CASE WHEN recurring = 1 THEN active ELSE 0 END WHERE id = ?`,
      [r.fired_at, r.alert_id],
    );
    return true;
  });
}

/** The user's firings, newest first. */
export async function firingsOf(db: Db, userId: string, f: { alertId?: string; code?: string; limit: number; offset: number }): Promise<{ items: AlertFiringRecord[]; total: number }> {
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
}

/** The user's firings with fromMs <= fired_at < toMs, oldest first, at most `limit` (WebSocket session replay). */
export function firedBetween(db: Db, userId: string, fromMs: number, toMs: number, limit: number): Promise<AlertFiringRecord[]> {
  // Served by the alert_events (user_id, fired_at) index.
  return db.all<AlertFiringRecord>(
    `SELECT ${EVENT_COLS} FROM alert_events WHERE user_id = ? AND fired_at >= ? AND fired_at < ? ORDER BY fired_at, ${db.dialect.insertionOrder} LIMIT ?`,
    [userId, fromMs, toMs, limit],
  );
}
