/**
 * The columnar in-memory snapshot the screening engine scans: one Float64Array
 * and one null bitmap per indicator, dictionary-encoded market/sector/industry
 * and a flag bitmask per stock. Built once off the request path, never mutated
 * afterwards; the owner swaps the whole object atomically when indicators are
 * recomputed.
 */

import { STOCK_FLAGS } from '../../contract/screening.js';
import { MARKETS } from '../../kernel/records.js';
import type { Market } from '../../kernel/records.js';
export { STOCK_FLAGS } from '../../contract/screening.js';

/** One universe flag. */
export type StockFlag = (typeof STOCK_FLAGS)[number];

/** Bit of each flag in `Snapshot.flags`. */
export const FLAG_BITS: Readonly<Record<StockFlag, number>> = Object.freeze({
  administrative: 1,
  spac: 2,
  preferred: 4,
  halted: 8,
});

/** One stock as the caller hands it to `buildSnapshot`. */
export interface SnapshotRow {
  code: string;
  name: string;
  name_english: string | null;
  market: Market;
  sector: string | null;
  industry: string | null;
  board: string | null;
  flags: { administrative: boolean; spac: boolean; preferred: boolean; halted: boolean };
  /** Indicator values by id; missing keys and non-finite numbers are null. */
  values: Readonly<Record<string, number | null | undefined>>;
}

/**
 * One indicator column. `values[i]` is NaN exactly where the stock's value is
 * null, so range comparisons fail on nulls without a bitmap lookup; `nulls`
 * (bit i set = null) is the authoritative marker for other consumers.
 */
export interface Column {
  readonly values: Float64Array;
  readonly nulls: Uint8Array;
  /** Number of stocks with a value. */
  readonly count: number;
}

/** A string dictionary: `ids[i]` is 0 for null, else 1 + index into `dict`. */
export interface DictColumn {
  readonly ids: Uint16Array;
  readonly dict: readonly string[];
}

/** The immutable screening snapshot. Rows are ordered by stock code. */
export interface Snapshot {
  readonly version: string;
  readonly size: number;
  readonly fields: readonly string[];
  readonly codes: readonly string[];
  readonly names: readonly string[];
  readonly namesEnglish: readonly (string | null)[];
  readonly boards: readonly (string | null)[];
  /** Index into MARKETS per row. */
  readonly market: Uint8Array;
  readonly sector: DictColumn;
  readonly industry: DictColumn;
  /** FLAG_BITS bitmask per row. */
  readonly flags: Uint8Array;
  readonly columns: ReadonlyMap<string, Column>;
  /** Row index by stock code. */
  readonly rowByCode: ReadonlyMap<string, number>;
}

/**
 * Builds a snapshot from rows; `fields` is the set of indicator ids to hold
 * (values under other keys are ignored, absent ones are null).
 * Throws an Error when two rows share a code (a caller bug, not user input).
 */
export function buildSnapshot(rows: readonly SnapshotRow[], fields: readonly string[], version: string): Snapshot {
  const steps = snapshotSteps(rows, fields, version);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Like buildSnapshot, but awaits `checkpoint()` between units of work (the sort,
 * each column, the dictionaries) so a caller on the daemon's thread can yield to
 * the event loop (see time-slicer.ts). The result is identical. Throws like buildSnapshot.
 */
export async function buildSnapshotSliced(
  rows: readonly SnapshotRow[],
  fields: readonly string[],
  version: string,
  checkpoint: () => Promise<void>,
  columnOf?: ColumnSource,
): Promise<Snapshot> {
  const steps = snapshotSteps(rows, fields, version, columnOf);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await checkpoint();
  }
}

/**
 * Values of `field` for every row given to the build, in the order the rows were given (NaN or
 * any non-finite number = null), or undefined to read the rows' `values` instead. Lets a caller
 * holding columns already (as-of snapshots from per-field series) build a snapshot without one
 * object of values per stock.
 */
export type ColumnSource = (field: string) => Float64Array | undefined;

