/**
 * The lists of matches of the live screens and which of them a tick can change:
 * - one list per distinct filter set and order (the query without its page, per_page and
 *   fields): screens that differ only in their page share it;
 * - the row index: for every row, the per-row lists that read a price-dependent field and that
 *   the row can enter at some live price (`couldMatch`: its universe, statement filters and
 *   price-free expression pass). A tick visits those lists only;
 * - whole lists (formula columns, cross-sectional terms) that read a price-dependent field are
 *   marked by every tick and re-run by the scheduler (rerun-scheduler.ts): in short slices, at
 *   most a fifth of a core however many lists exist, a list at most every 25 ms. Reading a
 *   screen never re-runs anything: a whole list's members are those of its last re-run.
 */
import { expressionOf, matchingRowsSliced, type Matching, type ScreenQuery } from '../screening/engine/query.js';
import { normalizeQuery } from '../screening/request/request.js';
import type { Snapshot } from '../screening/engine/snapshot.js';
import { queryFields, type ScreenList } from './live-screen.js';
import { createMatchList, type ListMove, type MatchList } from './match-list.js';
import { PRICE_DEPENDENT_FIELDS } from './price-overlay.js';
import { createRerunScheduler, type RerunBudget } from './rerun-scheduler.js';
import { createStaticMemo, createWholeList, needsWholeList } from './whole-list.js';
import type { CrossSectionMemo } from '../screening/language/cross-section.js';

/** Parts of the evaluation that can be switched off, to measure what each one is worth (the bench), and the re-runs' budget. */
export interface ListIndexTuning {
  /** Screens that differ only in their page share one list (default true). */
  shareLists?: boolean;
  /** A tick visits only the lists its row can enter (default true); false: every tick-sensitive list. */
  rowIndex?: boolean;
  /** What the whole lists' re-runs may spend (share of a core, slice, least period; rerun-scheduler.ts). */
  rerun?: RerunBudget;
}

/** One list and the screens reading it. */
export interface ListGroup<M> {
  readonly key: string;
  readonly list: ScreenList;
  /** True when a tick can change the list (it reads a price-dependent field). */
  readonly tickSensitive: boolean;
  readonly members: Set<M>;
}

/** The index. */
export interface ListIndex<M> {
  /** The list of `query`'s filter set and order (created, or shared). */
  join(query: ScreenQuery): ListGroup<M>;
  /**
   * Make the first run of `query`'s list ahead of its join, in slices (awaiting `checkpoint`
   * between units of work), when it would be a whole list not made yet: a dear one's first run is
   * a hundred ms and more. A join right after (no await between) takes it; nothing else does.
   * @throws what the engine throws for the query, and what `checkpoint` throws
   */
  prepare(query: ScreenQuery, checkpoint: () => Promise<void>): Promise<void>;
  /** Drop a list (its last screen closed). */
  leave(group: ListGroup<M>): void;
  /** Evaluate a tick of `row`: `apply` writes it into the view between the two passes. */
  tick(row: number, apply: () => void): void;
  /** Re-run every whole list ticks have changed, now (benches and tests comparing with a reference only). */
  settle(): void;
  /** Whole lists waiting for a re-run, and what the re-runs cost so far. */
  reruns(): { pending: number; slices: number; reruns: number; busy_ms: number };
  /** Stop the re-run timer; idempotent. */
  close(): void;
  /** Every list on a new view. */
  rebuild(snapshot: Snapshot): void;
  size(): number;
}

interface Group<M> extends ListGroup<M> {
  dead: boolean;
}
type RowGroup<M> = Group<M> & { readonly list: MatchList };

const PRICE_SET: ReadonlySet<string> = new Set(PRICE_DEPENDENT_FIELDS);

/** Prepared first runs kept at most (each waits only for the join right after it). */
const PREPARED_KEPT = 64;

/** A list's key: the query without its page, per_page and fields when pages share lists. */
const listKey = (query: ScreenQuery, share: boolean): string => normalizeQuery(share ? { ...query, page: 1, per_page: 1, fields: [] } : query);

/**
 * First runs of whole lists made ahead of their join, in slices, by list key, with the view they
 * ran on (a join on another view runs again).
 */
