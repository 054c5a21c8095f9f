/**
 * One live screen: the page of a shared list of matches (match-list.ts, or whole-list.ts for
 * formula and cross-sectional queries) that forms the members — the query's page and
 * per_page, exactly what `POST /screen` returns. The list says how a tick moved it; the screen
 * turns that into its membership diff: rows that entered the page and stocks that left it.
 */
import { expressionOf, itemColumns, type ScreenQuery } from '../screening/engine/query.js';
import type { Snapshot } from '../screening/engine/snapshot.js';
import type { ListMove, MatchList } from './match-list.js';
import { wholeListFields, type WholeList } from './whole-list.js';

/** A change of membership: rows (of the current view) that entered, codes of the stocks that left. */
export interface MembershipDiff {
  entered: number[];
  exited: string[];
}

/** The list a screen's page is cut from. */
export type ScreenList = MatchList | WholeList;

/** A live screen: a page of a list. */
export interface LiveScreen {
  readonly query: ScreenQuery;
  /** Item columns of the screen's rows (those of POST /screen). */
  readonly columns: readonly string[];
  /** Every indicator field the screen reads (filters, expression, sort, formula columns). */
  readonly fields: ReadonlySet<string>;
  /** True when the list re-runs whole on a tick (formula columns, ranks, percentiles). */
  readonly crossSectional: boolean;
  readonly list: ScreenList;
  /** Current members (rows), in the screen's order. */
  members(): readonly number[];
  /** Number of members (no copy). */
  count(): number;
  /** Number of stocks matching (all pages). */
  total(): number;
  /** The list moved (a tick): the diff, or null when the members did not change. */
  moved(move: ListMove): MembershipDiff | null;
  /** Codes of the members, read before the list is rebuilt on a new view. */
  codes(): string[];
  /** The list was rebuilt on `next` (a new view): the diff against `before` (codes: rows differ between views). */
  rebuilt(before: readonly string[], next: Snapshot): MembershipDiff | null;
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

/** Every field `query` reads. */
export function queryFields(query: ScreenQuery): Set<string> {
  const parsed = expressionOf(query);
  return new Set([...query.filters.map((f) => f.field), ...query.sort.map((s) => s.field), ...(parsed?.fields ?? []), ...wholeListFields(query)]);
}

/** The page of `query` on `list` (its filter set and order). */
export function createLiveScreen(query: ScreenQuery, list: ScreenList, snapshot: Snapshot): LiveScreen {
  const start = (query.page - 1) * query.per_page;
  const end = start + query.per_page;
  if (list.perRow) list.needEnd(end);
  let page = list.slice(start, end);
  // Set when only the order inside the page changed: the page is re-read when asked for.
  let pageStale = false;
  let view = snapshot;
  let mark = new Uint8Array(view.size);
  const codeOf = (row: number) => view.codes[row] ?? '';

  /** The new page and its diff within one view (rows are stable): marks in a typed array, no sets. */
  function movePage(): MembershipDiff | null {
    // A stale page has the right members in an old order: enough for the diff.
    const before = page;
    page = list.slice(start, end);
    pageStale = false;
    for (const r of before) mark[r] = 1;
    const entered: number[] = [];
    for (const r of page) {
      if (mark[r] === 1) mark[r] = 2;
      else entered.push(r);
    }
    const exited: string[] = [];
    for (const r of before) {
      if (mark[r] === 1) exited.push(codeOf(r));
      mark[r] = 0;
    }
    return entered.length === 0 && exited.length === 0 ? null : { entered, exited };
  }
  return {
    query,
    columns: itemColumns(query, expressionOf(query)),
    fields: queryFields(query),
    crossSectional: !list.perRow,
    list,
    members() {
      if (pageStale) (page = list.slice(start, end)), (pageStale = false);
      return Array.from(page);
    },
    count: () => Math.max(0, Math.min(end, list.length) - start),
    total: () => list.total(),
    moved(move) {
      if (move === 'all' || !pageUnchanged(move.oldPos, move.newPos, start, end)) return movePage();
      // Same members; inside the page their order may have changed.
      if (region(move.newPos, start, end) === 1) pageStale = true;
      return null;
    },
    codes: () => Array.from(page, (r) => codeOf(r)),
    rebuilt(before, next) {
      view = next;
      mark = new Uint8Array(view.size);
      page = list.slice(start, end);
      pageStale = false;
      const was = new Set(before);
      const now = new Set(Array.from(page, codeOf));
      const entered = Array.from(page).filter((r) => !was.has(codeOf(r)));
      const exited = before.filter((c) => !now.has(c));
      return entered.length === 0 && exited.length === 0 ? null : { entered, exited };
    },
  };
}
