/**
 * The rows of the deliveries outbox: a delivery, its attempts and the (event, channel) items it
 * carries, as the repository and its parts (delivery-steps.ts, delivery-log.ts) read and write
 * them, with the one select and the one insert of a delivery they share.
 */
import { randomUUID } from 'node:crypto';
import type { ChannelType, DeliveryKind, DeliveryStatus } from '../contract/notify.js';
import type { Queryable } from './db.js';

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

/** The columns of a delivery, in DeliveryRecord's order. */
export const DELIVERY_COLS = `id, user_id, channel_id, channel_type, kind, status, group_key, window_ends_at, schedule_id, body, round, attempt_count,
  next_attempt_at, deadline_at, lease_until, last_error, created_at, delivered_at, updated_at`;

/** A delivery by id, read through `q` (a transaction sees its own writes). */
export const deliveryById = (q: Queryable, id: string) => q.get<DeliveryRecord>(`SELECT ${DELIVERY_COLS} FROM deliveries WHERE id = ?`, [id]);

/** What a new delivery row is given; the rest starts at its defaults (round and attempts 0, no lease). */
export type NewDelivery = Omit<DeliveryRecord, 'id' | 'round' | 'attempt_count' | 'lease_until' | 'delivered_at' | 'updated_at'> & { id?: string };

/** Insert a delivery (a new uuid unless `d.id` names it) and return it as stored. */
export async function insertDelivery(q: Queryable, d: NewDelivery): Promise<DeliveryRecord> {
  const id = d.id ?? randomUUID();
  await q.run(
    `INSERT INTO deliveries (id, user_id, channel_id, channel_type, kind, status, group_key, window_ends_at, schedule_id, body, next_attempt_at, deadline_at, last_error, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [id, d.user_id, d.channel_id, d.channel_type, d.kind, d.status, d.group_key, d.window_ends_at, d.schedule_id, d.body, d.next_attempt_at, d.deadline_at, d.last_error, d.created_at, d.created_at],
  );
  return (await deliveryById(q, id))!;
}
