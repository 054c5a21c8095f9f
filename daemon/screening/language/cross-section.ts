/**
 * Cross-sectional values of the screening language: rank, rank_asc, pct_rank and
 * zscore of one value over a set of rows (the request's universe), optionally within groups.
 * A term's argument is sorted once (with its rows) and every group is ranked in one linear walk
 * over that order. A CrossSectionMemo remembers, per snapshot, the sorted order of each argument
 * that does not depend on the universe (every universe and group reuses it) and each finished
 * column (a repeated screen computes nothing).
 */
import { averageRankPercentile } from '../../kernel/percentile.js';
import type { CrossFn, GroupBy } from './expression-functions.js';
import type { MemoryBudget } from '../engine/memory-budget.js';
import type { Snapshot } from '../engine/snapshot.js';
import { sortPairs } from '../engine/sort-pairs.js';

/**
 * The group of each row (-1: none, the row's result is null), or null for one group.
 * Sector and industry use their dictionary ids, market its index.
 */
export function groupIds(snapshot: Snapshot, by: GroupBy | null): Groups | null {
  if (by === null) return null;
  if (by === 'market') return { ids: snapshot.market, shift: 0, count: 256 };
  const { ids, dict } = snapshot[by];
  // Dictionary id 0 is null: shifted to -1, no group.
  return { ids, shift: 1, count: dict.length };
}

/** Rows with a (finite) value, in ascending order of value. */
export interface SortedValues {
  readonly rows: Int32Array;
  readonly values: Float64Array;
}

/** The rows of `rows` whose value is not null, sorted by value (one sort; memoised by the caller). */
export function sortedValues(value: (row: number) => number, rows: Int32Array): SortedValues {
  const keys = new Float64Array(rows.length);
  const kept = new Int32Array(rows.length);
  let m = 0;
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k]!;
    const v = value(row);
    if (v !== v || v === Number.POSITIVE_INFINITY || v === Number.NEGATIVE_INFINITY) continue;
    keys[m] = v + 0; // -0 sorts and ties as 0
    kept[m++] = row;
  }
  const out = { rows: kept.subarray(0, m), values: keys.subarray(0, m) };
  sortPairs(out.values, out.rows);
  return out;
}

/**
 * `fn` over the rows of `order` (restricted to `universe` when given: 1 = in), per group: a
 * Float64Array indexed by snapshot row, NaN (null) elsewhere, where the value is null and where
 * the row has no group. One linear walk over the sorted values; ties are runs of equal values.
 * - rank: 1 + number of larger values (ties share the best rank: 1, 2, 2, 4); rank_asc mirrors it.
 * - pct_rank: the product's percentile (kernel/percentile.ts: 100 × average ascending rank / n,
 *   pandas `rank(pct=True)`), the scale of the stored composite scores too.
 * - zscore: (v − mean) / population standard deviation; null when that deviation is 0.
 */
export function crossSection(fn: CrossFn, order: SortedValues, size: number, groups: Groups | null, universe: Uint8Array | null): Float64Array {
  const out = new Float64Array(size).fill(Number.NaN);
  const { rows, values } = order;
  const m = rows.length;
  // Group of each sorted entry (-1: skipped) and the number of entries per group.
  const gid = new Int32Array(m);
  const count = new Int32Array(groups === null ? 1 : groups.count);
  const ids = groups === null ? null : groups.ids;
  const shift = groups === null ? 0 : groups.shift;
  for (let j = 0; j < m; j++) {
    const row = rows[j]!;
    const g = universe !== null && universe[row] !== 1 ? -1 : ids === null ? 0 : ids[row]! - shift;
    gid[j] = g;
    if (g >= 0) count[g]!++;
  }
  if (fn === 'zscore') zscores(order, gid, count, out);
  else ranks(fn, order, gid, count, out);
  return out;
}

/** The group of row r is `ids[r] - shift` (-1: none), among `count` groups. */
export interface Groups {
  ids: Uint8Array | Uint16Array;
  shift: number;
  count: number;
}

function ranks(fn: CrossFn, { rows, values }: SortedValues, gid: Int32Array, count: Int32Array, out: Float64Array): void {
  const below = new Int32Array(count.length);
  const tie = new Int32Array(count.length);
  const m = rows.length;
  for (let start = 0; start < m; ) {
    let end = start + 1;
    while (end < m && values[end] === values[start]) end++;
    if (end === start + 1) {
      // No tie (the common case): the value's own rank.
      const g = gid[start]!;
      if (g >= 0) {
        const b = below[g]!;
        const n = count[g]!;
        out[rows[start]!] = fn === 'rank' ? n - b : fn === 'rank_asc' ? b + 1 : averageRankPercentile(b, 1, n);
        below[g] = b + 1;
      }
      start = end;
      continue;
    }
    for (let j = start; j < end; j++) if (gid[j]! >= 0) tie[gid[j]!]!++;
    for (let j = start; j < end; j++) {
      const g = gid[j]!;
      if (g < 0) continue;
      const b = below[g]!;
      const n = count[g]!;
      out[rows[j]!] = fn === 'rank' ? n - b - tie[g]! + 1 : fn === 'rank_asc' ? b + 1 : averageRankPercentile(b, tie[g]!, n);
    }
    for (let j = start; j < end; j++) {
      const g = gid[j]!;
      if (g >= 0 && tie[g]! > 0) {
        below[g]! += tie[g]!;
        tie[g] = 0;
      }
    }
    start = end;
  }
}

