/**
 * Digest schedules repository: a user's schedules (scoped to the owner for the API, all of them
 * for the digest clock), their channels, and their runs. A run is recorded once per schedule and
 * trading day (UNIQUE (schedule_id, trade_date)); the caller creates its deliveries in the same
 * transaction, so a digest is sent once whatever the number of daemons, and never lost.
 */
import { randomUUID } from 'node:crypto';
import type { DigestMember } from '../contract/notify.js';
import type { Db, Queryable } from './db.js';

/** A stored schedule with its channels and last run. */
export interface ScheduleRecord {
  id: string;
  user_id: string;
  preset_id: string;
  preset_name: string;
  /** `HH:MM`, Korea time. */
  at: string;
  channels: string[];
  created_at: string;
  last_run: RunRecord | null;
}

/** A stored run. */
export interface RunRecord {
  id: string;
  schedule_id: string;
  trade_date: string;
  ran_at: number;
  members: DigestMember[];
  entered: number;
  exited: number;
}

/** Outcome of a create bounded by the tier cap. */
export type ScheduleWrite = { ok: true; schedule: ScheduleRecord } | { ok: false; reason: 'cap'; count: number };

/** Schedules repository. */
export interface SchedulesRepo {
  create(userId: string, input: { preset_id: string; at: string; channels: readonly string[]; created_at: string }, max: number | null): Promise<ScheduleWrite>;
  get(userId: string, id: string): Promise<ScheduleRecord | undefined>;
  list(userId: string): Promise<ScheduleRecord[]>;
  delete(userId: string, id: string): Promise<boolean>;
  /** Every schedule of every user (the digest clock). */
  all(): Promise<ScheduleRecord[]>;
  /**
   * Record today's run unless one is recorded (false then); `then` runs in the same transaction
   * (it creates the run's deliveries) and must only touch the database.
   */
  recordRun(run: Omit<RunRecord, 'id'> & { id?: string }, then: (tx: Queryable, runId: string) => Promise<void>): Promise<boolean>;
}

interface ScheduleRow {
  id: string;
  user_id: string;
  preset_id: string;
  preset_name: string;
  at: string;
  created_at: string;
}

interface RunRow extends Omit<RunRecord, 'members'> {
  members: string;
}

const SELECT = `SELECT s.id, s.user_id, s.preset_id, p.name AS preset_name, s.at, s.created_at FROM schedules s JOIN screen_presets p ON p.id = s.preset_id`;

/** Create the schedules repository. */
export function createSchedulesRepo(db: Db): SchedulesRepo {
  async function complete(rows: ScheduleRow[], q: Queryable = db): Promise<ScheduleRecord[]> {
    if (rows.length === 0) return [];
    const ids = q.dialect.textList(rows.map((r) => r.id));
    const [links, runs] = await Promise.all([
      q.all<{ schedule_id: string; channel_id: string }>(`SELECT schedule_id, channel_id FROM schedule_channels WHERE ${q.dialect.inTextList('schedule_id')} ORDER BY channel_id`, [ids]),
      // The latest run of each schedule.
      q.all<RunRow>(
        `SELECT r.id, r.schedule_id, r.trade_date, r.ran_at, r.members, r.entered, r.exited FROM schedule_runs r
         WHERE ${q.dialect.inTextList('r.schedule_id')} AND r.trade_date = (SELECT MAX(trade_date) FROM schedule_runs x WHERE x.schedule_id = r.schedule_id)`,
        [ids],
      ),
    ]);
    return rows.map((r) => {
      const run = runs.find((x) => x.schedule_id === r.id);
      return {
        ...r,
        channels: links.filter((l) => l.schedule_id === r.id).map((l) => l.channel_id),
        last_run: run ? { ...run, members: JSON.parse(run.members) as DigestMember[] } : null,
      };
    });
  }

  const get = async (userId: string, id: string, q: Queryable = db) => {
    const row = await q.get<ScheduleRow>(`${SELECT} WHERE s.user_id = ? AND s.id = ?`, [userId, id]);
    return row ? (await complete([row], q))[0] : undefined;
  };

  return {
    create(userId, input, max) {
      return db.transaction(async (tx): Promise<ScheduleWrite> => {
        const count = (await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM schedules WHERE user_id = ?', [userId]))?.n ?? 0;
        if (max !== null && count >= max) return { ok: false, reason: 'cap', count };
        const id = randomUUID();
        await tx.run('INSERT INTO schedules (id, user_id, preset_id, at, created_at) VALUES (?, ?, ?, ?, ?)', [id, userId, input.preset_id, input.at, input.created_at]);
        for (const channel of new Set(input.channels)) await tx.run('INSERT INTO schedule_channels (schedule_id, channel_id) VALUES (?, ?)', [id, channel]);
        return { ok: true, schedule: (await get(userId, id, tx))! };
      });
    },
    get: (userId, id) => get(userId, id),
    async list(userId) {
      return complete(await db.all<ScheduleRow>(`${SELECT} WHERE s.user_id = ? ORDER BY s.created_at, s.${db.dialect.insertionOrder}`, [userId]));
    },
    async delete(userId, id) {
      return (await db.run('DELETE FROM schedules WHERE user_id = ? AND id = ?', [userId, id])).changes === 1;
    },
    async all() {
      return complete(await db.all<ScheduleRow>(`${SELECT} ORDER BY s.at, s.id`));
    },
    recordRun(run, then) {
      return db.transaction(async (tx) => {
        const id = run.id ?? randomUUID();
        const inserted = await tx.run(
          `INSERT INTO schedule_runs (id, schedule_id, trade_date, ran_at, members, entered, exited) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (schedule_id, trade_date) DO NOTHING`,
          [id, run.schedule_id, run.trade_date, run.ran_at, JSON.stringify(run.members), run.entered, run.exited],
        );
        if (inserted.changes === 0) return false;
        await then(tx, id);
        return true;
      });
    },
  };
}
