/**
 * Presorted row orders of a snapshot, and the page of a plain screen read off them.
 *
 * A snapshot never changes once built, so the order of its rows by one sort key (one field,
 * one direction) is the same for every request on it. Each such order is computed once, on
 * first use, with the engine's own sort (sort-rows.ts: nulls last in both directions, -0 equal
 * to 0, ties by stock code) and kept beside the snapshot for as long as the snapshot lives.
 * A request then needs no sort at all:
 *
 * - **Conditions.** The range filter whose bounds select the fewest rows (two binary searches
 *   over its field's ascending order) names the candidates; every condition (universe, every
 *   filter, the expression) is then checked on those candidates only, and each match is marked
 *   in a byte per row. The total is the number of marks: the same rows the straightforward scan
 *   of every row accepts, since no row outside the chosen slice can pass its filter.
 * - **Order.** The matches are read off the first sort key's order, skipping unmarked rows,
 *   and the scan stops as soon as the page (offset + per_page) is full. Rows that tie on the
 *   first key are contiguous there, already in code order; when more keys follow, each such
 *   group is ordered by the remaining keys (and code) with the engine's sort as it is closed,
 *   which gives exactly the multi-key order of a full sort, and the scan stops only between
 *   two groups.
 *
 * Formula columns and cross-sectional terms (ranks, percentiles, z-scores) read columns that
 * exist only for one request, so screens using them take the general path (query.ts).
 */
import { MARKETS } from '../../kernel/records.js';
import { candidateRows, dictMask } from './select.js';
import { FLAG_BITS } from './snapshot.js';
import type { Snapshot } from './snapshot.js';
import { sortRows } from './sort-rows.js';
import type { RangeFilter, SortKey, Universe } from '../request/query-types.js';

/** One sort key's order of every row of a snapshot. */
export interface RowOrder {
  /** Every row, in the key's order (nulls last, ties by code). */
  readonly rows: Int32Array;
  /** Rows with a value: `rows[0..known)`; the nulls follow. */
  readonly known: number;
}

/** The presorted orders of one snapshot, each built on first use. */
export interface SnapshotOrders {
  /** The order of `field` in `direction`; undefined when the snapshot cannot sort on it (no such column, not code or name). */
  order(field: string, direction: SortKey['direction']): RowOrder | undefined;
  /** Whether that order is built already. */
  built(field: string, direction: SortKey['direction']): boolean;
  /** Bytes held by the orders built so far. */
  bytes(): number;
}

const ORDERS = new WeakMap<Snapshot, SnapshotOrders>();

/** The orders of `snapshot`, shared by every request on it and released with it. */
export function ordersOf(snapshot: Snapshot): SnapshotOrders {
  let orders = ORDERS.get(snapshot);
  if (orders === undefined) {
    orders = createOrders(snapshot);
    ORDERS.set(snapshot, orders);
  }
  return orders;
}

function createOrders(snapshot: Snapshot): SnapshotOrders {
  const built = new Map<string, RowOrder>();
  let bytes = 0;
  return {
    order(field, direction) {
      const key = `${direction}:${field}`;
      const known = built.get(key);
      if (known !== undefined) return known;
      const column = snapshot.columns.get(field);
      if (column === undefined && field !== 'code' && field !== 'name') return undefined;
      const rows = new Int32Array(snapshot.size);
      for (let i = 0; i < rows.length; i++) rows[i] = i;
      sortRows(snapshot, rows, [{ field, direction }]);
      const order: RowOrder = Object.freeze({ rows, known: column === undefined ? rows.length : firstNull(column.values, rows) });
      built.set(key, order);
      bytes += rows.byteLength;
      return order;
    },
    built: (field, direction) => built.has(`${direction}:${field}`),
    bytes: () => bytes,
  };
}

