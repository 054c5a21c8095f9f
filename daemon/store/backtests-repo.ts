/**
 * Backtest runs repository: every owner-facing read is scoped to the owner; results
 * kept as JSON. The row is the truth about a run for every daemon: the queue only carries its id.
 * State moves queued → running → completed | failed, and queued | running → cancelled; a run
 * taken back from a stopped daemon goes running → queued. Writes by a worker are conditional on
 * the state they expect, so a cancelled run stays cancelled whatever its worker does next.
 */
import type { BacktestPhase, BacktestResult, BacktestRun } from '../contract/backtests.js';
import type { Db, Params, Queryable } from './db.js';

/** The states of a run (daemon/contract/backtests.ts). */
export type { BacktestPhase, BacktestStatus } from '../contract/backtests.js';

/** A stored run: the wire's BacktestRun. `request` is the validated request; `result` is set once completed. */
export type StoredBacktest = BacktestRun;

interface Row extends Omit<StoredBacktest, 'request' | 'result'> {
  request_json: string;
  result_json: string | null;
}

/** Why a capped create was refused: the owner's active runs, or the whole queue, at their limit. */
export type BacktestCreate = { ok: true } | { ok: false; reason: 'user'; active: number } | { ok: false; reason: 'queue'; queued: number };

/** Limits a create checks in the same transaction (null = none). */
export interface BacktestCaps {
  /** Most queued + running runs of the owner. */
  perUser: number | null;
  /** Most queued runs of every user together (only checked for a queued run). */
  queued: number | null;
}

/** Backtests repository. */
export interface BacktestsRepo {
  /**
   * Insert a run as `status` unless a cap is reached; its phase is `phase` (default: `queued` for
   * a queued run, `reading_history` for one run at once).
   */
  create(userId: string, id: string, request: Record<string, unknown>, total: number, status: 'queued' | 'running', caps?: BacktestCaps, phase?: BacktestPhase): Promise<BacktestCreate>;
  /** A run accepted before its dates were known is planned: its total is set and it waits for a worker. False when it ended meanwhile. */
  planned(id: string, total: number): Promise<boolean>;
  /** Record what an active run is doing; false when it is no longer active (cancelled meanwhile). */
  phase(id: string, phase: BacktestPhase): Promise<boolean>;
  /** A worker takes the run: queued (or running, taken back from a stopped worker) → running from 0. False when it is no longer to run. */
  claim(id: string): Promise<boolean>;
  /** Record progress; false when the run is no longer running (cancelled meanwhile). */
  progress(id: string, done: number, total: number): Promise<boolean>;
  /** Completed or failed, unless it was cancelled or already finished. */
  finish(id: string, outcome: { result: BacktestResult } | { error: string }): Promise<void>;
  /**
   * A running run given back to the queue: running → queued, progress reset (its daemon
   * stopped) or kept at `done` (its turn ended: it resumes after those dates).
   */
  requeue(id: string, done?: number): Promise<void>;
  /** The owner cancels a queued or running run; false when it is not theirs or already finished. */
  cancel(userId: string, id: string): Promise<boolean>;
  /** The owner's run, or undefined (another user's run is undefined too). */
  get(userId: string, id: string): Promise<StoredBacktest | undefined>;
  /** The owner's runs, newest first, without their results. */
  list(userId: string, limit: number): Promise<StoredBacktest[]>;
}

const toRun = ({ request_json, result_json, ...row }: Row): StoredBacktest => ({
  ...row, done: Number(row.done), total: Number(row.total),
  request: JSON.parse(request_json) as Record<string, unknown>, result: result_json === null ? null : (JSON.parse(result_json) as BacktestResult),
});

const ACTIVE = "status IN ('queued', 'running')";
const count = async (q: Queryable, where: string, params: Params) =>
  Number((await q.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM backtests WHERE ${where}`, params))?.n ?? 0);

/** Create the backtests repository. */
export function createBacktestsRepo(db: Db): BacktestsRepo {
  const now = () => new Date().toISOString();
  return {
    create(userId, id, request, total, status, caps = { perUser: null, queued: null }, phase = status === 'queued' ? 'queued' : 'reading_history') {
      return db.transaction(async (tx): Promise<BacktestCreate> => {
        if (caps.perUser !== null) {
          const active = await count(tx, `user_id = ? AND ${ACTIVE}`, [userId]);
          if (active >= caps.perUser) return { ok: false, reason: 'user', active };
        }
        if (caps.queued !== null && status === 'queued') {
          const queued = await count(tx, "status = 'queued'", []);
          if (queued >= caps.queued) return { ok: false, reason: 'queue', queued };
        }
        await tx.run('INSERT INTO backtests (id, user_id, status, phase, done, total, request_json, created_at) VALUES (?, ?, ?, ?, 0, ?, ?, ?)', [
          id, userId, status, phase, total, JSON.stringify(request), now(),
        ]);
        return { ok: true };
      });
    },
    async claim(id) {
      return (await db.run(`UPDATE backtests SET status = 'running', phase = 'reading_history', done = 0 WHERE id = ? AND ${ACTIVE}`, [id])).changes > 0;
    },
    async planned(id, total) {
      return (await db.run("UPDATE backtests SET total = ?, phase = 'queued' WHERE id = ? AND status = 'queued'", [total, id])).changes > 0;
    },
    async phase(id, phase) {
      return (await db.run(`UPDATE backtests SET phase = ? WHERE id = ? AND ${ACTIVE}`, [phase, id])).changes > 0;
    },
    async progress(id, done, total) {
      return (await db.run("UPDATE backtests SET done = ?, total = ?, phase = 'screening' WHERE id = ? AND status = 'running'", [done, total, id])).changes > 0;
    },
    async finish(id, outcome) {
      if ('result' in outcome) {
        await db.run(`UPDATE backtests SET status = 'completed', phase = NULL, done = total, result_json = ?, finished_at = ? WHERE id = ? AND ${ACTIVE}`, [JSON.stringify(outcome.result), now(), id]);
      } else {
        await db.run(`UPDATE backtests SET status = 'failed', phase = NULL, error = ?, finished_at = ? WHERE id = ? AND ${ACTIVE}`, [outcome.error, now(), id]);
      }
    },
    async requeue(id, done = 0) {
      await db.run("UPDATE backtests SET status = 'queued', phase = 'queued', done = ? WHERE id = ? AND status = 'running'", [done, id]);
    },
    async cancel(userId, id) {
      const res = await db.run(`UPDATE backtests SET status = 'cancelled', phase = NULL, finished_at = ? WHERE user_id = ? AND id = ? AND ${ACTIVE}`, [now(), userId, id]);
      return res.changes > 0;
    },
    async get(userId, id) {
      const row = await db.get<Row>('SELECT id, status, phase, done, total, request_json, result_json, error, created_at, finished_at FROM backtests WHERE user_id = ? AND id = ?', [userId, id]);
      return row && toRun(row);
    },
    async list(userId, limit) {
      const rows = await db.all<Row>(
        'SELECT id, status, phase, done, total, request_json, NULL AS result_json, error, created_at, finished_at FROM backtests WHERE user_id = ? ORDER BY created_at DESC, id LIMIT ?',
        [userId, limit],
      );
      return rows.map(toRun);
    },
  };
}
