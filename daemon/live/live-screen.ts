/**
 * One live screen: a query compiled once against the live view, the sorted list of every
 * matching stock, and the page of it that forms the members (the query's page and per_page,
 * exactly what `POST /screen` returns). A tick re-checks one row; a new snapshot (or a query
 * the per-row path cannot serve) re-runs the engine on the whole view. Either way the result
 * is the membership diff: rows that entered the page and rows that left it.
 */
import { expressionOf, itemColumns, type ScreenQuery } from '../screening/query.js';
import type { Snapshot } from '../screening/snapshot.js';
import { filterRows } from '../screening/select.js';
import { sortRows } from '../screening/sort-rows.js';
import { PRICE_DEPENDENT_FIELDS } from './price-overlay.js';
import { compileRowComparator, compileRowMatcher, type RowComparator, type RowMatcher } from './row-matcher.js';
import { createSortedRows, type SortedRows } from './sorted-rows.js';

/** A change of membership: rows (of the current view) that entered, codes of the stocks that left. */
export interface MembershipDiff {
  entered: number[];
  exited: string[];
}

/** A compiled live screen and its membership. */
export interface LiveScreen {
  readonly query: ScreenQuery;
  /** Item columns of the screen's rows (those of POST /screen). */
  readonly columns: readonly string[];
  /** Every indicator field the screen reads (filters, expression, sort). */
  readonly fields: ReadonlySet<string>;
  /** True when a tick can change the screen (it reads a price-dependent field, or is cross-sectional). */
  readonly tickSensitive: boolean;
  /** True when one stock's value can change another stock's result: every tick re-runs the whole screen. */
  readonly crossSectional: boolean;
  /** Current members (rows), in the screen's order. */
  members(): readonly number[];
  /** Number of members (no copy). */
  count(): number;
  /** Number of stocks matching (all pages). */
  total(): number;
  /** Before a tick of `row` is written into the view: note where the row sorts now (its old values). */
  prepareRow(row: number): void;
  /** Re-check one row after a tick (after prepareRow, or alone: then its old place is searched by scan); null when the members did not change. */
  updateRow(row: number): MembershipDiff | null;
  /** Recompile on `snapshot` (a new view) and recompute everything; the diff against the previous members. */
  rebuild(snapshot: Snapshot): MembershipDiff | null;
}

const PRICE_SET = new Set(PRICE_DEPENDENT_FIELDS);

/**
 * Whether an expression reads across stocks (ranks, percentiles: issue 21). The compiled
 * expression says so with a `crossSectional` flag; none exists yet, so this is false today.
 */
export function isCrossSectional(parsed: unknown): boolean {
  return typeof parsed === 'object' && parsed !== null && (parsed as { crossSectional?: unknown }).crossSectional === true;
}

/** The diff between two member lists, by stock code (rows may differ between two snapshots). */
function diffPages(beforeCodes: readonly string[], after: Int32Array<ArrayBufferLike>, snapshot: Snapshot): MembershipDiff | null {
  const was = new Set(beforeCodes);
  const nowCodes = Array.from(after, (r) => snapshot.codes[r] ?? '');
  const now = new Set(nowCodes);
  const entered = Array.from(after).filter((_, k) => !was.has(nowCodes[k]!));
  const exited = beforeCodes.filter((c) => !now.has(c));
  return entered.length === 0 && exited.length === 0 ? null : { entered, exited };
}

/** Region of a position: before the page (0), in it (1), after it (2). */
const region = (pos: number, start: number, end: number) => (pos < start ? 0 : pos < end ? 1 : 2);

/**
 * True when moving one row from `oldPos` to `newPos` (−1: absent before / after) cannot change
 * which rows are in [start, end): it stayed on the same side of the page (a removal and an
 * insertion before the page cancel out; inside it only the order changes), or it was and is
 * past the page.
 */
function pageUnchanged(oldPos: number, newPos: number, start: number, end: number): boolean {
  if (oldPos >= 0 && newPos >= 0) return region(oldPos, start, end) === region(newPos, start, end);
  const pos = oldPos >= 0 ? oldPos : newPos;
  return pos >= end;
}

/**
 * Compile `query` (validated, e.g. by ScreenService.parse) against `snapshot` (a live view)
 * and compute its members. @throws AppError INVALID_REQUEST for a bad expression
 */
