/**
 * The hot path of a screen: universe + range filters + expression into an
 * index list (an Int32Array of row indices, no per-row allocation). Sorting
 * the list is in sort-rows.ts.
 */

import { MARKETS } from '../../kernel/records.js';
import { FLAG_BITS } from './snapshot.js';
import type { DictColumn, Snapshot } from './snapshot.js';
import type { RangeFilter, Universe } from '../request/query-types.js';

/** Row indices (ascending = code order) of the stocks that pass universe, filters and `predicate`. */
export function filterRows(
  snapshot: Snapshot,
  universe: Universe,
  filters: readonly RangeFilter[],
  predicate?: (row: number) => boolean,
): Int32Array {
  const candidates = candidateRows(snapshot, universe.codes);
  const marketId = universe.market === undefined ? -1 : MARKETS.indexOf(universe.market);
  const sectorMask = dictMask(snapshot.sector, universe.sectors);
  const industryMask = dictMask(snapshot.industry, universe.industries);
  let excludeBits = 0;
  for (const flag of universe.exclude ?? []) excludeBits |= FLAG_BITS[flag];
  // Absent column = all null: the filter then rejects every row, as a null value must.
  const columns = filters.map((f) => snapshot.columns.get(f.field)?.values ?? new Float64Array(snapshot.size).fill(Number.NaN));
  const lows = filters.map((f) => f.min ?? Number.NEGATIVE_INFINITY);
  const highs = filters.map((f) => f.max ?? Number.POSITIVE_INFINITY);
  const { market, flags } = snapshot;
  const sectorIds = snapshot.sector.ids;
  const industryIds = snapshot.industry.ids;
  const out = new Int32Array(candidates.length);
  let n = 0;
  rows: for (let k = 0; k < candidates.length; k++) {
    const i = candidates[k]!;
    if (marketId >= 0 && market[i] !== marketId) continue;
    if ((flags[i]! & excludeBits) !== 0) continue;
    if (sectorMask !== null && sectorMask[sectorIds[i]!] !== 1) continue;
    if (industryMask !== null && industryMask[industryIds[i]!] !== 1) continue;
    for (let f = 0; f < columns.length; f++) {
      const v = columns[f]![i]!;
      // Null is NaN, for which both comparisons are false: a null fails every filter on its field.
      if (!(v >= lows[f]! && v <= highs[f]!)) continue rows;
    }
    if (predicate !== undefined && !predicate(i)) continue;
    out[n++] = i;
  }
  return out.subarray(0, n);
}

/** Every row (no codes), else the rows of the codes the snapshot holds, ascending and without duplicates. */
export function candidateRows(snapshot: Snapshot, codes: readonly string[] | undefined): Int32Array {
  if (codes === undefined || codes.length === 0) {
    const all = new Int32Array(snapshot.size);
    for (let i = 0; i < all.length; i++) all[i] = i;
    return all;
  }
  const rows = new Set<number>();
  for (const code of codes) {
    const row = snapshot.rowByCode.get(code);
    if (row !== undefined) rows.add(row);
  }
  return Int32Array.from(rows).sort();
}

/** 1 at every dictionary id whose string is wanted; null when the universe does not restrict this column (absent or empty list). */
export function dictMask(column: DictColumn, wanted: readonly string[] | undefined): Uint8Array | null {
  if (wanted === undefined || wanted.length === 0) return null;
  const set = new Set(wanted);
  const mask = new Uint8Array(column.dict.length + 1);
  column.dict.forEach((value, k) => {
    if (set.has(value)) mask[k + 1] = 1;
  });
  return mask;
}

/**
 * The rows of `candidates` (ascending) that pass `filters` and `predicate`: the second half
 * of filterRows, for queries whose formula columns were computed over the universe first.
 */
export function filterWithin(
  snapshot: Snapshot,
  candidates: Int32Array,
  filters: readonly RangeFilter[],
  predicate?: (row: number) => boolean,
): Int32Array {
  const columns = filters.map((f) => snapshot.columns.get(f.field)?.values ?? new Float64Array(snapshot.size).fill(Number.NaN));
  const lows = filters.map((f) => f.min ?? Number.NEGATIVE_INFINITY);
  const highs = filters.map((f) => f.max ?? Number.POSITIVE_INFINITY);
  const out = new Int32Array(candidates.length);
  let n = 0;
  rows: for (let k = 0; k < candidates.length; k++) {
    const i = candidates[k]!;
    for (let f = 0; f < columns.length; f++) {
      const v = columns[f]![i]!;
      if (!(v >= lows[f]! && v <= highs[f]!)) continue rows;
    }
    if (predicate !== undefined && !predicate(i)) continue;
    out[n++] = i;
  }
  return out.subarray(0, n);
}
