/**
 * The matches of a query that one stock's tick cannot be evaluated on alone: formula columns
 * and scores, cross-sectional terms (ranks, percentiles). One stock's price moves
 * every other stock's rank, so the list is the screening engine's own answer on the live view
 * (`matchingRows`, formula columns included), re-run whole when a tick changes a field it reads
 * (the engine batches those re-runs, see engine.ts). Items are read from the derived view,
 * so `score` and the formula columns carry their values.
 */
import { INDICATOR_IDS } from '../indicators/registry.js';
import { createCrossSectionMemo, filteredMemo, type CrossSectionMemo } from '../screening/language/cross-section.js';
import { countCrossTerms, FLAG_FIELDS, FUNCTIONS, TEXT_FIELDS, type ParsedExpression } from '../screening/language/expression.js';
import { CROSS_FUNCTIONS } from '../screening/language/expression-functions.js';
import { formulasOf } from '../screening/language/formula-columns.js';
import { matchingRows, matchingRowsSliced, type Matching, type ScreenQuery } from '../screening/engine/query.js';
import type { Snapshot } from '../screening/engine/snapshot.js';
import { PRICE_DEPENDENT_FIELDS } from './price-overlay.js';

/** A list re-run whole. */
export interface WholeList {
  readonly perRow: false;
  readonly length: number;
  at(i: number): number;
  slice(from: number, to: number): Int32Array;
  total(): number;
  /** The snapshot the rows' items are read from (the live view with the formula columns). */
  itemView(): Snapshot;
  /** Re-run on the current view (a tick changed it). */
  rerun(): void;
  /**
   * The same re-run in slices, awaiting `checkpoint` between units of work (each formula column,
   * a few hundred rows of one, the filter, the sort). Ticks landing between two slices are seen
   * by the work after them, as by a later re-run. Resolves true when its result was kept; false
   * when the list was re-run or rebuilt meanwhile (their result stands).
   * @throws what `checkpoint` throws
   */
  rerunSliced(checkpoint: () => Promise<void>): Promise<boolean>;
  /** Re-run on `snapshot` (a new view). */
  rebuild(snapshot: Snapshot): void;
}

/**
 * Whether an expression reads across stocks. The compiled expression of a hand-built query may
 * say so with a `crossSectional` flag; parsed ones count their cross-sectional terms.
 */
export function isCrossSectional(parsed: ParsedExpression | undefined): boolean {
  if (parsed === undefined) return false;
  return (parsed as { crossSectional?: unknown }).crossSectional === true || countCrossTerms(parsed.ast) > 0;
}

/** True when `query` needs a whole list: it has formula columns or a score, or a cross-sectional expression. */
export function needsWholeList(query: ScreenQuery, parsed: ParsedExpression | undefined): boolean {
  return formulasOf(query).length > 0 || isCrossSectional(parsed);
}

/** Every indicator field a whole-list query reads, its formula columns' included. */
export function wholeListFields(query: ScreenQuery): string[] {
  return formulasOf(query).flatMap((f) => f.parsed.fields);
}

const PRICE_SET: ReadonlySet<string> = new Set(PRICE_DEPENDENT_FIELDS);
/** Words a memo key may hold and still name a value no tick changes. */
const STATIC_WORDS: ReadonlySet<string> = new Set([
  ...INDICATOR_IDS.filter((f) => !PRICE_SET.has(f)),
  ...Object.keys(FUNCTIONS), ...CROSS_FUNCTIONS, ...TEXT_FIELDS, ...FLAG_FIELDS, 'by', 'and', 'or', 'not', 'null', 'true', 'false',
]);

/**
 * True when a cross-section memo key (expression-compile.ts, formula-columns.ts: `order|<arg>`,
 * `<scope>|<term>`, `column|<scope>|<definition>`) names a value no tick changes: every word of
 * its expression part is a statement or technical indicator, a function or a keyword. A formula
 * column's name, a price-dependent field or any word not known here keeps it out of the memo.
 */
export function isStaticMemoKey(key: string): boolean {
  const rest = key.startsWith('order|') ? key.slice(6) : key.slice(key.indexOf('|', key.startsWith('column|') ? 7 : 0) + 1);
  // A formula column appears by its identity (`#<digest>[<the fields it reads>]`): the digest is no word.
  return (rest.replace(/#[A-Za-z0-9_-]+/g, '').match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).every((w) => STATIC_WORDS.has(w));
}

/**
 * A memo for the whole lists of one engine: the ranks of arguments no tick changes (roe,
 * margins, returns) are sorted once per view and shared by every re-run and every list; the
 * others are computed on every re-run (the live view's values change in place).
 */
export function createStaticMemo(): CrossSectionMemo {
  return filteredMemo(createCrossSectionMemo(), isStaticMemoKey);
}

/**
 * Run `query` on `snapshot` (a live view) whole; `memo` (createStaticMemo) keeps what no tick
 * changes. `first`: its first run already made (in slices, by ListIndex.prepare) on `snapshot`.
 */
export function createWholeList(query: ScreenQuery, parsed: ParsedExpression | undefined, snapshot: Snapshot, memo?: CrossSectionMemo, first?: Matching): WholeList {
  let view = snapshot;
  let rows: Int32Array<ArrayBufferLike> = new Int32Array(0);
  let items = snapshot;
  // Bumped by every re-run: a sliced one that finds it moved on drops its result.
  let runs = 0;
  const options = { ...(parsed === undefined ? {} : { parsedExpression: parsed }), ...(memo ? { memo } : {}) };
  const run = () => {
    runs++;
    const m = matchingRows(view, query, options);
    rows = m.rows;
    items = m.view;
  };
  if (first === undefined) run();
  else {
    rows = first.rows;
    items = first.view;
  }
  return {
    perRow: false,
    get length() {
      return rows.length;
    },
    at: (i) => rows[i]!,
    slice: (from, to) => rows.slice(Math.min(from, rows.length), Math.min(to, rows.length)),
    total: () => rows.length,
    itemView: () => items,
    rerun: run,
    async rerunSliced(checkpoint) {
      const on = view;
      const mine = ++runs;
      const m = await matchingRowsSliced(on, query, options, checkpoint);
      if (view !== on || runs !== mine) return false;
      rows = m.rows;
      items = m.view;
      return true;
    },
    rebuild(next) {
      view = next;
      run();
    },
  };
}