export function createLiveScreen(query: ScreenQuery, snapshot: Snapshot): LiveScreen {
  const parsed = expressionOf(query);
  const fields = new Set<string>([...query.filters.map((f) => f.field), ...query.sort.map((s) => s.field), ...(parsed?.fields ?? [])]);
  const crossSectional = isCrossSectional(parsed);
  const start = (query.page - 1) * query.per_page;
  const end = start + query.per_page;
  let view = snapshot;
  let matches: RowMatcher = () => false;
  let compare: RowComparator = (a, b) => a - b;
  // Top-N: `sorted` holds the first matches in order (at least `end` of them while more exist);
  // every other match is in the unordered rest and sorts after all of them.
  // inSet: 0 = no match, 1 = in `sorted`, 2 = in the rest.
  const keep = end + Math.max(end, 32);
  let sorted: SortedRows = createSortedRows([], 0, compare);
  let restCount = 0;
  let inSet = new Uint8Array(0);
  // Where prepareRow found the ticking row (its position under the old values).
  let preparedRow = -1;
  let preparedPos = -1;
  let mark = new Uint8Array(0);
  let page: Int32Array<ArrayBufferLike> = new Int32Array(0);
  // Set when only the order inside the page changed: the page is re-read when asked for.
  let pageStale = false;

  function compile(next: Snapshot): void {
    view = next;
    matches = compileRowMatcher(view, query, parsed);
    compare = compileRowComparator(view, query.sort);
  }

  /** The engine itself over the whole view: the reference the per-row path must agree with. */
  function runAll(): void {
    inSet = new Uint8Array(view.size);
    mark = new Uint8Array(view.size);
    fill(sortRows(view, filterRows(view, query.universe, query.filters, matches), query.sort));
    page = sorted.slice(start, end);
    pageStale = false;
    preparedRow = -1;
  }

  /** Keep the first `keep` of `rows` (all matches, in order) sorted, the others in the rest. */
  function fill(rows: Int32Array): void {
    const head = rows.subarray(0, keep);
    sorted = createSortedRows(head, view.size, compare);
    for (const r of head) inSet[r] = 1;
    for (const r of rows.subarray(keep)) inSet[r] = 2;
    restCount = Math.max(0, rows.length - keep);
  }

  /** The sorted part fell under the page while the rest holds more: order every match again. */
  function refill(): void {
    const all: number[] = [];
    for (let i = 0; i < sorted.length; i++) all.push(sorted.at(i));
    for (let r = 0; r < inSet.length; r++) if (inSet[r] === 2) all.push(r);
    fill(sortRows(view, Int32Array.from(all), query.sort));
  }

  const codesOf = (rows: ArrayLike<number>) => Array.from(rows, (r) => view.codes[r] ?? '');
  const scan = (row: number): number => {
    for (let i = 0; i < sorted.length; i++) if (sorted.at(i) === row) return i;
    return -1;
  };

  /** The new page and its diff within one view (rows are stable): marks in a typed array, no sets. */
  function movePage(): MembershipDiff | null {
    // A stale page has the right members in an old order: enough for the diff.
    const before = page;
    page = sorted.slice(start, end);
    pageStale = false;
    for (const r of before) mark[r] = 1;
    const entered: number[] = [];
    for (const r of page) {
      if (mark[r] === 1) mark[r] = 2;
      else entered.push(r);
    }
    const exited: string[] = [];
    for (const r of before) {
      if (mark[r] === 1) exited.push(view.codes[r] ?? '');
      mark[r] = 0;
    }
    return entered.length === 0 && exited.length === 0 ? null : { entered, exited };
  }

  /** The diff after one row moved from `oldPos` to `newPos` in the sorted part (−1: not in it). */
  function settle(oldPos: number, newPos: number): MembershipDiff | null {
    if (pageUnchanged(oldPos, newPos, start, end)) {
      // Same members; inside the page their order may have changed.
      if (region(newPos, start, end) === 1) pageStale = true;
      return null;
    }
    return movePage();
  }

  function refilled(): MembershipDiff | null {
    refill();
    return movePage();
  }

  function rebuild(next: Snapshot): MembershipDiff | null {
    // Rows may differ between two snapshots: the old page's codes are read on the old view.
    const before = codesOf(page);
    compile(next);
    runAll();
    return diffPages(before, page, view);
  }

  compile(snapshot);
  runAll();

  return {
    query,
    columns: itemColumns(query, parsed),
    fields,
    tickSensitive: crossSectional || [...fields].some((f) => PRICE_SET.has(f)),
    crossSectional,
    members() {
      if (pageStale) (page = sorted.slice(start, end)), (pageStale = false);
      return Array.from(page);
    },
    count: () => Math.max(0, Math.min(end, sorted.length) - start),
    total: () => sorted.length + restCount,
    prepareRow(row) {
      preparedRow = row;
      preparedPos = inSet[row] === 1 ? sorted.find(row) : -1;
    },
    updateRow(row) {
      if (crossSectional) return rebuild(view);
      const state = inSet[row]!;
      const oldPos = state !== 1 ? -1 : preparedRow === row ? preparedPos : scan(row);
      preparedRow = -1;
      const now = matches(row);
      if (state === 0 && !now) return null;
      if (state === 2 && !now) {
        // Past the sorted part, hence past the page.
        inSet[row] = 0;
        restCount--;
        return null;
      }
      const past = restCount > 0 && sorted.length > 0;
      if (state !== 1) {
        // A match outside the sorted part stays in the rest unless it now sorts before its last row.
        if (past && compare(row, sorted.at(sorted.length - 1)) > 0) {
          if (state === 0) (inSet[row] = 2), restCount++;
          return null;
        }
        if (state === 2) restCount--;
        inSet[row] = 1;
        const newPos = sorted.insert(row);
        if (sorted.length > keep) {
          const last = sorted.at(sorted.length - 1);
          sorted.removeAt(sorted.length - 1);
          inSet[last] = 2;
          restCount++;
        }
        return settle(-1, newPos);
      }
      if (!now) {
        sorted.removeAt(oldPos);
        inSet[row] = 0;
        if (restCount > 0 && sorted.length < end) return refilled();
        return settle(oldPos, -1);
      }
      const newPos = sorted.move(oldPos);
      // Moved to the end of the sorted part: rows of the rest may sort before it.
      if (restCount > 0 && newPos === sorted.length - 1) {
        sorted.removeAt(newPos);
        inSet[row] = 2;
        restCount++;
        if (sorted.length < end) return refilled();
        return settle(oldPos, -1);
      }
      return settle(oldPos, newPos);
    },
    rebuild,
  };
}
