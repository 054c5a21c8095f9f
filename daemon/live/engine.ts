/**
 * The live-screen engine of one daemon: the live view (price-overlay.ts), every live screen
 * of this daemon's connections, and the incremental evaluation.
 *
 * - A tick writes the stock's live values into the view, then re-checks that one stock
 *   against the screens a tick can affect (the index: screens that read a price-dependent
 *   field; a screen on statements alone never moves intraday). Cross-sectional screens are
 *   re-run whole (live-screen.ts).
 * - A new indicator snapshot builds a new view (live prices re-applied) and re-runs every screen.
 * - Identical queries (after normalisation) share one compiled screen; each subscriber gets
 *   the diffs through its own listener.
 */
import type { PriceEvent } from '../kernel/events.js';
import { buildItem, type ScreenItem, type ScreenQuery } from '../screening/query.js';
import { normalizeQuery } from '../screening/request.js';
import type { Snapshot } from '../screening/snapshot.js';
import { createLiveScreen, type LiveScreen, type MembershipDiff } from './live-screen.js';
import { createLiveView, type LiveView } from './price-overlay.js';

/** A membership change as subscribers receive it. */
export interface LiveScreenChange {
  entered: LiveMemberRow[];
  exited: string[];
  /** Members after the change. */
  count: number;
  /** Stocks matching the screen (every page). */
  total: number;
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

/** The engine. */
export interface LiveScreenEngine {
  /** The current live view (POST /screen?prices=live answers on `view().snapshot`). */
  view(): LiveView;
  /** Apply ticks and evaluate the affected screens. */
  onTicks(events: readonly PriceEvent[]): void;
  /** Swap in a new indicator snapshot and re-evaluate every screen (no-op for the same version). */
  onSnapshot(snapshot: Snapshot): void;
  /** Compile (or share) the screen of `query` and subscribe. @throws AppError INVALID_REQUEST for a bad expression */
  add(query: ScreenQuery, listener: LiveScreenListener): LiveScreenHandle;
  /** Distinct compiled screens / subscriptions. */
  stats(): { screens: number; subscriptions: number; tick_sensitive: number };
}

interface Entry {
  key: string;
  screen: LiveScreen;
  listeners: Set<LiveScreenListener>;
}

/**
 * Create the engine over the indicator snapshot: a fixed one, or a provider of the current one
 * (checked before every tick batch, subscription and view read, so a swap is never missed).
 */
export function createLiveScreenEngine(source: Snapshot | (() => Snapshot)): LiveScreenEngine {
  // A fixed snapshot is replaced by onSnapshot only.
  let fixed = typeof source === 'function' ? undefined : source;
  const current = typeof source === 'function' ? source : () => fixed!;
  let view = createLiveView(current());
  const lastTick = new Map<string, PriceEvent>();
  const entries = new Map<string, Entry>();
  // The index: screens a tick can change.
  const tickSensitive = new Set<Entry>();

  const rowOf = (screen: LiveScreen, row: number): LiveMemberRow => {
    const item = buildItem(view.snapshot, row, screen.columns) as LiveMemberRow;
    item.price = typeof item.close === 'number' ? item.close : null;
    return item;
  };
  const notify = (entry: Entry, diff: MembershipDiff | null) => {
    if (diff === null) return;
    const change: LiveScreenChange = {
      entered: diff.entered.map((r) => rowOf(entry.screen, r)),
      exited: diff.exited,
      count: entry.screen.count(),
      total: entry.screen.total(),
    };
    for (const listener of entry.listeners) listener(change);
  };

  function onSnapshot(snapshot: Snapshot): void {
    if (fixed !== undefined) fixed = snapshot;
    if (snapshot === view.base) return;
    view = createLiveView(snapshot);
    for (const event of lastTick.values()) view.apply(event);
    for (const entry of entries.values()) notify(entry, entry.screen.rebuild(view.snapshot));
  }
  const sync = () => onSnapshot(current());

  return {
    view() {
      sync();
      return view;
    },
    onTicks(events) {
      sync();
      for (const event of events) {
        const row = view.base.rowByCode.get(event.code);
        if (row === undefined) continue;
        // Two passes: each screen finds the row under its old values, then re-places it under the new ones.
        for (const entry of tickSensitive) entry.screen.prepareRow(row);
        view.apply(event);
        lastTick.set(event.code, event);
        for (const entry of tickSensitive) notify(entry, entry.screen.updateRow(row));
      }
    },
    onSnapshot,
    add(query, listener) {
      sync();
      const key = normalizeQuery(query);
      let entry = entries.get(key);
      if (!entry) {
        entry = { key, screen: createLiveScreen(query, view.snapshot), listeners: new Set() };
        entries.set(key, entry);
        if (entry.screen.tickSensitive) tickSensitive.add(entry);
      }
      const own = entry;
      const hold = (change: LiveScreenChange) => listener(change);
      own.listeners.add(hold);
      return {
        screen: own.screen,
        members: () => own.screen.members().map((r) => rowOf(own.screen, r)),
        total: () => own.screen.total(),
        close() {
          if (!own.listeners.delete(hold) || own.listeners.size > 0) return;
          entries.delete(own.key);
          tickSensitive.delete(own);
        },
      };
    },
    stats: () => ({
      screens: entries.size,
      subscriptions: [...entries.values()].reduce((n, e) => n + e.listeners.size, 0),
      tick_sensitive: tickSensitive.size,
    }),
  };
}
