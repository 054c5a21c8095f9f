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
import { expressionOf, type ScreenQuery } from '../screening/engine/query.js';
import { normalizeQuery } from '../screening/request/request.js';
import type { Snapshot } from '../screening/engine/snapshot.js';
import { queryFields, type ScreenList } from './live-screen.js';
import { createMatchList, type ListMove, type MatchList } from './match-list.js';
import { PRICE_DEPENDENT_FIELDS } from './price-overlay.js';
import { createRerunScheduler, type RerunBudget } from './rerun-scheduler.js';
import { createStaticMemo, createWholeList, needsWholeList } from './whole-list.js';

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

/** Create the index over the view `view()`; `moved` hears every change of a list. */
export function createListIndex<M>(view: () => Snapshot, moved: (group: ListGroup<M>, move: ListMove) => void, tuning: ListIndexTuning = {}): ListIndex<M> {
  const groups = new Map<string, Group<M>>();
  const memo = createStaticMemo();
  let byRow: RowGroup<M>[][] = [];
  // Without the row index: every tick-sensitive per-row list.
  let sensitive: RowGroup<M>[] = [];
  const whole = new Set<Group<M>>();
  // Re-runs in slices (a dear list's re-run is a hundred ms and more); settle's at once.
  const scheduler = createRerunScheduler<Group<M>>((g, checkpoint) => {
    const list = g.list;
    if (g.dead || list.perRow) return;
    if (checkpoint === undefined) {
      list.rerun();
      return void moved(g, 'all');
    }
    return list.rerunSliced(checkpoint).then((kept) => {
      if (kept && !g.dead) moved(g, 'all');
    });
  }, tuning.rerun);

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
      const key = tuning.shareLists === false ? normalizeQuery(query) : normalizeQuery({ ...query, page: 1, per_page: 1, fields: [] });
      const found = groups.get(key);
      if (found) return found;
      const parsed = expressionOf(query);
      const list = needsWholeList(query, parsed) ? createWholeList(query, parsed, view(), memo) : createMatchList(query, parsed, view());
      const tickSensitive = [...queryFields(query)].some((f) => PRICE_SET.has(f));
      const g: Group<M> = { key, list, tickSensitive, members: new Set(), dead: false };
      groups.set(key, g);
      index(g);
      return g;
    },
    leave(group) {
      const g = group as Group<M>;
      if (g.dead) return;
      g.dead = true;
      groups.delete(g.key);
      whole.delete(g);
      scheduler.drop(g);
      sensitive = sensitive.filter((x) => x !== group);
      // The row lists drop it when their row next ticks.
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
      for (const g of groups.values()) g.list.rebuild(snapshot);
      reindex(snapshot.size);
    },
    size: () => groups.size,
  };
}
