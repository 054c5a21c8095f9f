/**
 * One stock against one compiled screen: the per-row form of the engine's selection
 * (screening/select.ts filterRows) and order (screening/sort-rows.ts), so that a live screen
 * re-checks a ticking stock without scanning the universe. The rules are the engine's:
 * universe (market, sectors, industries, codes, exclude flags), inclusive range filters where
 * a null fails, the compiled expression; sort keys in order with nulls last in both
 * directions, ties by stock code (= row order).
 */
import { MARKETS } from '../kernel/records.js';
import { compileExpression, type ParsedExpression } from '../screening/language/expression.js';
import type { ScreenQuery, SortKey } from '../screening/engine/query.js';
import { dictMask } from '../screening/engine/select.js';
import { FLAG_BITS, type Snapshot } from '../screening/engine/snapshot.js';
import { PRICE_DEPENDENT_FIELDS } from './price-overlay.js';

/** Row → matches the screen, on the snapshot it was compiled for. */
export type RowMatcher = (row: number) => boolean;
/** Engine order of two rows (negative: a first). */
export type RowComparator = (a: number, b: number) => number;

const PRICE_SET: ReadonlySet<string> = new Set(PRICE_DEPENDENT_FIELDS);

/** Compile the universe, filters and expression of `query` into a per-row test over `snapshot`. */
export function compileRowMatcher(snapshot: Snapshot, query: ScreenQuery, parsed: ParsedExpression | undefined): RowMatcher {
  return compileParts(snapshot, query.universe, query.filters, parsed);
}

/**
 * The part of the matcher no tick can change, over a live view: the universe, the range filters
 * on fields a tick leaves alone (statements, averages, technicals) and the expression when it
 * reads none of the price-dependent fields. A row it refuses matches at no live price until the
 * next indicator snapshot, so the engine never re-checks that row for this screen.
 */
export function compileStaticMatcher(snapshot: Snapshot, query: ScreenQuery, parsed: ParsedExpression | undefined): RowMatcher {
  const fixed = query.filters.filter((f) => !PRICE_SET.has(f.field));
  const staticExpression = parsed !== undefined && !parsed.fields.some((f) => PRICE_SET.has(f)) ? parsed : undefined;
  return compileParts(snapshot, query.universe, fixed, staticExpression);
}

function compileParts(snapshot: Snapshot, universe: ScreenQuery['universe'], filters: ScreenQuery['filters'], parsed: ParsedExpression | undefined): RowMatcher {
  const codes = universe.codes && universe.codes.length > 0 ? new Set(universe.codes) : null;
  const marketId = universe.market === undefined ? -1 : MARKETS.indexOf(universe.market);
  const sectorMask = dictMask(snapshot.sector, universe.sectors);
  const industryMask = dictMask(snapshot.industry, universe.industries);
  let excludeBits = 0;
  for (const flag of universe.exclude ?? []) excludeBits |= FLAG_BITS[flag];
  const nan = new Float64Array(snapshot.size).fill(Number.NaN);
  // The view's columns are written in place, so holding the arrays reads live values.
  const columns = filters.map((f) => snapshot.columns.get(f.field)?.values ?? nan);
  const lows = filters.map((f) => f.min ?? Number.NEGATIVE_INFINITY);
  const highs = filters.map((f) => f.max ?? Number.POSITIVE_INFINITY);
  const predicate = parsed === undefined ? undefined : compileExpression(parsed, snapshot);
  return (i) => {
    if (codes !== null && !codes.has(snapshot.codes[i] ?? '')) return false;
    if (marketId >= 0 && snapshot.market[i] !== marketId) return false;
    if ((snapshot.flags[i]! & excludeBits) !== 0) return false;
    if (sectorMask !== null && sectorMask[snapshot.sector.ids[i]!] !== 1) return false;
    if (industryMask !== null && industryMask[snapshot.industry.ids[i]!] !== 1) return false;
    for (let f = 0; f < columns.length; f++) {
      const v = columns[f]![i]!;
      if (!(v >= lows[f]! && v <= highs[f]!)) return false;
    }
    return predicate === undefined || predicate(i);
  };
}

function keyComparator(snapshot: Snapshot, key: SortKey): RowComparator | undefined {
  const sign = key.direction === 'desc' ? -1 : 1;
  if (key.field === 'code') return (a, b) => sign * (a - b);
  if (key.field === 'name') {
    return (a, b) => {
      const x = snapshot.names[a] ?? '';
      const y = snapshot.names[b] ?? '';
      return x === y ? 0 : sign * (x < y ? -1 : 1);
    };
  }
  const values = snapshot.columns.get(key.field)?.values;
  // An absent column cannot reorder anything (sort-rows skips it too).
  if (values === undefined) return undefined;
  return (a, b) => {
    const x = values[a]!;
    const y = values[b]!;
    const xNull = x !== x;
    const yNull = y !== y;
    if (xNull || yNull) return xNull === yNull ? 0 : xNull ? 1 : -1;
    return x === y ? 0 : sign * (x < y ? -1 : 1);
  };
}

/** The engine's order of `keys` over `snapshot` as a comparator (ties by row = code order). */
export function compileRowComparator(snapshot: Snapshot, keys: readonly SortKey[]): RowComparator {
  const parts = keys.flatMap((k) => keyComparator(snapshot, k) ?? []);
  return (a, b) => {
    for (const part of parts) {
      const c = part(a, b);
      if (c !== 0) return c;
    }
    return a - b;
  };
}
