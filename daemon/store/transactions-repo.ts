/**
 * Portfolio transactions repository: the user's buys and sells, each with the average
 * cost it was measured against and, for a sale, the realised P&L. Scoped to the owner.
 */
import { randomUUID } from 'node:crypto';
import type { PortfolioTransaction } from '../contract/portfolio.js';
import type { Db, Queryable } from './db.js';

/** A recorded transaction (daemon/contract/portfolio.ts). */
export type { PortfolioTransaction } from '../contract/portfolio.js';

/** A page of transactions. */
export interface TransactionPage {
  items: PortfolioTransaction[];
  total: number;
}

/** Transactions repository. */
export interface TransactionsRepo {
  insert(q: Queryable, userId: string, input: Omit<PortfolioTransaction, 'id' | 'created_at'>): Promise<PortfolioTransaction>;
  /** Newest first. */
  list(userId: string, options: { code?: string; limit: number; offset: number }): Promise<TransactionPage>;
  /** Σ realised P&L of the user's sales (0 when none). */
  realizedTotal(userId: string): Promise<number>;
}

const COLS = 'id, stock_code AS code, side, quantity, price, fee, traded_at, average_cost, realized_pnl, created_at';

/** Create the transactions repository. */
export function createTransactionsRepo(db: Db): TransactionsRepo {
  return {
    async insert(q, userId, input) {
      const row: PortfolioTransaction = { id: randomUUID(), ...input, created_at: new Date().toISOString() };
      await q.run(
        `INSERT INTO portfolio_transactions (id, user_id, stock_code, side, quantity, price, fee, traded_at, average_cost, realized_pnl, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [row.id, userId, row.code, row.side, row.quantity, row.price, row.fee, row.traded_at, row.average_cost, row.realized_pnl, row.created_at],
      );
      return row;
    },
    async list(userId, { code, limit, offset }) {
      const where = code ? 'user_id = ? AND stock_code = ?' : 'user_id = ?';
      const params = code ? [userId, code] : [userId];
      const [items, count] = await Promise.all([
        db.all<PortfolioTransaction>(`SELECT ${COLS} FROM portfolio_transactions WHERE ${where} ORDER BY ${db.dialect.insertionOrder} DESC LIMIT ? OFFSET ?`, [...params, limit, offset]),
        db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM portfolio_transactions WHERE ${where}`, params),
      ]);
      return { items, total: count?.n ?? 0 };
    },
    async realizedTotal(userId) {
      const row = await db.get<{ s: number | null }>("SELECT SUM(realized_pnl) AS s FROM portfolio_transactions WHERE user_id = ? AND side = 'sell'", [userId]);
      return row?.s ?? 0;
    },
  };
}
