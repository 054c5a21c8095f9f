/**
 * Multi-key sort of a row selection without a JavaScript comparator: a
 * stable LSD radix sort (8-bit digits) over 64-bit order-preserving keys,
 * applied key by key from the last to the first. Because every pass is stable
 * and the selection arrives in code order, ties fall to stock code. Nulls get
 * the largest key in both directions, so they sort last. Measured several
 * times faster than `Int32Array#sort(comparator)` on a full market.
 */

import type { SortKey } from '../request/query-types.js';
import type { Snapshot } from './snapshot.js';

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const HI = LITTLE_ENDIAN ? 1 : 0;
const LO = LITTLE_ENDIAN ? 0 : 1;
const MAX = 0xffffffff;

/** Sorts `rows` in place by `keys` (nulls last), then by stock code (row order); returns `rows`. */
export function sortRows(snapshot: Snapshot, rows: Int32Array, keys: readonly SortKey[]): Int32Array {
  const m = rows.length;
  if (keys.length === 0 || m < 2) return rows;
  // Stable passes keep the incoming order for ties; make that code (= row) order.
  if (!isAscending(rows)) rows.sort();
  let order: Int32Array = Int32Array.from(rows);
  // radixSort scribbles over hi/lo; encodeKey rewrites every entry for the next key.
  const hi = new Uint32Array(m);
  const lo = new Uint32Array(m);
  for (let k = keys.length - 1; k >= 0; k--) {
    if (encodeKey(snapshot, order, keys[k]!, hi, lo)) order = radixSort(order, hi, lo);
  }
  rows.set(order);
  return rows;
}

/** Fills hi/lo with the 64-bit sort key of each row of `order`; false when the key cannot reorder anything. */
function encodeKey(snapshot: Snapshot, order: Int32Array, key: SortKey, hi: Uint32Array, lo: Uint32Array): boolean {
  const desc = key.direction === 'desc';
  const m = order.length;
  if (key.field === 'code') {
    for (let j = 0; j < m; j++) {
      hi[j] = 0;
      lo[j] = desc ? MAX - order[j]! : order[j]!;
    }
    return true;
  }
  if (key.field === 'name') {
    encodeNames(snapshot, order, desc, hi, lo);
    return true;
  }
  const column = snapshot.columns.get(key.field)?.values;
  if (column === undefined) return false;
  for (let j = 0; j < m; j++) {
    const v = column[order[j]!]!;
    if (v !== v) {
      hi[j] = MAX;
      lo[j] = MAX;
      continue;
    }
    // IEEE 754 order trick: flip the sign bit of positives, all bits of negatives. `+ 0` folds -0 into 0.
    F64[0] = v + 0;
    let h = U32[HI]!;
    let l = U32[LO]!;
    if (h >= 0x80000000) {
      h = ~h >>> 0;
      l = ~l >>> 0;
    } else {
      h = (h | 0x80000000) >>> 0;
    }
    // Descending = complemented key; finite values never reach the all-ones null key.
    hi[j] = desc ? ~h >>> 0 : h;
    lo[j] = desc ? ~l >>> 0 : l;
  }
  return true;
}

function encodeNames(snapshot: Snapshot, order: Int32Array, desc: boolean, hi: Uint32Array, lo: Uint32Array): void {
  const names = Array.from(order, (row) => snapshot.names[row] ?? '');
  // Code-point order is 가나다 order for Hangul syllables.
  const unique = [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rank = new Map(unique.map((name, r) => [name, r]));
  names.forEach((name, j) => {
    const r = rank.get(name) ?? 0;
    hi[j] = 0;
    lo[j] = desc ? MAX - r : r;
  });
}

/** Stable LSD radix sort of `order` by (hi, lo); uses hi/lo as scratch. Returns the sorted order array. */
function radixSort(order: Int32Array, hi: Uint32Array, lo: Uint32Array): Int32Array {
  const m = order.length;
  const counts = histograms(hi, lo);
  let [srcOrder, srcHi, srcLo]: [Int32Array, Uint32Array, Uint32Array] = [order, hi, lo];
  let [dstOrder, dstHi, dstLo]: [Int32Array, Uint32Array, Uint32Array] = [new Int32Array(m), new Uint32Array(m), new Uint32Array(m)];
  for (let d = 0; d < 8; d++) {
    const words = d < 4 ? srcLo : srcHi;
    const shift = (d & 3) * 8;
    const base = d * 256;
    // A digit shared by every row cannot reorder anything: skip the pass.
    if (counts[base + ((words[0]! >>> shift) & 255)] === m) continue;
    let sum = 0;
    for (let b = 0; b < 256; b++) {
      const c = counts[base + b]!;
      counts[base + b] = sum;
      sum += c;
    }
    for (let j = 0; j < m; j++) {
      const slot = base + ((words[j]! >>> shift) & 255);
      const pos = counts[slot]!;
      counts[slot] = pos + 1;
      dstOrder[pos] = srcOrder[j]!;
      dstHi[pos] = srcHi[j]!;
      dstLo[pos] = srcLo[j]!;
    }
    [srcOrder, srcHi, srcLo, dstOrder, dstHi, dstLo] = [dstOrder, dstHi, dstLo, srcOrder, srcHi, srcLo];
  }
  return srcOrder;
}

/** Counts of every 8-bit digit of every row, digit d at [d * 256, d * 256 + 256). */
function histograms(hi: Uint32Array, lo: Uint32Array): Uint32Array {
  const counts = new Uint32Array(8 * 256);
  for (let j = 0; j < hi.length; j++) {
    const l = lo[j]!;
    const h = hi[j]!;
    for (let d = 0; d < 4; d++) {
      counts[d * 256 + ((l >>> (d * 8)) & 255)]! += 1;
      counts[1024 + d * 256 + ((h >>> (d * 8)) & 255)]! += 1;
    }
  }
  return counts;
}

function isAscending(rows: Int32Array): boolean {
  for (let j = 1; j < rows.length; j++) if (rows[j - 1]! > rows[j]!) return false;
  return true;
}
