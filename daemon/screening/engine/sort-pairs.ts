/**
 * In-place quicksort of numbers with a row payload (median of three, insertion sort below 16
 * elements, recursion on the smaller side so the stack stays O(log n)). Inline comparisons on
 * typed arrays: several times faster than `Float64Array#sort` plus binary searches, and it
 * keeps each value's row. Values must not be NaN.
 */

/** Sorts `keys[lo..hi]` ascending, moving `rows` alongside. */
export function sortPairs(keys: Float64Array, rows: Int32Array, lo = 0, hi = keys.length - 1): void {
  while (hi - lo > 16) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < keys[lo]!) swap(keys, rows, mid, lo);
    if (keys[hi]! < keys[lo]!) swap(keys, rows, hi, lo);
    if (keys[hi]! < keys[mid]!) swap(keys, rows, hi, mid);
    const pivot = keys[mid]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (keys[i]! < pivot) i++;
      while (keys[j]! > pivot) j--;
      if (i <= j) swap(keys, rows, i++, j--);
    }
    if (j - lo < hi - i) {
      sortPairs(keys, rows, lo, j);
      lo = i;
    } else {
      sortPairs(keys, rows, i, hi);
      hi = j;
    }
  }
  for (let i = lo + 1; i <= hi; i++) {
    const k = keys[i]!;
    const r = rows[i]!;
    let j = i - 1;
    while (j >= lo && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      rows[j + 1] = rows[j]!;
      j--;
    }
    keys[j + 1] = k;
    rows[j + 1] = r;
  }
}

function swap(keys: Float64Array, rows: Int32Array, a: number, b: number): void {
  const k = keys[a]!;
  keys[a] = keys[b]!;
  keys[b] = k;
  const r = rows[a]!;
  rows[a] = rows[b]!;
  rows[b] = r;
}
