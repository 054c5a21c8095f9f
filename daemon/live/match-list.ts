/**
 * The matches of one filter set and order, shared by every live screen that differs only in
 * its page (a template at per_page 20 and at per_page 50, on the same market, read one list):
 * a tick is evaluated once per distinct (universe, filters, expression, sort), and each
 * screen's page is a window on the list (live-screen.ts).
 *
 * The first matches are kept sorted in an `Int32Array` (at least `2 × (largest page end)`,
 * 32 more than it at least), the other matches unordered behind them: each of those sorts after
 * the last sorted row. When the sorted part falls under the largest page end while more matches
 * exist, every match is ordered again (the engine's `sortRows`).
 *
 * A tick of one row: `prepare` finds the row in the sorted part under its old values (before
 * the tick is written into the view), `update` re-checks it under the new ones and moves it,
 * answering where it went (`ListMove`), or null when the sorted part did not change.
 */
import type { ParsedExpression } from '../screening/language/expression.js';
import type { ScreenQuery } from '../screening/engine/query.js';
import type { Snapshot } from '../screening/engine/snapshot.js';
import { filterRows } from '../screening/engine/select.js';
import { sortRows } from '../screening/engine/sort-rows.js';
import { compileRowComparator, compileRowMatcher, compileStaticMatcher, type RowComparator, type RowMatcher } from './row-matcher.js';
import { createSortedRows, type SortedRows } from './sorted-rows.js';

/** How the sorted part changed: one row moved from `oldPos` to `newPos` (−1: not in it), or `all` (re-ordered or re-run). */
export type ListMove = { oldPos: number; newPos: number } | 'all';

/** The ordered matches a live screen's page is cut from. */
export interface MatchList {
  /** True when one row's tick is evaluated on that row alone (false: the list re-runs whole). */
  readonly perRow: true;
  /** Rows in order: the first `length` matches (every match when the list is complete). */
  readonly length: number;
  at(i: number): number;
  slice(from: number, to: number): Int32Array;
  /** Stocks matching (all of them, sorted or not). */
  total(): number;
  /** False when the row can match at no live price (universe, statement filters, null ratios): its ticks are skipped. */
  couldMatch(row: number): boolean;
  /** A page ending at `end` reads the list: keep at least that much sorted. */
  needEnd(end: number): void;
  prepare(row: number): void;
  update(row: number): ListMove | null;
  /** Recompile on `snapshot` (a new view) and re-run. */
  rebuild(snapshot: Snapshot): void;
}

/** Compile `query`'s filter set and order against `snapshot` (a live view) and run it. */
export function createMatchList(query: ScreenQuery, parsed: ParsedExpression | undefined, snapshot: Snapshot): MatchList {
  return new SortedMatches(query, parsed, snapshot);
}

/** The compiled matcher and order on the current view, the sorted part, and where every row stands. */
class SortedMatches implements MatchList {
  readonly perRow = true;
  private view: Snapshot;
  private matches: RowMatcher = () => false;
  private couldMatchRow: RowMatcher = () => false;
  private compare: RowComparator = (a, b) => a - b;
  private maxEnd = 0;
  private keep = 32;
  private sorted: SortedRows = createSortedRows([], 0, this.compare);
  private restCount = 0;
  // 0 = no match, 1 = in `sorted`, 2 = in the rest.
  private inSet = new Uint8Array(0);
  private preparedRow = -1;
  private preparedPos = -1;

  constructor(
    private readonly query: ScreenQuery,
    private readonly parsed: ParsedExpression | undefined,
    snapshot: Snapshot,
  ) {
    this.view = snapshot;
    this.rebuild(snapshot);
  }

  get length(): number {
    return this.sorted.length;
  }

  at(i: number): number {
    return this.sorted.at(i);
  }

  slice(from: number, to: number): Int32Array {
    return this.sorted.slice(from, to);
  }

  total(): number {
    return this.sorted.length + this.restCount;
  }

  couldMatch(row: number): boolean {
    return this.couldMatchRow(row);
  }

