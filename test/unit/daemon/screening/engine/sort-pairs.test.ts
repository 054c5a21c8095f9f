/** The pair quicksort of the cross-sectional engine against Array#sort. */
import { describe, expect, it } from 'vitest';
import { sortPairs } from '../../../../../daemon/screening/engine/sort-pairs.js';

function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

describe('sortPairs', () => {
  it.each([
    ['random', 2000, (r: () => number) => r() * 100 - 50],
    ['many ties', 2000, (r: () => number) => Math.floor(r() * 5)],
    ['all equal', 300, () => 7],
    ['tiny', 3, (r: () => number) => r()],
    ['empty', 0, (r: () => number) => r()],
  ])('sorts %s values ascending and keeps each value with its row', (_, n, gen) => {
    const rnd = lcg(n + 1);
    const values = Array.from({ length: n }, () => gen(rnd));
    const keys = Float64Array.from(values);
    const rows = Int32Array.from(values, (_, i) => i);
    sortPairs(keys, rows);
    expect(Array.from(keys)).toEqual([...values].sort((a, b) => a - b));
    rows.forEach((row, j) => expect(values[row]).toBe(keys[j]));
    expect(new Set(rows).size).toBe(n);
  });

  it('sorts already sorted and reversed input', () => {
    for (const values of [Array.from({ length: 1000 }, (_, i) => i), Array.from({ length: 1000 }, (_, i) => 1000 - i)]) {
      const keys = Float64Array.from(values);
      const rows = Int32Array.from(values, (_, i) => i);
      sortPairs(keys, rows);
      expect(Array.from(keys)).toEqual([...values].sort((a, b) => a - b));
    }
  });
});
