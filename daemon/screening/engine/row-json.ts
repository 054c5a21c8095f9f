/**
 * Pre-serialised rows: each stock's item JSON, as UTF-8 bytes, built once per snapshot and
 * column list and then shared by every page that shows it.
 *
 * A snapshot never changes once built, so the item of one row with one column list (the
 * columns follow from the query's filters, sort, expression and fields) is the same bytes for
 * every request on it. A page's body is then those fragments joined by commas inside brackets:
 * exactly the bytes `JSON.stringify(items)` encoded as UTF-8 gives (JSON.stringify of an array
 * is its elements' JSON joined that way), without building the item objects, the JSON string
 * or its UTF-8 encoding again per request. Names are mostly Korean, which makes that encoding
 * the costly part of answering a page.
 *
 * The fragments live beside the snapshot (a WeakMap: released with it) and are bounded by bytes
 * per snapshot; the column list seen longest ago is dropped first.
 */
import { buildItem } from './query.js';
import type { Snapshot } from './snapshot.js';

/** Bytes of fragments kept per snapshot (all column lists together). */
export const ROW_JSON_BYTES = 16 * 1024 * 1024;

/** The fragments of one column list: a row's bytes once built. */
interface ColumnFragments {
  rows: (Buffer | undefined)[];
  bytes: number;
}

/** The fragments of one snapshot, by column list (Map order: least recently used first). */
interface SnapshotFragments {
  byColumns: Map<string, ColumnFragments>;
  bytes: number;
}

const FRAGMENTS = new WeakMap<Snapshot, SnapshotFragments>();

const OPEN = 0x5b; // [
const COMMA = 0x2c; // ,
const CLOSE = 0x5d; // ]

/**
 * The UTF-8 JSON array of the items of `rows` (in that order) with `columns`, as
 * `Buffer.from(JSON.stringify(rows.map((r) => buildItem(snapshot, r, columns))))` gives it,
 * after `prefix` in the same buffer (so a cache value holding both costs no second copy).
 * Only for snapshots that serve many requests and whose memory nobody else counts (the daemon's
 * current one): the fragments stay with the snapshot.
 */
export function rowsJson(snapshot: Snapshot, rows: Int32Array, columns: readonly string[], prefix?: Buffer): Buffer {
  const fragments = fragmentsOf(snapshot, columns);
  const before = prefix?.length ?? 0;
  let length = before + 2 + Math.max(0, rows.length - 1);
  const parts: Buffer[] = new Array<Buffer>(rows.length);
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k]!;
    let part = fragments.rows[row];
    if (part === undefined) {
      part = Buffer.from(JSON.stringify(buildItem(snapshot, row, columns)));
      fragments.rows[row] = part;
      fragments.bytes += part.length;
      grow(snapshot, part.length);
    }
    parts[k] = part;
    length += part.length;
  }
  const out = Buffer.allocUnsafe(length);
  if (prefix !== undefined) prefix.copy(out, 0);
  out[before] = OPEN;
  let at = before + 1;
  for (let k = 0; k < parts.length; k++) {
    if (k > 0) out[at++] = COMMA;
    at += parts[k]!.copy(out, at);
  }
  out[at] = CLOSE;
  return out;
}

/** The fragments of `columns` on `snapshot`, marked most recently used. */
function fragmentsOf(snapshot: Snapshot, columns: readonly string[]): ColumnFragments {
  let all = FRAGMENTS.get(snapshot);
  if (all === undefined) {
    all = { byColumns: new Map(), bytes: 0 };
    FRAGMENTS.set(snapshot, all);
  }
  const key = columns.join(',');
  let mine = all.byColumns.get(key);
  if (mine === undefined) mine = { rows: new Array<Buffer | undefined>(snapshot.size), bytes: 0 };
  else all.byColumns.delete(key);
  all.byColumns.set(key, mine);
  return mine;
}

/** Count `bytes` more on `snapshot`, dropping the least recently used column lists past the bound (never the one in use, the last). */
function grow(snapshot: Snapshot, bytes: number): void {
  const all = FRAGMENTS.get(snapshot)!;
  all.bytes += bytes;
  while (all.bytes > ROW_JSON_BYTES && all.byColumns.size > 1) {
    const [oldest, dropped] = all.byColumns.entries().next().value as [string, ColumnFragments];
    all.byColumns.delete(oldest);
    all.bytes -= dropped.bytes;
  }
}

/** Bytes of fragments held for `snapshot` (for tests and stats). */
export function rowsJsonBytes(snapshot: Snapshot): number {
  return FRAGMENTS.get(snapshot)?.bytes ?? 0;
}
