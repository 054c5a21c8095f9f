/**
 * The live-screen engine of one daemon: the live view (price-overlay.ts), every live screen
 * of this daemon's connections, and the incremental evaluation.
 *
 * - Screens that differ only in their page share one list of matches (match-list.ts): a tick
 *   is evaluated once per distinct filter set and order, and each screen reads its page.
 * - The row index: for every stock, the lists it can enter at some live price (its universe,
 *   statement filters and price-free expression pass; `compileStaticMatcher`) among those that
 *   read a price-dependent field. A tick writes the stock's live values into the view and
 *   re-checks that stock against those lists only.
 * - Lists with formula columns or cross-sectional terms (whole-list.ts) re-run whole; a tick
 *   marks them and the re-run scheduler (rerun-scheduler.ts) runs them in slices, within a
 *   share of a core however many there are. Nothing that reads a screen or the view forces a
 *   re-run: a whole list's members are those of its last re-run (a subscription, a close or a
 *   screen alert costs the same with one whole list or a thousand).
 * - A new indicator snapshot builds a new view (live prices re-applied) and re-runs every list.
 * - Identical queries (after normalisation) share one screen; each subscriber gets the diffs
 *   through its own listener.
 * - While the real feed's prices are stale the engine holds: screens keep following the view,
 *   but no entered/exited reaches a listener (a frozen or half-updated feed must not report
 *   stocks entering or leaving). When prices are fresh again each screen reports once the net
 *   change against its members when the hold began.
 */
import type { PriceEvent } from '../kernel/events.js';
import { buildItem, expressionOf, type ScreenItem, type ScreenQuery } from '../screening/engine/query.js';
import { normalizeQuery } from '../screening/request/request.js';
import type { Snapshot } from '../screening/engine/snapshot.js';
import { createLiveScreen, type LiveScreen, type MembershipDiff } from './live-screen.js';
import { createLiveView, type LiveView } from './price-overlay.js';
import { createListIndex, type ListGroup, type ListIndex, type ListIndexTuning } from './list-index.js';

/** A membership change as subscribers receive it. */
export interface LiveScreenChange {
  entered: LiveMemberRow[];
  exited: string[];
  /** Members after the change. */
  count: number;
  /** Stocks matching the screen (every page). */
  total: number;
  /**
   * True when a whole list's scheduled re-run caused the change (no tick or snapshot names it:
   * the moment differs from daemon to daemon).
   */
  rerun?: boolean;
}

/** A member row: the POST /screen item of the stock at live prices, plus `price`. */
export type LiveMemberRow = ScreenItem & { price: number | null };

/** Receives the changes of one subscription. */
export type LiveScreenListener = (change: LiveScreenChange) => void;

/** One subscriber's hold on a live screen. */
export interface LiveScreenHandle {
  /** Current members, in the screen's order. */
  members(): LiveMemberRow[];
  total(): number;
  readonly screen: LiveScreen;
  /** Stop receiving changes (the screen is dropped with its last subscriber); idempotent. */
  close(): void;
}

/**
 * A handle as a watcher of membership needs it (the screen alerts): its members' codes as they
 * stand (a whole list's as of its last re-run: reading them re-runs nothing).
 */
export function membershipWatch(handle: LiveScreenHandle): { close(): void; codes(): readonly string[] } {
  return { close: () => handle.close(), codes: () => handle.screen.codes() };
}

/** True when `query` has conditions (filters or an expression) beyond its universe and sort: membership by them means something. */
export function hasConditions(query: ScreenQuery): boolean {
  return query.filters.length > 0 || expressionOf(query) !== undefined;
}

/** A page larger than any market: a screen whose page is every match. */
const EVERY_MATCH = 1_000_000;

/**
 * The query whose members are a screen alert's: `page` — the query itself (its page, the
 * top-N cut of its sort); `conditions` — every stock that matches, wherever its sort puts it
 * (the same list of matches, so it shares the list and its re-runs with the query's live screens).
 */
export function membershipQuery(query: ScreenQuery, membership: 'conditions' | 'page'): ScreenQuery {
  return membership === 'page' ? query : { ...query, page: 1, per_page: EVERY_MATCH };
}