function zscores({ rows, values }: SortedValues, gid: Int32Array, count: Int32Array, out: Float64Array): void {
  const sum = new Float64Array(count.length);
  const squares = new Float64Array(count.length);
  for (let j = 0; j < rows.length; j++) if (gid[j]! >= 0) sum[gid[j]!]! += values[j]!;
  for (let g = 0; g < count.length; g++) sum[g] = count[g]! > 0 ? sum[g]! / count[g]! : 0;
  for (let j = 0; j < rows.length; j++) {
    const g = gid[j]!;
    if (g < 0) continue;
    const d = values[j]! - sum[g]!;
    squares[g]! += d * d;
  }
  for (let j = 0; j < rows.length; j++) {
    const g = gid[j]!;
    if (g < 0) continue;
    const sd = Math.sqrt(squares[g]! / count[g]!);
    if (sd > 0) out[rows[j]!] = (values[j]! - sum[g]!) / sd;
  }
}

/** 1 at every row of `rows`. */
export function rowMask(rows: Int32Array, size: number): Uint8Array {
  const mask = new Uint8Array(size);
  for (let k = 0; k < rows.length; k++) mask[rows[k]!] = 1;
  return mask;
}

/**
 * Remembered cross-sectional columns and formula columns per snapshot. Keys name the universe
 * and the canonical term. Bounded by bytes (the values' typed arrays plus the keys), least
 * recently used dropped first, over every snapshot together: a memo never holds more than its
 * budget however many snapshots (live, as-of) or distinct screens pass through it.
 */
export interface CrossSectionMemo {
  /** The value remembered under `key` for `snapshot`, else `compute()`'s result, remembered. */
  get<T extends object>(snapshot: Snapshot, key: string, compute: () => T): T;
  /** The value remembered under `key` for `snapshot`, if any. */
  peek<T extends object>(snapshot: Snapshot, key: string): T | undefined;
  /** Remember `value` under `key` for `snapshot`. */
  put(snapshot: Snapshot, key: string, value: object): void;
  /** Bytes held now (values and keys). */
  bytes(): number;
}

/** Default byte budget of a memo (about 1,400 columns of a 2,700-stock market). */
export const CROSS_SECTION_MEMO_BYTES = 32 * 1024 * 1024;

/** Bytes of a remembered value: the typed arrays it holds (a column, a sorted order, a term). */
export function valueBytes(value: object): number {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  let bytes = 64;
  for (const v of Object.values(value)) if (ArrayBuffer.isView(v)) bytes += v.byteLength;
  return bytes;
}

/**
 * Create a memo (one per screen service; live and as-of screens may keep their own) of at most
 * `maxBytes`, its entries also counted against `memory` (under `holder`) when given.
 */
export function createCrossSectionMemo(maxBytes = CROSS_SECTION_MEMO_BYTES, memory?: MemoryBudget, holder = 'formula_memo'): CrossSectionMemo {
  // Snapshots get a number each, so one Map orders every entry by last use.
  const ids = new WeakMap<Snapshot, number>();
  let nextId = 0;
  const entries = new Map<string, { value: object; bytes: number; used: number }>();
  let held = 0;
  const stamp = memory ? () => memory.stamp() : () => 0;
  memory?.hold(holder, {
    bytes: () => held,
    oldest: () => entries.values().next().value?.used,
    dropOldest() {
      const first = entries.entries().next().value;
      if (!first) return;
      entries.delete(first[0]);
      held -= first[1].bytes;
    },
  });
  const keyOf = (snapshot: Snapshot, key: string): string => {
    let id = ids.get(snapshot);
    if (id === undefined) ids.set(snapshot, (id = nextId++));
    return `${id}\u0000${key}`;
  };
  const peek = <T extends object>(snapshot: Snapshot, key: string): T | undefined => {
    const k = keyOf(snapshot, key);
    const e = entries.get(k);
    if (e === undefined) return undefined;
    entries.delete(k);
    entries.set(k, e);
    e.used = stamp();
    return e.value as T;
  };
  const put = (snapshot: Snapshot, key: string, value: object): void => {
    const k = keyOf(snapshot, key);
    const bytes = valueBytes(value) + 2 * k.length;
    if (bytes > maxBytes / 4) return;
    const old = entries.get(k);
    if (old !== undefined) {
      held -= old.bytes;
      entries.delete(k);
    }
    while (held + bytes > maxBytes && entries.size > 0) {
      const [oldest, e] = entries.entries().next().value as [string, { bytes: number }];
      entries.delete(oldest);
      held -= e.bytes;
    }
    entries.set(k, { value, bytes, used: stamp() });
    held += bytes;
    memory?.fit();
  };
  return {
    get(snapshot, key, compute) {
      const known = peek<ReturnType<typeof compute>>(snapshot, key);
      if (known !== undefined) return known;
      const value = compute();
      put(snapshot, key, value);
      return value;
    },
    peek,
    put,
    bytes: () => held,
  };
}

/** A view of `memo` that remembers only the keys `keep` accepts (the others are computed every time). */
export function filteredMemo(memo: CrossSectionMemo, keep: (key: string) => boolean): CrossSectionMemo {
  return {
    get: (snapshot, key, compute) => (keep(key) ? memo.get(snapshot, key, compute) : compute()),
    peek: (snapshot, key) => (keep(key) ? memo.peek(snapshot, key) : undefined),
    put: (snapshot, key, value) => (keep(key) ? memo.put(snapshot, key, value) : undefined),
    bytes: () => memo.bytes(),
  };
}
