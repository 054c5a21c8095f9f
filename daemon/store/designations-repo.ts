/** Designations by day: what dated all-issue files said of each issue's designation. */
import type { DesignationRecord } from '../kernel/records.js';
import { bulkUpsert } from './bulk.js';
import type { Db, Queryable } from './db.js';
import { LIVE_TABLES, type MarketTableNames } from './market-tables.js';

const COLUMNS = ['stock_code', 'trade_date', 'is_administrative', 'board'] as const;

/** Designations repository. */
export interface DesignationsRepo {
  /** Insert or replace (stock, day) statements; returns the rows written. */
  upsert(q: Queryable, rows: readonly DesignationRecord[]): Promise<number>;
  /** Every statement, by code then date (a few thousand rows a loaded day). */
  all(): Promise<DesignationRecord[]>;
}

/** Create the designations repository. */
export function createDesignationsRepo(db: Db, t: MarketTableNames = LIVE_TABLES): DesignationsRepo {
  return {
    upsert(q, rows) {
      if (rows.length === 0) return Promise.resolve(0);
      const values = rows.map((r) => [r.stock_code, r.trade_date, r.is_administrative ? 1 : 0, r.board]);
      return bulkUpsert(q, { table: t.stock_designations, columns: COLUMNS, key: ['stock_code', 'trade_date'] }, values);
    },
    async all() {
      const rows = await db.all<Omit<DesignationRecord, 'is_administrative'> & { is_administrative: number }>(
        `SELECT stock_code, trade_date, is_administrative, board FROM ${t.stock_designations} ORDER BY stock_code, trade_date`,
      );
      return rows.map((r) => ({ ...r, is_administrative: Number(r.is_administrative) === 1 }));
    },
  };
}
