import { describe, expect, it } from 'vitest';
import type { SortKey } from '../../../../../daemon/screening/engine/query.js';
import { buildSnapshot } from '../../../../../daemon/screening/engine/snapshot.js';
import type { Snapshot, SnapshotRow } from '../../../../../daemon/screening/engine/snapshot.js';
import { sortRows } from '../../../../../daemon/screening/engine/sort-rows.js';

// Values chosen to stress the bit-level keys: signs, zeros of both signs, neighbours one ulp
// apart, huge and tiny magnitudes, duplicates and nulls.
const POOL = [null, 0, -0, 1, 1 + 2 ** -52, 1 - 2 ** -53, -1, -1 - 2 ** -52, 1e-300, -1e-300, 3.5, -3.5, 1e300, -1e300, 42, 42, 7e12, -0.25];
const NAMES = ['가온', '가온우', '나래', 'ABC', 'abc', '다온', '가온'];

function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

function market(size: number, seed: number): Snapshot {
  const rand = rng(seed);
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const rows: SnapshotRow[] = Array.from({ length: size }, (_, i) => ({
    code: String(100000 + i * 7),
    name: pick(NAMES),
    name_english: null,
    market: 'KOSPI',
    sector: null,
    industry: null,
    board: null,
    flags: { administrative: false, spac: false, preferred: false, halted: false },
    values: { a: pick(POOL), b: pick(POOL), c: pick(POOL) },
  }));
  return buildSnapshot(rows, ['a', 'b', 'c'], 't');
}

/** Reference order, written independently: comparator sort with nulls last and the code as tiebreak. */
function reference(s: Snapshot, rows: number[], keys: readonly SortKey[]): string[] {
  const get = (row: number, field: string): number | string | null =>
    field === 'code' ? s.codes[row]! : field === 'name' ? s.names[row]! : Number.isNaN(s.columns.get(field)!.values[row]) ? null : s.columns.get(field)!.values[row]!;
  return [...rows]
    .sort((x, y) => {
      for (const { field, direction } of keys) {
        const a = get(x, field);
        const b = get(y, field);
        if (a === null || b === null) {
          if (a !== b) return a === null ? 1 : -1;
          continue;
        }
        if (a < b) return direction === 'asc' ? -1 : 1;
        if (a > b) return direction === 'asc' ? 1 : -1;
      }
      return s.codes[x]! < s.codes[y]! ? -1 : 1;
    })
    .map((r) => s.codes[r]!);
}

describe('sortRows', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('matches a comparator sort on random keys (seed %i)', (seed) => {
    const s = market(400, seed);
    const rand = rng(seed * 31);
    const fields = ['a', 'b', 'c', 'name', 'code'];
    const keys: SortKey[] = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({
      field: fields[Math.floor(rand() * fields.length)]!,
      direction: rand() < 0.5 ? 'asc' : 'desc',
    }));
    // A selection of roughly two thirds of the rows, ascending as filterRows yields it.
    const selected = Array.from({ length: s.size }, (_, i) => i).filter(() => rand() < 0.66);
    const sorted = sortRows(s, Int32Array.from(selected), keys);
    expect(Array.from(sorted, (r) => s.codes[r])).toEqual(reference(s, selected, keys));
  });

  it('orders -0 and 0 as equal and one-ulp neighbours apart', () => {
    const baseRow: SnapshotRow = { code: '', name: 'x', name_english: null, market: 'KOSPI', sector: null, industry: null, board: null, flags: { administrative: false, spac: false, preferred: false, halted: false }, values: {} };
    const snap = buildSnapshot([0, -0, 1 + 2 ** -52, 1, null].map((a, i) => ({ ...baseRow, code: `00000${i}`, values: { a } })), ['a'], 't');
    const order = (direction: 'asc' | 'desc') => Array.from(sortRows(snap, Int32Array.from([0, 1, 2, 3, 4]), [{ field: 'a', direction }]));
    // 0 and -0 tie → code order (rows 0, 1); nulls last both ways.
    expect(order('asc')).toEqual([0, 1, 3, 2, 4]);
    expect(order('desc')).toEqual([2, 3, 0, 1, 4]);
  });
});
