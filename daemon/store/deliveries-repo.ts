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
import { randomUUID } from 'node:crypto';
import type { ChannelType, DeliveryKind, DeliveryStatus } from '../contract/notify.js';
import type { Db, Queryable } from './db.js';

/** A stored delivery. Times are ms since the epoch. */
export interface DeliveryRecord {
  id: string;
  user_id: string;
  channel_id: string;
  channel_type: ChannelType;
  kind: DeliveryKind;
  status: DeliveryStatus;
  group_key: string | null;
  window_ends_at: number | null;
  schedule_id: string | null;
  /** The request body, frozen when the delivery leaves `grouping`. */
  body: string | null;
  /** Redeliveries so far (names the queue job of each round). */
  round: number;
  attempt_count: number;
  next_attempt_at: number | null;
  /** Retries stop here (dead); a redelivery moves it. */
  deadline_at: number;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
  updated_at: number;
}

/** One stored attempt. */
export interface AttemptRecord {
  delivery_id: string;
  n: number;
  at: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** A delivery with its attempts and what it carries (the log). */
export interface DeliveryEntry extends DeliveryRecord {
  attempts: AttemptRecord[];
  event_ids: string[];
  alert_ids: string[];
}

/** An alert firing as a grouped delivery carries it. */
export interface FiredEventRow {
  event_id: string;
  alert_id: string;
  alert_type: string;
  code: string;
  name: string | null;
  preset_id: string | null;
  threshold: number | null;
  price: number;
  change_percent: number | null;
  volume: number | null;
  message: string;
  fired_at: number;
}

/** Outcome of attaching an item to its channel's delivery. */
export type AttachResult =
  | { kind: 'gone' }
  | { kind: 'attached'; delivery: DeliveryRecord; created: boolean };

/** A finished attempt's outcome. */
export type AttemptOutcome =
  | { status: 'delivered' }
  | { status: 'retrying'; next_attempt_at: number; error: string }
  | { status: 'dead'; error: string };

/** A delivery to create directly (tests, digests): already closed, due now. */
export interface DeliveryInsert {
  /** Chosen by the caller when the body names it (default: a new uuid). */
  id?: string;
  user_id: string;
  channel_id: string;
  channel_type: ChannelType;
  kind: DeliveryKind;
  body: string;
  schedule_id: string | null;
  /** The (event, channel) items it carries (a digest: its run). */
  event_ids: readonly string[];
  now: number;
  deadline_at: number;
}

/** Log filters and paging. */
export interface DeliveryFilter {
  channel_id?: string;
  alert_id?: string;
  /** A status, or `failed` (retrying or dead). */
  status?: DeliveryStatus | 'failed';
  limit: number;
  offset: number;
}

/** Work a sweep found without a queued job (their daemon died between two steps). */
export interface SweepFound {
  items: { event_id: string; channel_id: string }[];
  deliveries: { id: string; round: number }[];
}

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

const COLS = `id, user_id, channel_id, channel_type, kind, status, group_key, window_ends_at, schedule_id, body, round, attempt_count,
  next_attempt_at, deadline_at, lease_until, last_error, created_at, delivered_at, updated_at`;

/** Create the deliveries repository. */
export function createDeliveriesRepo(db: Db): DeliveriesRepo {
  const getIn = (q: Queryable, id: string) => q.get<DeliveryRecord>(`SELECT ${COLS} FROM deliveries WHERE id = ?`, [id]);

  async function insert(q: Queryable, d: Omit<DeliveryRecord, 'id' | 'round' | 'attempt_count' | 'lease_until' | 'delivered_at' | 'updated_at'> & { id?: string }): Promise<DeliveryRecord> {
    const id = d.id ?? randomUUID();
    await q.run(
      `INSERT INTO deliveries (id, user_id, channel_id, channel_type, kind, status, group_key, window_ends_at, schedule_id, body, next_attempt_at, deadline_at, last_error, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, d.user_id, d.channel_id, d.channel_type, d.kind, d.status, d.group_key, d.window_ends_at, d.schedule_id, d.body, d.next_attempt_at, d.deadline_at, d.last_error, d.created_at, d.created_at],
    );
    return (await getIn(q, id))!;
  }

  async function withDetails(rows: DeliveryRecord[]): Promise<DeliveryEntry[]> {
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
    attach(eventId, channelId, now, groupWaitMs, maxAgeMs) {
      return db.transaction(async (tx): Promise<AttachResult> => {
        const item = await tx.get<{ user_id: string; delivery_id: string | null }>('SELECT user_id, delivery_id FROM delivery_items WHERE event_id = ? AND channel_id = ?', [eventId, channelId]);
        if (!item) return { kind: 'gone' };
        if (item.delivery_id) {
          const delivery = await getIn(tx, item.delivery_id);
          return delivery ? { kind: 'attached', delivery, created: false } : { kind: 'gone' };
        }
        const channel = await tx.get<{ type: ChannelType; enabled: number; disabled_reason: string | null }>('SELECT type, enabled, disabled_reason FROM notification_channels WHERE id = ?', [channelId]);
        if (!channel) return { kind: 'gone' };
        const base = { user_id: item.user_id, channel_id: channelId, channel_type: channel.type, kind: 'alert' as const, schedule_id: null, body: null, created_at: now, deadline_at: now + maxAgeMs };
        let delivery: DeliveryRecord | undefined;
        let created = false;
        if (channel.enabled !== 1) {
          delivery = await insert(tx, { ...base, status: 'dead', group_key: null, window_ends_at: null, next_attempt_at: null, last_error: `channel disabled${channel.disabled_reason ? `: ${channel.disabled_reason}` : ''}` });
        } else {
          const open = groupWaitMs > 0 ? await tx.get<{ id: string }>('SELECT id FROM deliveries WHERE group_key = ?', [channelId]) : undefined;
          delivery = open ? await getIn(tx, open.id) : undefined;
          if (!delivery) {
            delivery = await insert(tx, { ...base, status: 'grouping', group_key: groupWaitMs > 0 ? channelId : null, window_ends_at: now + groupWaitMs, next_attempt_at: null, last_error: null });
            created = true;
          }
        }
        await tx.run('UPDATE delivery_items SET delivery_id = ? WHERE event_id = ? AND channel_id = ?', [delivery.id, eventId, channelId]);
        return { kind: 'attached', delivery, created };
      });
    },
    close(id, now, build) {
      return db.transaction(async (tx) => {
        const d = await getIn(tx, id);
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
        return getIn(tx, id);
      });
    },
    async claim(id, now, leaseMs) {
      const res = await db.run(
        `UPDATE deliveries SET status = 'sending', lease_until = ?, updated_at = ?
         WHERE id = ? AND ((status IN ('pending','retrying') AND COALESCE(next_attempt_at, 0) <= ?) OR (status = 'sending' AND lease_until < ?))`,
        [now + leaseMs, now, id, now, now],
      );
      return res.changes === 1;
    },
    finish(id, attempt, outcome) {
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
    },
    create(input, q) {
      const run = async (tx: Queryable) => {
        const d = await insert(tx, {
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
    get: (id) => getIn(db, id),
    async entry(userId, id) {
      const row = await db.get<DeliveryRecord>(`SELECT ${COLS} FROM deliveries WHERE user_id = ? AND id = ?`, [userId, id]);
      return row && (await withDetails([row]))[0];
    },
    async list(userId, f) {
      const where = ['user_id = ?'];
      const params: unknown[] = [userId];
      if (f.channel_id) (where.push('channel_id = ?'), params.push(f.channel_id));
      if (f.alert_id) (where.push('id IN (SELECT delivery_id FROM delivery_items WHERE alert_id = ? AND user_id = ?)'), params.push(f.alert_id, userId));
      if (f.status === 'failed') where.push(`status IN ('retrying','dead')`);
      else if (f.status) (where.push('status = ?'), params.push(f.status));
      const clause = where.join(' AND ');
      const [rows, count] = await Promise.all([
        db.all<DeliveryRecord>(`SELECT ${COLS} FROM deliveries WHERE ${clause} ORDER BY created_at DESC, ${db.dialect.insertionOrder} DESC LIMIT ? OFFSET ?`, [...params, f.limit, f.offset]),
        db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM deliveries WHERE ${clause}`, params),
      ]);
      return { items: await withDetails(rows), total: count?.n ?? 0 };
    },
    redeliver(userId, id, now, deadline) {
      return db.transaction(async (tx) => {
        const d = await tx.get<DeliveryRecord>(`SELECT ${COLS} FROM deliveries WHERE user_id = ? AND id = ?`, [userId, id]);
        if (!d) return 'not_found' as const;
        if (d.status !== 'dead' && d.status !== 'delivered') return 'busy' as const;
        // A delivery that died before its group closed has no body: it is closed now, from its items.
        const status = d.body === null && d.kind === 'alert' ? 'grouping' : 'pending';
        await tx.run(
          `UPDATE deliveries SET status = ?, round = round + 1, next_attempt_at = ?, window_ends_at = ?, deadline_at = ?, delivered_at = NULL, updated_at = ? WHERE id = ?`,
          [status, now, now, deadline, now, id],
        );
        return (await getIn(tx, id))!;
      });
    },
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
