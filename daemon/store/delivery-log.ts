/**
 * The delivery log as its owner reads it: deliveries newest first, each with its attempts and
 * what it carries (events, alerts), read for a whole page in two queries.
 */
import type { Db } from './db.js';
import { DELIVERY_COLS, type AttemptRecord, type DeliveryEntry, type DeliveryFilter, type DeliveryRecord } from './delivery-records.js';

/** The user's delivery with its attempts. */
export async function deliveryEntry(db: Db, userId: string, id: string): Promise<DeliveryEntry | undefined> {
  const row = await db.get<DeliveryRecord>(`SELECT ${DELIVERY_COLS} FROM deliveries WHERE user_id = ? AND id = ?`, [userId, id]);
  return row && (await withDetails(db, [row]))[0];
}

/** The user's deliveries, newest first. */
export async function listDeliveries(db: Db, userId: string, f: DeliveryFilter): Promise<{ items: DeliveryEntry[]; total: number }> {
  const where = ['user_id = ?'];
  const params: unknown[] = [userId];
  if (f.channel_id) (where.push('channel_id = ?'), params.push(f.channel_id));
  if (f.alert_id) (where.push('id IN (SELECT delivery_id FROM delivery_items WHERE alert_id = ? AND user_id = ?)'), params.push(f.alert_id, userId));
  if (f.status === 'failed') where.push(`status IN ('retrying','dead')`);
  else if (f.status) (where.push('status = ?'), params.push(f.status));
  const clause = where.join(' AND ');
  const [rows, count] = await Promise.all([
    db.all<DeliveryRecord>(`SELECT ${DELIVERY_COLS} FROM deliveries WHERE ${clause} ORDER BY created_at DESC, ${db.dialect.insertionOrder} DESC LIMIT ? OFFSET ?`, [...params, f.limit, f.offset]),
    db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM deliveries WHERE ${clause}`, params),
  ]);
  return { items: await withDetails(db, rows), total: count?.n ?? 0 };
}

/** `rows` with their attempts and items. */
async function withDetails(db: Db, rows: DeliveryRecord[]): Promise<DeliveryEntry[]> {
  if (rows.length === 0) return [];
  const ids = db.dialect.textList(rows.map((r) => r.id));
  const [attempts, items] = await Promise.all([
    db.all<AttemptRecord>(`SELECT delivery_id, n, at, status_code, error, duration_ms FROM delivery_attempts WHERE ${db.dialect.inTextList('delivery_id')} ORDER BY delivery_id, n`, [ids]),
    db.all<{ delivery_id: string; event_id: string; alert_id: string | null }>(
      `SELECT delivery_id, event_id, alert_id FROM delivery_items WHERE ${db.dialect.inTextList('delivery_id')} ORDER BY created_at, event_id`,
      [ids],
    ),
  ]);
  return rows.map((r) => ({
    ...r,
    attempts: attempts.filter((a) => a.delivery_id === r.id),
    event_ids: items.filter((i) => i.delivery_id === r.id).map((i) => i.event_id),
    alert_ids: [...new Set(items.filter((i) => i.delivery_id === r.id && i.alert_id !== null).map((i) => i.alert_id!))],
  }));
}