  needEnd(end: number): void {
    if (end <= this.maxEnd) return;
    this.maxEnd = end;
    const wanted = end + Math.max(end, 32);
    if (wanted <= this.keep) return;
    this.keep = wanted;
    if (this.restCount > 0) this.refill();
  }

  prepare(row: number): void {
    this.preparedRow = row;
    this.preparedPos = this.inSet[row] === 1 ? this.sorted.find(row) : -1;
  }

  update(row: number): ListMove | null {
    const state = this.inSet[row]!;
    const oldPos = state !== 1 ? -1 : this.preparedRow === row ? this.preparedPos : this.sorted.find(row);
    this.preparedRow = -1;
    const now = this.matches(row);
    if (state === 0 && !now) return null;
    if (state === 2 && !now) {
      // Past the sorted part, hence past every page.
      this.inSet[row] = 0;
      this.restCount--;
      return null;
    }
    return state === 1 ? this.shift(row, oldPos, now) : this.enter(row, state);
  }

  rebuild(next: Snapshot): void {
    const { query, parsed } = this;
    const view = (this.view = next);
    this.matches = compileRowMatcher(view, query, parsed);
    this.couldMatchRow = compileStaticMatcher(view, query, parsed);
    this.compare = compileRowComparator(view, query.sort);
    // The engine itself over the whole view: the reference the per-row path must agree with.
    this.fill(sortRows(view, filterRows(view, query.universe, query.filters, this.matches), query.sort));
  }

  /** Keep the first `keep` of `rows` (all matches, in order) sorted, the others in the rest. */
  private fill(rows: Int32Array): void {
    const { view, keep } = this;
    const inSet = (this.inSet = new Uint8Array(view.size));
    const head = rows.subarray(0, keep);
    this.sorted = createSortedRows(head, view.size, this.compare);
    for (const r of head) inSet[r] = 1;
    for (const r of rows.subarray(keep)) inSet[r] = 2;
    this.restCount = Math.max(0, rows.length - keep);
    this.preparedRow = -1;
  }

  /** Order every match again (the sorted part fell under the largest page, or a page grew). */
  private refill(): void {
    const { sorted, inSet } = this;
    const all: number[] = [];
    for (let i = 0; i < sorted.length; i++) all.push(sorted.at(i));
    for (let r = 0; r < inSet.length; r++) if (inSet[r] === 2) all.push(r);
    this.fill(sortRows(this.view, Int32Array.from(all), this.query.sort));
  }

  /** A row that did not match or was in the rest, matching now. */
  private enter(row: number, state: number): ListMove | null {
    const { sorted, inSet } = this;
    if (this.restCount > 0 && sorted.length > 0 && this.compare(row, sorted.at(sorted.length - 1)) > 0) {
      if (state === 0) (inSet[row] = 2), this.restCount++;
      return null;
    }
    if (state === 2) this.restCount--;
    inSet[row] = 1;
    const newPos = sorted.insert(row);
    if (sorted.length > this.keep) {
      const last = sorted.at(sorted.length - 1);
      sorted.removeAt(sorted.length - 1);
      inSet[last] = 2;
      this.restCount++;
    }
    return { oldPos: -1, newPos };
  }

  /** A row of the sorted part: gone, or moved. */
  private shift(row: number, oldPos: number, now: boolean): ListMove {
    const { sorted, inSet } = this;
    if (!now) {
      sorted.removeAt(oldPos);
      inSet[row] = 0;
      if (this.restCount > 0 && sorted.length < this.maxEnd) return this.refill(), 'all';
      return { oldPos, newPos: -1 };
    }
    const newPos = sorted.move(oldPos);
    // Moved to the end of the sorted part: rows of the rest may sort before it.
    if (this.restCount > 0 && newPos === sorted.length - 1) {
      sorted.removeAt(newPos);
      inSet[row] = 2;
      this.restCount++;
      if (sorted.length < this.maxEnd) return this.refill(), 'all';
      return { oldPos, newPos: -1 };
    }
    return { oldPos, newPos };
  }
}
