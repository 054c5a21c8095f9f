/**
 * The sorted list of a live screen's matching rows: an Int32Array kept in the engine's order,
 * where a tick moves one row. A row's old place is found by binary search before the tick
 * is written into the view (its old values still order it), its new place after; only the
 * rows between the two places shift (copyWithin), so a small price move costs a few moves,
 * not a pass over every match.
 */
import type { RowComparator } from './row-matcher.js';

/** The sorted rows. */
export interface SortedRows {
  readonly length: number;
  at(i: number): number;
  /** Rows [from, to) (a copy). */
  slice(from: number, to: number): Int32Array;
  /** Index of `row`, found with the comparator (valid while the view holds the values it was sorted by); -1 when absent. */
  find(row: number): number;
  /** Remove the row at `pos`. */
  removeAt(pos: number): void;
  /** Insert `row` at its place; returns the index it took. */
  insert(row: number): number;
  /** Move the row at `pos` (whose values changed) to its new place; returns the index it took. */
  move(pos: number): number;
}

/** Sorted rows over `rows` (already in order) with room for `capacity`. */
export function createSortedRows(rows: ArrayLike<number>, capacity: number, compare: RowComparator): SortedRows {
  const a = new Int32Array(Math.max(capacity, rows.length));
  a.set(rows as ArrayLike<number>);
  let n = rows.length;

  /** First index in [lo, hi) whose row does not sort before `row`. */
  const lowerBound = (row: number, lo: number, hi: number): number => {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(a[mid]!, row) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  return {
    get length() {
      return n;
    },
    at: (i) => a[i]!,
    slice: (from, to) => a.slice(Math.min(from, n), Math.min(to, n)),
    find(row) {
      const i = lowerBound(row, 0, n);
      if (i < n && a[i] === row) return i;
      // Only when the order was not kept (a caller bug): fall back to a scan.
      return a.subarray(0, n).indexOf(row);
    },
    removeAt(pos) {
      a.copyWithin(pos, pos + 1, n);
      n--;
    },
    insert(row) {
      const pos = lowerBound(row, 0, n);
      a.copyWithin(pos + 1, pos, n);
      a[pos] = row;
      n++;
      return pos;
    },
    move(pos) {
      const row = a[pos]!;
      if (pos > 0 && compare(row, a[pos - 1]!) < 0) {
        const to = lowerBound(row, 0, pos);
        a.copyWithin(to + 1, to, pos);
        a[to] = row;
        return to;
      }
      if (pos < n - 1 && compare(row, a[pos + 1]!) > 0) {
        const to = lowerBound(row, pos + 1, n) - 1;
        a.copyWithin(pos, pos + 1, to + 1);
        a[to] = row;
        return to;
      }
      return pos;
    },
  };
}