function createPreparedRuns(view: () => Snapshot, memo: CrossSectionMemo, keyOf: (query: ScreenQuery) => string) {
  const runs = new Map<string, { on: Snapshot; first: Matching }>();
  return {
    async make(query: ScreenQuery, checkpoint: () => Promise<void>): Promise<void> {
      const parsed = expressionOf(query);
      if (!needsWholeList(query, parsed)) return;
      const on = view();
      const first = await matchingRowsSliced(on, query, { ...(parsed === undefined ? {} : { parsedExpression: parsed }), memo }, checkpoint);
      // Bounded: a prepared list nobody joined (its subscribe failed after) goes with the rest.
      if (runs.size >= PREPARED_KEPT) runs.clear();
      runs.set(keyOf(query), { on, first });
    },
    /** The first run of the list `key` if it was made on the current view (taken: used once). */
    take(key: string): Matching | undefined {
      const ready = runs.get(key);
      runs.delete(key);
      return ready?.on === view() ? ready.first : undefined;
    },
    clear: () => runs.clear(),
  };
}

/**
 * Re-run a whole list and tell its screens: in slices with a checkpoint (a dear list's re-run is
 * a hundred ms and more), at once without (settle).
 */
function rerunGroup<M>(g: Group<M>, moved: (group: ListGroup<M>, move: ListMove) => void, checkpoint?: () => Promise<void>): void | Promise<void> {
  const list = g.list;
  if (g.dead || list.perRow) return;
  if (checkpoint === undefined) {
    list.rerun();
    return void moved(g, 'all');
  }
  return list.rerunSliced(checkpoint).then((kept) => {
    if (kept && !g.dead) moved(g, 'all');
  });
}

/** Create the index over the view `view()`; `moved` hears every change of a list. */
export function createListIndex<M>(view: () => Snapshot, moved: (group: ListGroup<M>, move: ListMove) => void, tuning: ListIndexTuning = {}): ListIndex<M> {
  const groups = new Map<string, Group<M>>();
  const memo = createStaticMemo();
  const keyOf = (query: ScreenQuery) => listKey(query, tuning.shareLists !== false);
  const prepared = createPreparedRuns(view, memo, keyOf);
  let byRow: RowGroup<M>[][] = [];
  let sensitive: RowGroup<M>[] = []; // without the row index: every tick-sensitive per-row list
  const whole = new Set<Group<M>>();
  const scheduler = createRerunScheduler<Group<M>>((g, checkpoint) => rerunGroup(g, moved, checkpoint), tuning.rerun);

  const perRow = (g: Group<M>): g is RowGroup<M> => g.list.perRow;
  function index(g: Group<M>): void {
    if (!g.tickSensitive) return;
    if (!perRow(g)) return void whole.add(g);
    sensitive.push(g);
    for (let r = 0; r < byRow.length; r++) if (g.list.couldMatch(r)) byRow[r]!.push(g);
  }
  function reindex(size: number): void {
    byRow = Array.from({ length: size }, () => []);
    sensitive = [];
    whole.clear();
    for (const g of groups.values()) index(g);
  }
  reindex(view().size);
  return {
    join(query) {
      const key = keyOf(query);
      const found = groups.get(key);
      if (found) return found;
      const [parsed, first] = [expressionOf(query), prepared.take(key)];
      const list = needsWholeList(query, parsed) ? createWholeList(query, parsed, view(), memo, first) : createMatchList(query, parsed, view());
      const tickSensitive = [...queryFields(query)].some((f) => PRICE_SET.has(f));
      const g: Group<M> = { key, list, tickSensitive, members: new Set(), dead: false };
      groups.set(key, g);
      index(g);
      if (first !== undefined && tickSensitive) scheduler.mark(g); // ticks during its sliced first run marked nothing
      return g;
    },
    prepare: (query, checkpoint) => (groups.has(keyOf(query)) ? Promise.resolve() : prepared.make(query, checkpoint)),
    leave(group) {
      const g = group as Group<M>;
      if (g.dead) return;
      g.dead = true;
      groups.delete(g.key);
      whole.delete(g);
      scheduler.drop(g);
      // The row lists drop it when their row next ticks.
      sensitive = sensitive.filter((x) => x !== group);
    },
    tick(row, apply) {
      const lists = tuning.rowIndex === false ? sensitive : byRow[row] ?? [];
      // Two passes: each list finds the row under its old values, then re-places it under the new ones.
      for (const g of lists) if (!g.dead) g.list.prepare(row);
      apply();
      let stale = false;
      for (const g of lists) {
        if (g.dead) {
          stale = true;
          continue;
        }
        const move = g.list.update(row);
        if (move !== null) moved(g, move);
      }
      if (stale && lists === byRow[row]) byRow[row] = lists.filter((g) => !g.dead);
      for (const g of whole) scheduler.mark(g);
    },
    settle: () => scheduler.settle(),
    reruns: () => ({ pending: scheduler.pending(), ...scheduler.stats() }),
    close: () => scheduler.close(),
    rebuild(snapshot) {
      scheduler.clear();
      prepared.clear();
      for (const g of groups.values()) g.list.rebuild(snapshot);
      reindex(snapshot.size);
    },
    size: () => groups.size,
  };
}
