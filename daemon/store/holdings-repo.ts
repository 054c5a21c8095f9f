/**
 * Holdings repository: a user's portfolio positions (lots). Every read and write is
 * scoped to the owner. Writes take a Queryable so the portfolio service can read and
 * write one stock's lots inside one transaction.
 */
import { randomUUID } from 'node:crypto';
import type { Holding } from '../contract/portfolio.js';
import type { Db, Queryable } from './db.js';

/** A stored holding (daemon/contract/portfolio.ts). `code` is the stock code. */
export type { Holding } from '../contract/portfolio.js';

/** Fields of a new holding. */
export type HoldingInsert = Pick<Holding, 'code' | 'quantity' | 'average_price' | 'acquired_at' | 'note'>;
/** Fields a holding update may change. */
export type HoldingPatch = Partial<Pick<Holding, 'quantity' | 'average_price' | 'acquired_at' | 'note'>>;

/** Holdings repository. */
export interface HoldingsRepo {
  /** The user's holdings, by code then age. */
  list(userId: string, q?: Queryable): Promise<Holding[]>;
  get(userId: string, id: string, q?: Queryable): Promise<Holding | undefined>;
  /** The user's lots of one stock, oldest first. */
  byCode(userId: string, code: string, q?: Queryable): Promise<Holding[]>;
  insert(q: Queryable, userId: string, input: HoldingInsert): Promise<Holding>;
  /** Apply `patch`; undefined when the user has no such holding. */
  update(q: Queryable, userId: string, id: string, patch: HoldingPatch): Promise<Holding | undefined>;
  /** Delete holdings by id; returns how many of the user's were deleted. */
  remove(q: Queryable, userId: string, ids: readonly string[]): Promise<number>;
}

const COLS = 'id, stock_code AS code, quantity, average_price, acquired_at, note, created_at, updated_at';

/** Create the holdings repository. */
export function createHoldingsRepo(db: Db): HoldingsRepo {
  const get = (userId: string, id: string, q: Queryable = db) =>
    q.get<Holding>(`SELECT ${COLS} FROM holdings WHERE user_id = ? AND id = ?`, [userId, id]);
  return {
    list: (userId, q = db) => q.all<Holding>(`SELECT ${COLS} FROM holdings WHERE user_id = ? ORDER BY stock_code, ${q.dialect.insertionOrder}`, [userId]),
    get,
    byCode: (userId, code, q = db) =>
      q.all<Holding>(`SELECT ${COLS} FROM holdings WHERE user_id = ? AND stock_code = ? ORDER BY ${q.dialect.insertionOrder}`, [userId, code]),
    async insert(q, userId, input) {
      const now = new Date().toISOString();
      const row: Holding = { id: randomUUID(), ...input, created_at: now, updated_at: now };
      await q.run(
        'INSERT INTO holdings (id, user_id, stock_code, quantity, average_price, acquired_at, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [row.id, userId, row.code, row.quantity, row.average_price, row.acquired_at, row.note, now, now],
      );
      return row;
    },
    async update(q, userId, id, patch) {
      const keys = (['quantity', 'average_price', 'acquired_at', 'note'] as const).filter((k) => patch[k] !== undefined);
      const sets = [...keys.map((k) => `${k} = ?`), 'updated_at = ?'];
      const r = await q.run(`UPDATE holdings SET ${sets.join(', ')} WHERE user_id = ? AND id = ?`, [
        ...keys.map((k) => patch[k]), new Date().toISOString(), userId, id,
      ]);
      return r.changes === 0 ? undefined : get(userId, id, q);
    },
    async remove(q, userId, ids) {
      if (ids.length === 0) return 0;
      const r = await q.run(`DELETE FROM holdings WHERE user_id = ? AND id IN (${ids.map(() => '?').join(', ')})`, [userId, ...ids]);
      return r.changes;
    },
  };
}
