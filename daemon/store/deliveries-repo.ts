/**
 * Deliveries repository: the outbox of (event, channel) items, the deliveries that carry them,
 * and each attempt. Every state change is one statement or one transaction, so any daemon may
 * take any step after another daemon died between two steps:
 *
 *   item (event, channel) ──attach──▶ delivery `grouping` ──close──▶ `pending` ──claim──▶ `sending`
 *        ──finish──▶ `delivered` | `retrying` (claimable again when due) | `dead`
 *
 * An item's primary key (event_id, channel_id) makes a firing reach a channel at most once; a
 * channel has at most one open group (`group_key` UNIQUE), so concurrent attaches meet in it.
 */
import type { Db, Queryable } from './db.js';
import {
  deliveryById, insertDelivery,
  type AttachResult, type AttemptOutcome, type AttemptRecord, type DeliveryEntry, type DeliveryFilter, type DeliveryInsert, type DeliveryRecord,
  type FiredEventRow, type SweepFound,
} from './delivery-records.js';
import { deliveryEntry, listDeliveries } from './delivery-log.js';
import { attachItem, closeGroup, finishAttempt, redeliver } from './delivery-steps.js';

export type {
  AttachResult, AttemptOutcome, AttemptRecord, DeliveryEntry, DeliveryFilter, DeliveryInsert, DeliveryRecord, FiredEventRow, SweepFound,
} from './delivery-records.js';

/** Deliveries repository. */
export interface DeliveriesRepo {
  /**
   * Inside an alert firing's claim transaction: one item per channel of the alert. Returns how many.
   * Must only touch the database (the transaction may run again).
   */
  recordAlertItems(tx: Queryable, firing: { id: string; alert_id: string; user_id: string; fired_at: number }): Promise<number>;
  /** The channels an event's items go to. */
  channelsOfEvent(eventId: string): Promise<string[]>;
  /**
   * Put an item into its channel's open group (or open one ending `groupWaitMs` from `now`; with
   * 0, a delivery of its own). A disabled channel's item gets a dead delivery saying so.
   */
  attach(eventId: string, channelId: string, now: number, groupWaitMs: number, maxAgeMs: number): Promise<AttachResult>;
  /** End a group: freeze its body from its events (`build`). Returns the delivery as it is now. */
  close(id: string, now: number, build: (events: FiredEventRow[]) => string): Promise<DeliveryRecord | undefined>;
  /** Take a due delivery for one attempt (or one whose sender's lease lapsed). False: not due, or another sender holds it. */
  claim(id: string, now: number, leaseMs: number): Promise<boolean>;
  /** Record the attempt of a claimed delivery and its outcome. */
  finish(id: string, attempt: Omit<AttemptRecord, 'delivery_id' | 'n'>, outcome: AttemptOutcome): Promise<void>;
  /** A closed delivery (tests, digests), its items included. */
  create(input: DeliveryInsert, q?: Queryable): Promise<DeliveryRecord>;
  get(id: string): Promise<DeliveryRecord | undefined>;
  /** The user's delivery with its attempts. */
  entry(userId: string, id: string): Promise<DeliveryEntry | undefined>;
  /** The user's deliveries, newest first. */
  list(userId: string, filter: DeliveryFilter): Promise<{ items: DeliveryEntry[]; total: number }>;
  /** Send a finished delivery again (same id, same body): 'busy' while it is under way. */
  redeliver(userId: string, id: string, now: number, deadline: number): Promise<DeliveryRecord | 'not_found' | 'busy'>;
  /** Items and deliveries idle for more than `graceMs` without reaching an end. */
  sweep(now: number, graceMs: number, limit: number): Promise<SweepFound>;
}

/** Create the deliveries repository: the one-statement steps here, the transactions in delivery-steps.ts, the log in delivery-log.ts. */
export function createDeliveriesRepo(db: Db): DeliveriesRepo {
  return {
    async recordAlertItems(tx, f) {
      const res = await tx.run(
        `INSERT INTO delivery_items (event_id, channel_id, user_id, alert_id, delivery_id, created_at)
         SELECT ?, ac.channel_id, ?, ?, NULL, ? FROM alert_channels ac JOIN notification_channels c ON c.id = ac.channel_id
         WHERE ac.alert_id = ? AND c.user_id = ?
         ON CONFLICT (event_id, channel_id) DO NOTHING`,
        [f.id, f.user_id, f.alert_id, f.fired_at, f.alert_id, f.user_id],
      );
      return res.changes;
    },
    async channelsOfEvent(eventId) {
      return (await db.all<{ channel_id: string }>('SELECT channel_id FROM delivery_items WHERE event_id = ?', [eventId])).map((r) => r.channel_id);
    },
    attach: (eventId, channelId, now, groupWaitMs, maxAgeMs) => attachItem(db, eventId, channelId, now, groupWaitMs, maxAgeMs),
    close: (id, now, build) => closeGroup(db, id, now, build),
    async claim(id, now, leaseMs) {
      const res = await db.run(
        `UPDATE deliveries SET status = 'sending', lease_until = ?, updated_at = ?
         WHERE id = ? AND ((status IN ('pending','retrying') AND COALESCE(next_attempt_at, 0) <= ?) OR (status = 'sending' AND lease_until < ?))`,
        [now + leaseMs, now, id, now, now],
      );
      return res.changes === 1;
    },
    finish: (id, attempt, outcome) => finishAttempt(db, id, attempt, outcome),
    create(input, q) {
      const run = async (tx: Queryable) => {
        const d = await insertDelivery(tx, {
          id: input.id, user_id: input.user_id, channel_id: input.channel_id, channel_type: input.channel_type, kind: input.kind, status: 'pending', group_key: null,
          window_ends_at: null, schedule_id: input.schedule_id, body: input.body, next_attempt_at: input.now, deadline_at: input.deadline_at, last_error: null, created_at: input.now,
        });
        for (const eventId of input.event_ids) {
          await tx.run('INSERT INTO delivery_items (event_id, channel_id, user_id, alert_id, delivery_id, created_at) VALUES (?, ?, ?, NULL, ?, ?)', [
            eventId, input.channel_id, input.user_id, d.id, input.now,
          ]);
        }
        return d;
      };
      return q ? run(q) : db.transaction(run);
    },
    get: (id) => deliveryById(db, id),
    entry: (userId, id) => deliveryEntry(db, userId, id),
    list: (userId, f) => listDeliveries(db, userId, f),
    redeliver: (userId, id, now, deadline) => redeliver(db, userId, id, now, deadline),
    async sweep(now, graceMs, limit) {
      const before = now - graceMs;
      const [items, deliveries] = await Promise.all([
        db.all<{ event_id: string; channel_id: string }>('SELECT event_id, channel_id FROM delivery_items WHERE delivery_id IS NULL AND created_at < ? LIMIT ?', [before, limit]),
        db.all<{ id: string; round: number }>(
          `SELECT id, round FROM deliveries WHERE
             (status = 'grouping' AND window_ends_at < ?) OR (status IN ('pending','retrying') AND COALESCE(next_attempt_at, 0) < ?) OR (status = 'sending' AND lease_until < ?)
           LIMIT ?`,
          [before, before, before, limit],
        ),
      ]);
      return { items, deliveries };
    },
  };
}
