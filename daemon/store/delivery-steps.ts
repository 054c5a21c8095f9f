/**
 * The steps of the deliveries outbox that take a transaction each (deliveries-repo.ts draws the
 * whole path): an item joins its channel's group, a group closes with its body frozen, an
 * attempt is recorded with its outcome, a finished delivery is sent again. Each reads the row it
 * changes inside its transaction and changes it only from the state it expects, so any daemon
 * may take a step after another died between two.
 */
import type { ChannelType } from '../contract/notify.js';
import type { Db } from './db.js';
import {
  DELIVERY_COLS, deliveryById, insertDelivery,
  type AttachResult, type AttemptOutcome, type AttemptRecord, type DeliveryRecord, type FiredEventRow,
} from './delivery-records.js';

/**
 * Put an item into its channel's open group (or open one ending `groupWaitMs` from `now`; with
 * 0, a delivery of its own). A disabled channel's item gets a dead delivery saying so.
 */
export function attachItem(db: Db, eventId: string, channelId: string, now: number, groupWaitMs: number, maxAgeMs: number): Promise<AttachResult> {
  return db.transaction(async (tx): Promise<AttachResult> => {
    const item = await tx.get<{ user_id: string; delivery_id: string | null }>('SELECT user_id, delivery_id FROM delivery_items WHERE event_id = ? AND channel_id = ?', [eventId, channelId]);
    if (!item) return { kind: 'gone' };
    if (item.delivery_id) {
      const delivery = await deliveryById(tx, item.delivery_id);
      return delivery ? { kind: 'attached', delivery, created: false } : { kind: 'gone' };
    }
    const channel = await tx.get<{ type: ChannelType; enabled: number; disabled_reason: string | null }>('SELECT type, enabled, disabled_reason FROM notification_channels WHERE id = ?', [channelId]);
    if (!channel) return { kind: 'gone' };
    const base = { user_id: item.user_id, channel_id: channelId, channel_type: channel.type, kind: 'alert' as const, schedule_id: null, body: null, created_at: now, deadline_at: now + maxAgeMs };
    let delivery: DeliveryRecord | undefined;
    let created = false;
    if (channel.enabled !== 1) {
      delivery = await insertDelivery(tx, { ...base, status: 'dead', group_key: null, window_ends_at: null, next_attempt_at: null, last_error: `channel disabled${channel.disabled_reason ? `: ${channel.disabled_reason}` : ''}` });
    } else {
      const open = groupWaitMs > 0 ? await tx.get<{ id: string }>('SELECT id FROM deliveries WHERE group_key = ?', [channelId]) : undefined;
      delivery = open ? await deliveryById(tx, open.id) : undefined;
      if (!delivery) {
        delivery = await insertDelivery(tx, { ...base, status: 'grouping', group_key: groupWaitMs > 0 ? channelId : null, window_ends_at: now + groupWaitMs, next_attempt_at: null, last_error: null });
        created = true;
      }
    }
    await tx.run('UPDATE delivery_items SET delivery_id = ? WHERE event_id = ? AND channel_id = ?', [delivery.id, eventId, channelId]);
    return { kind: 'attached', delivery, created };
  });
}

/** End a group: freeze its body from its events (`build`). Returns the delivery as it is now. */
export function closeGroup(db: Db, id: string, now: number, build: (events: FiredEventRow[]) => string): Promise<DeliveryRecord | undefined> {
  return db.transaction(async (tx) => {
    const d = await deliveryById(tx, id);
    if (!d || d.status !== 'grouping') return d;
    const events = await tx.all<FiredEventRow>(
      `SELECT e.id AS event_id, e.alert_id, e.alert_type, e.stock_code AS code, s.name AS name, e.preset_id, e.threshold, e.price, e.change_percent, e.volume, e.message, e.fired_at
       FROM delivery_items i JOIN alert_events e ON e.id = i.event_id LEFT JOIN stocks s ON s.code = e.stock_code
       WHERE i.delivery_id = ? ORDER BY e.fired_at, e.id`,
      [id],
    );
    await tx.run(`UPDATE deliveries SET status = 'pending', group_key = NULL, body = ?, next_attempt_at = ?, updated_at = ? WHERE id = ? AND status = 'grouping'`, [
      build(events), now, now, id,
    ]);
    return deliveryById(tx, id);
  });
}

/** Record the attempt of a claimed delivery and its outcome. */
export function finishAttempt(db: Db, id: string, attempt: Omit<AttemptRecord, 'delivery_id' | 'n'>, outcome: AttemptOutcome): Promise<void> {
  return db.transaction(async (tx) => {
    const d = await tx.get<{ attempt_count: number; status: string }>('SELECT attempt_count, status FROM deliveries WHERE id = ?', [id]);
    if (!d || d.status !== 'sending') return;
    const n = d.attempt_count + 1;
    await tx.run('INSERT INTO delivery_attempts (delivery_id, n, at, status_code, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)', [
      id, n, attempt.at, attempt.status_code, attempt.error, attempt.duration_ms,
    ]);
    const end = attempt.at + attempt.duration_ms;
    const next = outcome.status === 'retrying' ? outcome.next_attempt_at : null;
    const error = outcome.status === 'delivered' ? null : outcome.error;
    await tx.run(
      `UPDATE deliveries SET status = ?, attempt_count = ?, next_attempt_at = ?, lease_until = NULL, last_error = COALESCE(?, last_error),
         delivered_at = ?, updated_at = ? WHERE id = ?`,
      [outcome.status, n, next, error, outcome.status === 'delivered' ? end : null, end, id],
    );
  });
}

/** Send a finished delivery again (same id, same body): 'busy' while it is under way. */
export function redeliver(db: Db, userId: string, id: string, now: number, deadline: number): Promise<DeliveryRecord | 'not_found' | 'busy'> {
  return db.transaction(async (tx) => {
    const d = await tx.get<DeliveryRecord>(`SELECT ${DELIVERY_COLS} FROM deliveries WHERE user_id = ? AND id = ?`, [userId, id]);
    if (!d) return 'not_found' as const;
    if (d.status !== 'dead' && d.status !== 'delivered') return 'busy' as const;
    // A delivery that died before its group closed has no body: it is closed now, from its items.
    const status = d.body === null && d.kind === 'alert' ? 'grouping' : 'pending';
    await tx.run(
      `UPDATE deliveries SET status = ?, round = round + 1, next_attempt_at = ?, window_ends_at = ?, deadline_at = ?, delivered_at = NULL, updated_at = ? WHERE id = ?`,
      [status, now, now, deadline, now, id],
    );
    return (await deliveryById(tx, id))!;
  });
}
