/** Stocks repository: listed issues with partial-update merges from loaders. */
import type { StockRecord } from '../kernel/records.js';
import type { Db, Queryable } from './db.js';
import { LIVE_TABLES, type MarketTableNames } from './market-tables.js';
import { keysetPages } from './keyset-pages.js';

/** A partial update: `code` plus only the fields a source carries (absent = keep). */
export type StockUpdate = { code: string } & Partial<Omit<StockRecord, 'code'>>;

const COLUMNS = [
  'name', 'name_english', 'market', 'sector', 'industry', 'listing_date', 'shares_outstanding',
  'board', 'settle_month', 'is_administrative', 'is_spac', 'is_preferred',
] as const;

type StockRow = Omit<StockRecord, 'is_administrative' | 'is_spac' | 'is_preferred'> & {
  is_administrative: number;
  is_spac: number;
  is_preferred: number;
  updated_at: string;
};

/** Rows per read of `all()` (~3 ms of driver work each). */
const ALL_PAGE_ROWS = 400;

function toRecord(row: StockRow): StockRecord {
  return {
    code: row.code, name: row.name, name_english: row.name_english, market: row.market, sector: row.sector,
    industry: row.industry, listing_date: row.listing_date, shares_outstanding: row.shares_outstanding,
    board: row.board, settle_month: row.settle_month, is_administrative: row.is_administrative === 1,
    is_spac: row.is_spac === 1, is_preferred: row.is_preferred === 1,
  };
}

function toColumn(key: string, value: unknown): unknown {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

/** Stocks repository. */
export interface StocksRepo {
  /**
   * Merge updates in `q` (a transaction): present keys overwrite, absent keys keep.
   * New codes need name and market; others are returned as `unknown`. `known` is every
   * listed code after the merge.
   */
  merge(q: Queryable, updates: readonly StockUpdate[]): Promise<{ written: number; unknown: string[]; known: Set<string> }>;
  get(code: string): Promise<StockRecord | undefined>;
  all(): Promise<StockRecord[]>;
  count(): Promise<number>;
  codes(q?: Queryable): Promise<Set<string>>;
  sectors(): Promise<string[]>;
}

/** Create the stocks repository. */
export function createStocksRepo(db: Db, t: MarketTableNames = LIVE_TABLES): StocksRepo {
  return {
    async merge(q, updates) {
      const existing = await this.codes(q);
      const unknown: string[] = [];
      let written = 0;
      const now = new Date().toISOString();
      for (const u of updates) {
        const keys = COLUMNS.filter((c) => u[c] !== undefined);
        const values = keys.map((k) => toColumn(k, u[k]));
        if (existing.has(u.code)) {
          if (keys.length === 0) continue;
          const r = await q.run(`UPDATE ${t.stocks} SET ${keys.map((k) => `${k} = ?`).join(', ')}, updated_at = ? WHERE code = ?`, [...values, now, u.code]);
          written += r.changes;
        } else if (u.name !== undefined && u.market !== undefined) {
          await q.run(`INSERT INTO ${t.stocks} (code, ${keys.join(', ')}, updated_at) VALUES (?, ${keys.map(() => '?').join(', ')}, ?)`, [u.code, ...values, now]);
          existing.add(u.code);
          written += 1;
        } else {
          unknown.push(u.code);
        }
      }
      return { written, unknown, known: existing };
    },
    async get(code) {
      const row = await db.get<StockRow>(`SELECT * FROM ${t.stocks} WHERE code = ?`, [code]);
      return row && toRecord(row);
    },
    async all() {
      // Paged (2,700 stocks in one read held the event loop ~20 ms). A load committing between
      // pages may show in later pages only; every caller (indicator run, snapshot build) is
      // followed by another run after such a load.
      const out: StockRecord[] = [];
      for await (const page of keysetPages<StockRow>(db, `SELECT * FROM ${t.stocks} WHERE code > ? ORDER BY code LIMIT ?`, (r) => r.code, ALL_PAGE_ROWS)) {
        for (const row of page) out.push(toRecord(row));
      }
      return out;
    },
    async count() {
      return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t.stocks}`))?.n ?? 0;
    },
    async codes(q = db) {
      return new Set((await q.all<{ code: string }>(`SELECT code FROM ${t.stocks}`)).map((r) => r.code));
    },
    async sectors() {
      return (await db.all<{ sector: string }>(`SELECT DISTINCT sector FROM ${t.stocks} WHERE sector IS NOT NULL ORDER BY sector`)).map((r) => r.sector);
    },
  };
}
