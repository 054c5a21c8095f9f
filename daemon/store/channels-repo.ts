/**
 * Notification channels repository: a user's channels (every API read and write scoped to the
 * owner; the delivery worker reads by id), the per-tier cap checked inside the writing
 * transaction, and which channels each alert's firings go to (`alert_channels`).
 */
import { randomUUID } from 'node:crypto';
import type { ChannelType } from '../contract/notify.js';
import type { Db, Queryable } from './db.js';

/** A stored channel, secret included (never sent on the wire: see notify/channel-view). */
export interface ChannelRecord {
  id: string;
  user_id: string;
  type: ChannelType;
  name: string;
  /** URL, chat id or address. */
  target: string;
  /** A webhook's signing secret or a Telegram bot token. */
  secret: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** Fields of a new channel. */
export type ChannelInsert = Pick<ChannelRecord, 'type' | 'name' | 'target' | 'secret'>;
/** Fields an update may change. */
export type ChannelUpdate = Partial<Pick<ChannelRecord, 'name' | 'target' | 'secret' | 'enabled' | 'disabled_reason'>>;
/** Outcome of a create bounded by the tier cap. */
export type ChannelWrite = { ok: true; channel: ChannelRecord } | { ok: false; reason: 'cap'; count: number };

/** Channels repository. */
export interface ChannelsRepo {
  /** Insert unless the user already has `max` channels (null = unlimited). */
  create(userId: string, input: ChannelInsert, max: number | null): Promise<ChannelWrite>;
  get(userId: string, id: string): Promise<ChannelRecord | undefined>;
  /** Any user's channel (the delivery worker). */
  getById(id: string): Promise<ChannelRecord | undefined>;
  list(userId: string): Promise<ChannelRecord[]>;
  /** Apply `patch`; undefined when not the user's. */
  update(userId: string, id: string, patch: ChannelUpdate): Promise<ChannelRecord | undefined>;
  delete(userId: string, id: string): Promise<boolean>;
  /** Switch a channel off because its receiver refused it for good. */
  disable(id: string, reason: string): Promise<void>;
  /** Which of `ids` are channels of the user. */
  ownedIds(userId: string, ids: readonly string[]): Promise<Set<string>>;
  /** Replace an alert's channels. */
  setAlertChannels(alertId: string, channelIds: readonly string[]): Promise<void>;
  /** The channels of each alert (alerts without any are absent). */
  alertChannels(alertIds: readonly string[]): Promise<Map<string, string[]>>;
  /** Forget a deleted alert's links. */
  clearAlert(alertId: string): Promise<void>;
}

interface ChannelRow extends Omit<ChannelRecord, 'enabled'> {
  enabled: number;
}

const COLS = 'id, user_id, type, name, target, secret, enabled, disabled_reason, created_at, updated_at';
const toRecord = (r: ChannelRow): ChannelRecord => ({ ...r, enabled: r.enabled === 1 });

/** Create the channels repository. */
export function createChannelsRepo(db: Db): ChannelsRepo {
  const get = async (userId: string, id: string, q: Queryable = db) => {
    const row = await q.get<ChannelRow>(`SELECT ${COLS} FROM notification_channels WHERE user_id = ? AND id = ?`, [userId, id]);
    return row && toRecord(row);
  };
  return {
    create(userId, input, max) {
      return db.transaction(async (tx): Promise<ChannelWrite> => {
        const count = (await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM notification_channels WHERE user_id = ?', [userId]))?.n ?? 0;
        if (max !== null && count >= max) return { ok: false, reason: 'cap', count };
        const id = randomUUID();
        const now = new Date().toISOString();
        await tx.run(`INSERT INTO notification_channels (${COLS}) VALUES (?, ?, ?, ?, ?, ?, 1, NULL, ?, ?)`, [
          id, userId, input.type, input.name, input.target, input.secret, now, now,
        ]);
        return { ok: true, channel: (await get(userId, id, tx))! };
      });
    },
    get: (userId, id) => get(userId, id),
    async getById(id) {
      const row = await db.get<ChannelRow>(`SELECT ${COLS} FROM notification_channels WHERE id = ?`, [id]);
      return row && toRecord(row);
    },
    async list(userId) {
      return (await db.all<ChannelRow>(`SELECT ${COLS} FROM notification_channels WHERE user_id = ? ORDER BY created_at, ${db.dialect.insertionOrder}`, [userId])).map(toRecord);
    },
    async update(userId, id, patch) {
      const sets: string[] = [];
      const params: unknown[] = [];
      for (const k of ['name', 'target', 'secret', 'disabled_reason'] as const) if (patch[k] !== undefined) (sets.push(`${k} = ?`), params.push(patch[k]));
      if (patch.enabled !== undefined) (sets.push('enabled = ?'), params.push(patch.enabled ? 1 : 0));
      sets.push('updated_at = ?');
      params.push(new Date().toISOString());
      const changed = await db.run(`UPDATE notification_channels SET ${sets.join(', ')} WHERE user_id = ? AND id = ?`, [...params, userId, id]);
      return changed.changes === 1 ? get(userId, id) : undefined;
    },
    async delete(userId, id) {
      return (await db.run('DELETE FROM notification_channels WHERE user_id = ? AND id = ?', [userId, id])).changes === 1;
    },
    async disable(id, reason) {
      await db.run('UPDATE notification_channels SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ?', [reason, new Date().toISOString(), id]);
    },
    async ownedIds(userId, ids) {
      if (ids.length === 0) return new Set();
      const rows = await db.all<{ id: string }>(`SELECT id FROM notification_channels WHERE user_id = ? AND ${db.dialect.inTextList('id')}`, [userId, db.dialect.textList(ids)]);
      return new Set(rows.map((r) => r.id));
    },
    setAlertChannels(alertId, channelIds) {
      return db.transaction(async (tx) => {
        await tx.run('DELETE FROM alert_channels WHERE alert_id = ?', [alertId]);
        for (const id of new Set(channelIds)) await tx.run('INSERT INTO alert_channels (alert_id, channel_id) VALUES (?, ?)', [alertId, id]);
      });
    },
    async alertChannels(alertIds) {
      const out = new Map<string, string[]>();
      if (alertIds.length === 0) return out;
      const rows = await db.all<{ alert_id: string; channel_id: string }>(
        `SELECT ac.alert_id, ac.channel_id FROM alert_channels ac JOIN notification_channels c ON c.id = ac.channel_id
         WHERE ${db.dialect.inTextList('ac.alert_id')} ORDER BY c.created_at, c.id`,
        [db.dialect.textList(alertIds)],
      );
      for (const r of rows) out.set(r.alert_id, [...(out.get(r.alert_id) ?? []), r.channel_id]);
      return out;
    },
    async clearAlert(alertId) {
      await db.run('DELETE FROM alert_channels WHERE alert_id = ?', [alertId]);
    },
  };
}
