/**
 * Cross-sectional values of the screening language (issue 21): rank, rank_asc, pct_rank and
 * zscore of one value over a set of rows (the request's universe), optionally within groups.
 * One native Float64Array sort per group and binary searches, no comparator callbacks; results
 * are remembered per snapshot in a CrossSectionMemo so a repeated screen costs no sort.
 */
import type { CrossFn, GroupBy } from './expression-functions.js';
import type { Snapshot } from './snapshot.js';

/**
 * The group of each row (-1: none, the row's result is null), or null for one group.
 * Sector and industry use their dictionary ids, market its index.
 */
export function groupIds(snapshot: Snapshot, by: GroupBy | null): { of: (row: number) => number; count: number } | null {
  if (by === null) return null;
  if (by === 'market') {
    const market = snapshot.market;
    return { of: (row) => market[row]!, count: 256 };
  }
  const { ids, dict } = snapshot[by];
  return { of: (row) => ids[row]! - 1, count: dict.length };
}

/**
 * `fn` of `value` over `rows`, per group: a Float64Array indexed by snapshot row, NaN (null)
 * outside `rows`, where the value is null, and where the row has no group.
 * - rank: 1 + number of larger values (ties share the best rank: 1, 2, 2, 4); rank_asc mirrors it.
 * - pct_rank: 100 × average ascending rank / n (pandas `rank(pct=True)`): the largest is 100.
 * - zscore: (v − mean) / population standard deviation; null when that deviation is 0.
 */
export function crossSection(
  fn: CrossFn,
  value: (row: number) => number,
  rows: Int32Array,
  size: number,
  groups: { of: (row: number) => number; count: number } | null,
): Float64Array {
  const out = new Float64Array(size).fill(Number.NaN);
  // Non-null (row, value, group) triples, then a counting sort by group into contiguous segments.
  const keptRows = new Int32Array(rows.length);
  const keptValues = new Float64Array(rows.length);
  const keptGroups = new Int32Array(rows.length);
  const groupCount = groups === null ? 1 : groups.count;
  const starts = new Int32Array(groupCount + 1);
  let m = 0;
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k]!;
    const v = value(row);
    if (v !== v || v === Number.POSITIVE_INFINITY || v === Number.NEGATIVE_INFINITY) continue;
    const g = groups === null ? 0 : groups.of(row);
    if (g < 0) continue;
    keptRows[m] = row;
    keptValues[m] = v;
    keptGroups[m] = g;
    starts[g + 1]!++;
    m++;
  }
  for (let g = 0; g < groupCount; g++) starts[g + 1]! += starts[g]!;
  const fill = starts.slice(0, groupCount);
  const segRows = new Int32Array(m);
  const sorted = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    const at = fill[keptGroups[j]!]!++;
    segRows[at] = keptRows[j]!;
    sorted[at] = keptValues[j]!;
  }
  const values = sorted.slice();
  for (let g = 0; g < groupCount; g++) {
    const from = starts[g]!;
    const to = starts[g + 1]!;
    if (to > from) evaluateGroup(fn, sorted.subarray(from, to), values.subarray(from, to), segRows.subarray(from, to), out);
  }
  return out;
}

/** Writes `fn` for one group: `sorted` is sorted in place, `values[j]` is row `segRows[j]`'s value. */
function evaluateGroup(fn: CrossFn, sorted: Float64Array, values: Float64Array, segRows: Int32Array, out: Float64Array): void {
  const n = sorted.length;
  if (fn === 'zscore') return zscores(values, segRows, out);
  sorted.sort();
  for (let j = 0; j < n; j++) {
    const v = values[j]!;
    const below = lowerBound(sorted, v);
    const upTo = upperBound(sorted, v, below);
    let r: number;
    if (fn === 'rank') r = n - upTo + 1;
    else if (fn === 'rank_asc') r = below + 1;
    // Average 1-based ascending rank of the tie block [below, upTo) is (below + 1 + upTo) / 2.
    else r = (100 * (below + 1 + upTo)) / 2 / n;
    out[segRows[j]!] = r;
  }
}

function zscores(values: Float64Array, segRows: Int32Array, out: Float64Array): void {
  const n = values.length;
  let sum = 0;
  for (let j = 0; j < n; j++) sum += values[j]!;
  const mean = sum / n;
  let squares = 0;
  for (let j = 0; j < n; j++) squares += (values[j]! - mean) ** 2;
  const sd = Math.sqrt(squares / n);
  for (let j = 0; j < n; j++) out[segRows[j]!] = sd > 0 ? (values[j]! - mean) / sd : Number.NaN;
}

/** First index whose value is ≥ v. */
function lowerBound(sorted: Float64Array, v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index at or after `from` whose value is > v. */
function upperBound(sorted: Float64Array, v: number, from: number): number {
  let lo = from;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Remembered cross-sectional columns of one snapshot, at most `maxEntries` (oldest dropped
 * first). Keys name the universe and the canonical term; a new snapshot clears the memo.
 */
export interface CrossSectionMemo {
  /** The column remembered under `key` for `snapshot`, else `compute()`'s result, remembered. */
  get(snapshot: Snapshot, key: string, compute: () => Float64Array): Float64Array;
}

/** Create a memo (one per screen service; live and as-of screens may keep their own). */
export function createCrossSectionMemo(maxEntries = 256): CrossSectionMemo {
  let owner: Snapshot | undefined;
  const entries = new Map<string, Float64Array>();
  return {
    get(snapshot, key, compute) {
      if (owner !== snapshot) {
        owner = snapshot;
        entries.clear();
      }
      const known = entries.get(key);
      if (known !== undefined) return known;
      const column = compute();
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(key, column);
      return column;
    },
  };
}