/** The engine. */
export interface LiveScreenEngine {
  /** The current live view (POST /screen?prices=live answers on `view().snapshot`); re-runs nothing. */
  view(): LiveView;
  /** Re-run every whole list ticks have made stale, now, in one go: for benches and tests comparing with the engine. */
  settle(): void;
  /** Whole lists waiting for their re-run, and what the re-runs have cost (slices, re-runs, CPU ms). */
  reruns(): { pending: number; slices: number; reruns: number; busy_ms: number };
  /** Stop the re-run timer (shutdown); idempotent. */
  close(): void;
  /** Swap in a pending indicator snapshot, re-running nothing else (whole lists stay due). */
  sync(): void;
  /** The indicator snapshot version of the view as it stands (no swap, no re-run). */
  version(): string;
  /** Apply ticks and evaluate the affected screens. */
  onTicks(events: readonly PriceEvent[]): void;
  /** Swap in a new indicator snapshot and re-evaluate every screen (no-op for the same version). */
  onSnapshot(snapshot: Snapshot): void;
  /** Compile (or share) the screen of `query` and subscribe. @throws AppError INVALID_REQUEST for a bad expression */
  add(query: ScreenQuery, listener: LiveScreenListener): LiveScreenHandle;
  /**
   * Before `add`: make the first run of `query`'s list in slices when it is a whole list not made
   * yet (ListIndex.prepare); an `add` right after (no await between) takes it, so a dear new
   * screen never holds the thread for its first evaluation. Optional: `add` alone runs it at once.
   * @throws like add, and what `checkpoint` throws
   */
  prepare(query: ScreenQuery, checkpoint: () => Promise<void>): Promise<void>;
  /**
   * Hold (true) or release (false) membership changes while prices are stale; a release reports
   * each screen's net change since the hold began. Idempotent.
   */
  hold(stale: boolean): void;
  /** True while changes are held. */
  held(): boolean;
  /** Distinct screens, subscriptions, screens a tick can change, and the lists of matches they share. */
  stats(): { screens: number; subscriptions: number; tick_sensitive: number; lists: number };
}

interface Entry {
  key: string;
  group: ListGroup<Entry>;
  screen: LiveScreen;
  listeners: Set<LiveScreenListener>;
}

/** A member row of `screen` on `view`: a per-row list's rows are the view's, a whole list's its own (formula columns, score). */
function memberRow(view: LiveView, screen: LiveScreen, row: number): LiveMemberRow {
  const items = screen.list.perRow ? view.snapshot : screen.list.itemView();
  const item = buildItem(items, row, screen.columns) as LiveMemberRow;
  item.price = typeof item.close === 'number' ? item.close : null;
  return item;
}

/** What a screen's members are now against the codes `was` it had (the release of a hold): null when the same. */
function netChange(screen: LiveScreen, was: readonly string[]): MembershipDiff | null {
  const rows = screen.members();
  const codes = screen.codes();
  const wasSet = new Set(was);
  const nowSet = new Set(codes);
  const entered = rows.filter((_r, i) => !wasSet.has(codes[i]!));
  const exited = was.filter((c) => !nowSet.has(c));
  return entered.length || exited.length ? { entered, exited } : null;
}

/**
 * Create the engine over the indicator snapshot: a fixed one, or a provider of the current one
 * (checked before every tick batch, subscription and view read, so a swap is never missed).
 * `tuning` switches parts of the evaluation off (the bench's comparison only) and sets what the
 * whole lists' re-runs may spend (`tuning.rerun`, from the daemon's configuration).
 */
export function createLiveScreenEngine(source: Snapshot | (() => Snapshot), tuning: ListIndexTuning = {}): LiveScreenEngine {
  return new Engine(source, tuning);
}

/** The live view, the last tick of every stock, the screens by normalised query and the row index of their lists. */
class Engine implements LiveScreenEngine {
  // A fixed snapshot is replaced by onSnapshot only.
  private fixed: Snapshot | undefined;
  private readonly current: () => Snapshot;
  private liveView: LiveView;
  private readonly lastTick = new Map<string, PriceEvent>();
  private readonly entries = new Map<string, Entry>();
  // While held: each screen's member codes when the hold began (or when it was created during it).
  private holding: Map<Entry, string[]> | null = null;
  private readonly index: ListIndex<Entry>;

