/** Backtest runs repository (issue 23): every read is scoped to the owner; results kept as JSON. */
import type { Db } from './db.js';

/** A stored run. `request` is the validated request; `result` is set once completed. */
export interface StoredBacktest {
  id: string;
  status: 'running' | 'completed' | 'failed';
  done: number;
  total: number;
  request: Record<string, unknown>;
  result: unknown;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

interface Row extends Omit<StoredBacktest, 'request' | 'result'> {
  request_json: string;
  result_json: string | null;
}

/** Backtests repository. */
export interface BacktestsRepo {
  create(userId: string, id: string, request: Record<string, unknown>, total: number): Promise<void>;
  progress(id: string, done: number, total: number): Promise<void>;
  finish(id: string, outcome: { result: unknown } | { error: string }): Promise<void>;
  /** Renew the heartbeat of these runs (the ones this daemon holds) at `nowIso`. */
  heartbeat(ids: readonly string[], nowIso: string): Promise<void>;
  /**
   * Mark the owner's running runs whose heartbeat is older than `cutoffIso` failed (the daemon
   * holding them stopped without finishing them: killed, crashed). Returns how many.
   */
  failStale(userId: string, cutoffIso: string, nowIso: string): Promise<number>;
  /** The owner's run, or undefined (another user's run is undefined too). */
  get(userId: string, id: string): Promise<StoredBacktest | undefined>;
  /** The owner's runs, newest first, without their results. */
  list(userId: string, limit: number): Promise<StoredBacktest[]>;
}

const toRun = ({ request_json, result_json, ...row }: Row): StoredBacktest => ({
  ...row, done: Number(row.done), total: Number(row.total),
  request: JSON.parse(request_json) as Record<string, unknown>, result: result_json === null ? null : (JSON.parse(result_json) as unknown),
});

/** The error of a run whose daemon stopped without finishing it. */
export const STALE_ERROR = 'interrupted: the daemon running it stopped (killed or crashed) before it finished; start it again';

/** Create the backtests repository. */
export function createBacktestsRepo(db: Db): BacktestsRepo {
  return {
    async create(userId, id, request, total) {
      const now = new Date().toISOString();
      await db.run('INSERT INTO backtests (id, user_id, status, done, total, request_json, created_at, heartbeat_at) VALUES (?, ?, ?, 0, ?, ?, ?, ?)', [
        id, userId, 'running', total, JSON.stringify(request), now, now,
      ]);
    },
    async progress(id, done, total) {
      await db.run("UPDATE backtests SET done = ?, total = ? WHERE id = ? AND status = 'running'", [done, total, id]);
    },
    async finish(id, outcome) {
      const now = new Date().toISOString();
      if ('result' in outcome) await db.run("UPDATE backtests SET status = 'completed', done = total, result_json = ?, finished_at = ? WHERE id = ?", [JSON.stringify(outcome.result), now, id]);
      else await db.run("UPDATE backtests SET status = 'failed', error = ?, finished_at = ? WHERE id = ?", [outcome.error, now, id]);
    },
    async heartbeat(ids, nowIso) {
      for (const id of ids) await db.run("UPDATE backtests SET heartbeat_at = ? WHERE id = ? AND status = 'running'", [nowIso, id]);
    },
    async failStale(userId, cutoffIso, nowIso) {
      const stale = await db.all<{ id: string }>("SELECT id FROM backtests WHERE user_id = ? AND status = 'running' AND heartbeat_at < ?", [userId, cutoffIso]);
      for (const { id } of stale) {
        await db.run(
          "UPDATE backtests SET status = 'failed', error = ?, finished_at = ? WHERE id = ? AND status = 'running' AND heartbeat_at < ?",
          [STALE_ERROR, nowIso, id, cutoffIso],
        );
      }
      return stale.length;
    },
    async get(userId, id) {
      const row = await db.get<Row>('SELECT id, status, done, total, request_json, result_json, error, created_at, finished_at FROM backtests WHERE user_id = ? AND id = ?', [userId, id]);
      return row && toRun(row);
    },
    async list(userId, limit) {
      const rows = await db.all<Row>(
        'SELECT id, status, done, total, request_json, NULL AS result_json, error, created_at, finished_at FROM backtests WHERE user_id = ? ORDER BY created_at DESC, id LIMIT ?',
        [userId, limit],
      );
      return rows.map(toRun);
    },
  };
}