/** Position of the first null in `rows` (nulls are last): a binary search. */
function firstNull(values: Float64Array, rows: Int32Array): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = values[rows[mid]!]!;
    if (v === v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One page of a screen: how many rows match, and the rows of the page in order. */
export interface PresortedPage {
  total: number;
  rows: Int32Array;
}

const EMPTY = new Int32Array(0);

/**
 * The rows `start … start + count - 1` (0-based) of the matches of universe, filters and
 * `predicate` in `sort` order, and the number of matches: what filterRows + sortRows + a slice
 * give, without sorting. `predicate` is called exactly for the rows that pass the universe and
 * every filter, as the straightforward scan calls it; given as a mask (expression-masks.ts: 1
 * where the expression holds), it is read instead, for the same rows.
 */
export function presortedPage(
  snapshot: Snapshot,
  universe: Universe,
  filters: readonly RangeFilter[],
  predicate: ((row: number) => boolean) | Uint8Array | undefined,
  sort: readonly SortKey[],
  start: number,
  count: number,
): PresortedPage {
  const orders = ordersOf(snapshot);
  const columns: Float64Array[] = [];
  for (const f of filters) {
    const column = snapshot.columns.get(f.field);
    // No such column: every value is null, and a null fails every filter.
    if (column === undefined) return { total: 0, rows: EMPTY };
    columns.push(column.values);
  }
  const lows = filters.map((f) => f.min ?? Number.NEGATIVE_INFINITY);
  const highs = filters.map((f) => f.max ?? Number.POSITIVE_INFINITY);
  const marketId = universe.market === undefined ? -1 : MARKETS.indexOf(universe.market);
  const sectorMask = dictMask(snapshot.sector, universe.sectors);
  const industryMask = dictMask(snapshot.industry, universe.industries);
  let excludeBits = 0;
  for (const flag of universe.exclude ?? []) excludeBits |= FLAG_BITS[flag];
  const { market, flags } = snapshot;
  const sectorIds = snapshot.sector.ids;
  const industryIds = snapshot.industry.ids;

  const mask = predicate instanceof Uint8Array ? predicate : null;
  const test = typeof predicate === 'function' ? predicate : undefined;
  const candidates = candidatesOf(snapshot, orders, universe.codes, filters, columns);
  const marks = new Uint8Array(snapshot.size);
  let total = 0;
  const n = candidates === null ? snapshot.size : candidates.length;
  rows: for (let k = 0; k < n; k++) {
    const i = candidates === null ? k : candidates[k]!;
    if (marketId >= 0 && market[i] !== marketId) continue;
    if ((flags[i]! & excludeBits) !== 0) continue;
    if (sectorMask !== null && sectorMask[sectorIds[i]!] !== 1) continue;
    if (industryMask !== null && industryMask[industryIds[i]!] !== 1) continue;
    // A mask is one byte: read before the filters, it turns most non-matches away soonest.
    if (mask !== null && mask[i] !== 1) continue;
    for (let f = 0; f < columns.length; f++) {
      const v = columns[f]![i]!;
      // Null is NaN, for which both comparisons are false.
      if (!(v >= lows[f]! && v <= highs[f]!)) continue rows;
    }
    if (test !== undefined && !test(i)) continue;
    marks[i] = 1;
    total++;
  }
  if (start >= total || count <= 0) return { total, rows: EMPTY };
  const end = Math.min(start + count, total);
  const keys = sort.filter((k) => sortable(snapshot, k.field));
  const ordered = keys.length === 0 ? inRowOrder(marks, end) : inKeyOrder(snapshot, orders, marks, keys, end, total);
  return { total, rows: ordered.slice(start, end) };
}

/** Whether the engine's sort can order by `field` (it skips any other key). */
function sortable(snapshot: Snapshot, field: string): boolean {
  return field === 'code' || field === 'name' || snapshot.columns.has(field);
}

/**
 * Builds the orders `presortedPage` will read for these filters and sort keys that are not built
 * yet, one at a time with `checkpoint()` after each: the first screens on a new snapshot sort
 * it once per field, and a caller on the daemon's thread yields between those sorts.
 * @throws what `checkpoint` throws
 */
export async function prepareOrders(snapshot: Snapshot, filters: readonly RangeFilter[], sort: readonly SortKey[], checkpoint: () => Promise<void>): Promise<void> {
  const orders = ordersOf(snapshot);
  const first = sort.find((k) => sortable(snapshot, k.field));
  const wanted: [string, SortKey['direction']][] = filters.map((f) => [f.field, 'asc']);
  if (first !== undefined) wanted.push([first.field, first.direction]);
  for (const [field, direction] of wanted) {
    if (orders.built(field, direction)) continue;
    orders.order(field, direction);
    await checkpoint();
  }
}

/**
 * The rows worth checking: the universe's codes when it names some, else the slice of the most
 * selective range filter's ascending order, else null (every row).
 */
function candidatesOf(
  snapshot: Snapshot,
  orders: SnapshotOrders,
  codes: readonly string[] | undefined,
  filters: readonly RangeFilter[],
  columns: readonly Float64Array[],
): Int32Array | null {
  if (codes !== undefined && codes.length > 0) return candidateRows(snapshot, codes);
  let best: Int32Array | null = null;
  let bestSize = snapshot.size;
  filters.forEach((f, j) => {
    const min = f.min ?? Number.NEGATIVE_INFINITY;
    const max = f.max ?? Number.POSITIVE_INFINITY;
    // A NaN bound fails every row in the check itself; it cannot narrow a binary search.
    if (min !== min || max !== max) return;
    const order = orders.order(f.field, 'asc');
    if (order === undefined) return;
    const values = columns[j]!;
    const lo = lowerBound(values, order.rows, order.known, min);
    const hi = Math.max(lo, upperBound(values, order.rows, order.known, max));
    if (hi - lo < bestSize) {
      bestSize = hi - lo;
      best = order.rows.subarray(lo, hi);
    }
  });
  return best;
}

/** First position of `rows[0..known)` whose value is ≥ `min`. */
function lowerBound(values: Float64Array, rows: Int32Array, known: number, min: number): number {
  let lo = 0;
  let hi = known;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[rows[mid]!]! < min) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First position of `rows[0..known)` whose value is > `max`. */
function upperBound(values: Float64Array, rows: Int32Array, known: number, max: number): number {
  let lo = 0;
  let hi = known;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[rows[mid]!]! <= max) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first `end` marked rows in row (= code) order. */
function inRowOrder(marks: Uint8Array, end: number): Int32Array {
  const out = new Int32Array(end);
  let n = 0;
  for (let i = 0; n < end; i++) if (marks[i] === 1) out[n++] = i;
  return out;
}

/**
 * At least the first `end` marked rows in `keys` order (whole groups of first-key ties, so
 * possibly more): a scan of the first key's order, each tie group ordered by the other keys.
 */
function inKeyOrder(snapshot: Snapshot, orders: SnapshotOrders, marks: Uint8Array, keys: readonly SortKey[], end: number, total: number): Int32Array {
  const first = keys[0]!;
  const order = orders.order(first.field, first.direction)!.rows;
  const rest = keys.slice(1);
  const out = new Int32Array(total);
  let n = 0;
  if (rest.length === 0 || first.field === 'code') {
    // Nothing to break ties on (or no ties: codes are unique): the order is final.
    for (let k = 0; n < end; k++) {
      const row = order[k]!;
      if (marks[row] === 1) out[n++] = row;
    }
    return out.subarray(0, n);
  }
  const same = tieTest(snapshot, first.field);
  let group = 0;
  for (let k = 0; k < order.length; k++) {
    const row = order[k]!;
    if (marks[row] !== 1) continue;
    if (n > group && !same(out[group]!, row)) {
      // The group before this row is complete: order it, and stop if the page is full.
      if (n - group > 1) sortRows(snapshot, out.subarray(group, n), rest);
      if (n >= end) return out.subarray(0, n);
      group = n;
    }
    out[n++] = row;
  }
  if (n - group > 1) sortRows(snapshot, out.subarray(group, n), rest);
  return out.subarray(0, n);
}

/** Whether two rows tie on `field` as the engine's sort sees it (nulls tie with nulls, -0 with 0). */
function tieTest(snapshot: Snapshot, field: string): (a: number, b: number) => boolean {
  if (field === 'name') {
    const names = snapshot.names;
    return (a, b) => (names[a] ?? '') === (names[b] ?? '');
  }
  const values = snapshot.columns.get(field)!.values;
  return (a, b) => {
    const x = values[a]!;
    const y = values[b]!;
    return x === y || (x !== x && y !== y);
  };
}
