/**
 * Whole-table reads in pages by key. The sqlite driver turns a whole result into JS objects
 * in one main-thread callback, so a large read is split into pages, each a short callback.
 */
import type { Queryable } from './db.js';

/**
 * The rows of `sql` page by page. `sql` takes two parameters, the last key read (starting
 * from '') and the page size, and must answer the rows whose key is greater, ordered by it:
 * `... WHERE code > ? ORDER BY code LIMIT ?`. Pages are separate reads: a write committed
 * meanwhile may show in later pages only.
 */
export async function* keysetPages<T>(db: Queryable, sql: string, keyOf: (row: T) => string, pageRows: number): AsyncGenerator<T[]> {
  for (let after = ''; ; ) {
    const page = await db.all<T>(sql, [after, pageRows]);
    if (page.length > 0) yield page;
    if (page.length < pageRows) return;
    after = keyOf(page[page.length - 1]!);
  }
}
