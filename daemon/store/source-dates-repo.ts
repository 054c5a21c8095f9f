/** What each data source has committed, unit by unit (migration 032). */
import type { Db, Queryable } from './db.js';

/** One committed unit of a source (a trading date). */
export interface SourceUnitRecord {
  source: string;
  unit: string;
  content_hash: string;
  rows_ok: number;
  rows_rejected: number;
  loaded_at: string;
}

/** The source_dates repository. */
export interface SourceDatesRepo {
  /** The stored record of one unit, read inside `tx` when given. */
  get(source: string, unit: string, tx?: Queryable): Promise<SourceUnitRecord | undefined>;
  /** Insert or replace one unit's record (inside the unit's transaction). */
  record(tx: Queryable, rec: SourceUnitRecord): Promise<void>;
  /** Every unit of `source` → its content hash. */
  hashes(source: string): Promise<Map<string, string>>;
  /** The latest unit committed and when the latest commit happened, or nulls. */
  latest(source: string): Promise<{ unit: string | null; loaded_at: string | null }>;
}

/** Create the repository over `db`. */
export function createSourceDatesRepo(db: Db): SourceDatesRepo {
  return {
    async get(source, unit, tx = db) {
      const row = await tx.get<SourceUnitRecord>('SELECT source, unit, content_hash, rows_ok, rows_rejected, loaded_at FROM source_dates WHERE source = ? AND unit = ?', [source, unit]);
      return row && { ...row, rows_ok: Number(row.rows_ok), rows_rejected: Number(row.rows_rejected) };
    },
    async record(tx, r) {
      await tx.run(
        `INSERT INTO source_dates (source, unit, content_hash, rows_ok, rows_rejected, loaded_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (source, unit) DO UPDATE SET content_hash = excluded.content_hash, rows_ok = excluded.rows_ok,
           rows_rejected = excluded.rows_rejected, loaded_at = excluded.loaded_at`,
        [r.source, r.unit, r.content_hash, r.rows_ok, r.rows_rejected, r.loaded_at],
      );
    },
    async hashes(source) {
      const rows = await db.all<{ unit: string; content_hash: string }>('SELECT unit, content_hash FROM source_dates WHERE source = ?', [source]);
      return new Map(rows.map((r) => [r.unit, r.content_hash]));
    },
    async latest(source) {
      const row = await db.get<{ unit: string | null; loaded_at: string | null }>('SELECT MAX(unit) AS unit, MAX(loaded_at) AS loaded_at FROM source_dates WHERE source = ?', [source]);
      return { unit: row?.unit ?? null, loaded_at: row?.loaded_at ?? null };
    },
  };
}