  constructor(source: Snapshot | (() => Snapshot), tuning: ListIndexTuning) {
    this.fixed = typeof source === 'function' ? undefined : source;
    this.current = typeof source === 'function' ? source : () => this.fixed!;
    this.liveView = createLiveView(this.current());
    // A whole list moves only when the scheduler re-runs it; a per-row list on a tick (or a refill).
    this.index = createListIndex<Entry>(() => this.liveView.snapshot, (group, move) => {
      for (const entry of group.members) this.notify(entry, entry.screen.moved(move), !group.list.perRow);
    }, tuning);
  }

  view(): LiveView {
    this.sync();
    return this.liveView;
  }

  settle(): void {
    this.sync();
    this.index.settle();
  }

  reruns(): ReturnType<LiveScreenEngine['reruns']> {
    return this.index.reruns();
  }

  close(): void {
    this.index.close();
  }

  sync(): void {
    this.onSnapshot(this.current());
  }

  version(): string {
    return this.liveView.base.version;
  }

  onTicks(events: readonly PriceEvent[]): void {
    this.sync();
    const { lastTick } = this;
    for (const event of events) {
      const row = this.liveView.base.rowByCode.get(event.code);
      if (row === undefined) continue;
      this.index.tick(row, () => {
        this.liveView.apply(event);
        lastTick.set(event.code, event);
      });
    }
  }

  onSnapshot(snapshot: Snapshot): void {
    if (this.fixed !== undefined) this.fixed = snapshot;
    if (snapshot === this.liveView.base) return;
    const before = new Map([...this.entries.values()].map((e) => [e, e.screen.codes()]));
    const view = (this.liveView = createLiveView(snapshot));
    for (const event of this.lastTick.values()) view.apply(event);
    this.index.rebuild(view.snapshot);
    for (const [entry, codes] of before) this.notify(entry, entry.screen.rebuilt(codes, view.snapshot));
  }

  prepare(query: ScreenQuery, checkpoint: () => Promise<void>): Promise<void> {
    this.sync();
    // A screen of this query has a list already: the index finds it and prepares nothing.
    return this.index.prepare(query, checkpoint);
  }

  add(query: ScreenQuery, listener: LiveScreenListener): LiveScreenHandle {
    this.sync();
    const { entries, index } = this;
    const key = normalizeQuery(query);
    let entry = entries.get(key);
    if (!entry) {
      const group = index.join(query);
      entry = { key, group, screen: createLiveScreen(query, group.list, this.liveView.snapshot), listeners: new Set() };
      group.members.add(entry);
      entries.set(key, entry);
      this.holding?.set(entry, entry.screen.codes());
    }
    const own = entry;
    const hold = (change: LiveScreenChange) => listener(change);
    own.listeners.add(hold);
    return {
      screen: own.screen,
      members: () => own.screen.members().map((r) => memberRow(this.liveView, own.screen, r)),
      total: () => own.screen.total(),
      close() {
        if (!own.listeners.delete(hold) || own.listeners.size > 0) return;
        entries.delete(own.key);
        own.group.members.delete(own);
        if (own.group.members.size === 0) index.leave(own.group);
      },
    };
  }

  hold(stale: boolean): void {
    if (stale && !this.holding) {
      // (whole lists are as of their last re-run; the scheduler keeps them current)
      this.holding = new Map([...this.entries.values()].map((e) => [e, e.screen.codes()]));
      return;
    }
    if (stale || !this.holding) return;
    this.sync();
    // (whole lists are as of their last re-run; the scheduler keeps them current)
    const before = this.holding;
    this.holding = null;
    for (const [entry, was] of before) {
      if (!this.entries.has(entry.key) || this.entries.get(entry.key) !== entry) continue;
      this.notify(entry, netChange(entry.screen, was));
    }
  }

  held(): boolean {
    return this.holding !== null;
  }

  stats(): ReturnType<LiveScreenEngine['stats']> {
    const all = [...this.entries.values()];
    return {
      screens: all.length,
      subscriptions: all.reduce((n, e) => n + e.listeners.size, 0),
      tick_sensitive: all.filter((e) => e.group.tickSensitive).length,
      lists: this.index.size(),
    };
  }

  private notify(entry: Entry, diff: MembershipDiff | null, rerun = false): void {
    if (diff === null || this.holding) return;
    const change: LiveScreenChange = {
      entered: diff.entered.map((r) => memberRow(this.liveView, entry.screen, r)),
      exited: diff.exited,
      count: entry.screen.count(),
      total: entry.screen.total(),
      ...(rerun ? { rerun: true } : {}),
    };
    for (const listener of entry.listeners) listener(change);
  }
}