/** The build as a generator: it yields between units of work of a few hundred µs each on a full market. */
function* snapshotSteps(rows: readonly SnapshotRow[], fields: readonly string[], version: string, columnOf?: ColumnSource): Generator<void, Snapshot> {
  const order = Array.from(rows.keys()).sort((a, b) => {
    const x = (rows[a] as SnapshotRow).code;
    const y = (rows[b] as SnapshotRow).code;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const sorted = order.map((i) => rows[i] as SnapshotRow);
  const size = sorted.length;
  const rowByCode = new Map<string, number>();
  sorted.forEach((row, i) => {
    if (rowByCode.has(row.code)) throw new Error(`buildSnapshot: duplicate stock code ${row.code}`);
    rowByCode.set(row.code, i);
  });
  yield;
  const market = new Uint8Array(size);
  const flags = new Uint8Array(size);
  sorted.forEach((row, i) => {
    market[i] = MARKETS.indexOf(row.market);
    flags[i] = flagBits(row.flags);
  });
  const sector = encodeDictionary(sorted.map((r) => r.sector));
  const industry = encodeDictionary(sorted.map((r) => r.industry));
  yield;
  const uniqueFields = [...new Set(fields)];
  const columns = new Map<string, Column>();
  for (const field of uniqueFields) {
    const given = columnOf?.(field);
    columns.set(field, given === undefined ? buildColumn(sorted, field) : columnFrom(given, order));
    yield;
  }
  return Object.freeze({
    version,
    size,
    fields: Object.freeze(uniqueFields),
    codes: Object.freeze(sorted.map((r) => r.code)),
    names: Object.freeze(sorted.map((r) => r.name)),
    namesEnglish: Object.freeze(sorted.map((r) => r.name_english)),
    boards: Object.freeze(sorted.map((r) => r.board)),
    market,
    sector,
    industry,
    flags,
    columns,
    rowByCode,
  });
}

/** A snapshot with no stocks (spec rule 9: screening then answers an empty list). */
export function emptySnapshot(fields: readonly string[], version = 'empty'): Snapshot {
  return buildSnapshot([], fields, version);
}

/** The value of `field` for row `row`, or null (also for a field the snapshot does not hold). */
export function valueAt(snapshot: Snapshot, field: string, row: number): number | null {
  const column = snapshot.columns.get(field);
  if (column === undefined || isNullAt(column, row)) return null;
  return column.values[row] ?? null;
}

/** A stock's name and last-price fields as a snapshot holds them. */
export interface SnapshotQuote {
  name: string;
  /** The `close` column: in a live view, the last traded price. */
  price: number | null;
  change_percent: number | null;
  volume: number | null;
}

/**
 * The name, price, change and volume of stock `code` in `snapshot`, or null for a stock the
 * snapshot does not hold. Reads the columns through `valueAt`, so a null is exactly what the
 * column's bitmap says (one bit per row) and nothing else.
 */
export function quoteAt(snapshot: Snapshot, code: string): SnapshotQuote | null {
  const row = snapshot.rowByCode.get(code);
  if (row === undefined) return null;
  return {
    name: snapshot.names[row] ?? code,
    price: valueAt(snapshot, 'close', row),
    change_percent: valueAt(snapshot, 'change_percent', row),
    volume: valueAt(snapshot, 'volume', row),
  };
}

/** True when the column's bitmap marks row `row` as null. */
export function isNullAt(column: Column, row: number): boolean {
  return ((column.nulls[row >>> 3] ?? 0) & (1 << (row & 7))) !== 0;
}

/** The decoded string of a dictionary column at `row`, or null. */
export function dictValueAt(column: DictColumn, row: number): string | null {
  const id = column.ids[row] ?? 0;
  return id === 0 ? null : (column.dict[id - 1] ?? null);
}

/** Market name of row `row`. */
export function marketAt(snapshot: Snapshot, row: number): Market {
  return MARKETS[snapshot.market[row] ?? 0] ?? 'KOSPI';
}

function flagBits(f: SnapshotRow['flags']): number {
  return (
    (f.administrative ? FLAG_BITS.administrative : 0) |
    (f.spac ? FLAG_BITS.spac : 0) |
    (f.preferred ? FLAG_BITS.preferred : 0) |
    (f.halted ? FLAG_BITS.halted : 0)
  );
}

function buildColumn(rows: readonly SnapshotRow[], field: string): Column {
  const values = new Float64Array(rows.length);
  const nulls = new Uint8Array((rows.length + 7) >>> 3);
  let count = 0;
  rows.forEach((row, i) => {
    const v = row.values[field];
    if (typeof v === 'number' && Number.isFinite(v)) {
      values[i] = v;
      count++;
    } else {
      values[i] = Number.NaN;
      nulls[i >>> 3] = (nulls[i >>> 3] ?? 0) | (1 << (i & 7));
    }
  });
  return Object.freeze({ values, nulls, count });
}

/** A column of `given` (values in the rows' given order) read in snapshot order (`order[i]`: the given index of row i). */
function columnFrom(given: Float64Array, order: readonly number[]): Column {
  const values = new Float64Array(order.length);
  const nulls = new Uint8Array((order.length + 7) >>> 3);
  let count = 0;
  for (let i = 0; i < order.length; i++) {
    const v = given[order[i] as number] as number;
    if (Number.isFinite(v)) {
      values[i] = v;
      count++;
    } else {
      values[i] = Number.NaN;
      nulls[i >>> 3] = (nulls[i >>> 3] ?? 0) | (1 << (i & 7));
    }
  }
  return Object.freeze({ values, nulls, count });
}

function encodeDictionary(strings: readonly (string | null)[]): DictColumn {
  const dict: string[] = [];
  const idOf = new Map<string, number>();
  const ids = new Uint16Array(strings.length);
  strings.forEach((s, i) => {
    if (s === null || s === '') return;
    let id = idOf.get(s);
    if (id === undefined) {
      // Uint16 ids with 0 reserved for null.
      if (dict.length === 0xfffe) throw new Error('buildSnapshot: more than 65,534 distinct sector/industry names');
      dict.push(s);
      id = dict.length;
      idOf.set(s, id);
    }
    ids[i] = id;
  });
  return Object.freeze({ ids, dict: Object.freeze(dict) });
}
