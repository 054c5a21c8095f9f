/**
 * The events this daemon's bus read loop dispatched lately, in stream order, decoded once. A
 * session restore replays what it missed from the history; when every client reconnects at once
 * (a restart, a deploy), thousands of restores read the same recent stretch of the stream: from
 * memory they cost no Redis round trip, no transfer and no decoding each.
 */
import type { MarketEvent } from '../kernel/events.js';

/** Compares two stream ids; negative when a < b. */
type CompareIds = (a: string, b: string) => number;

/** The recent events. */
export interface RecentEvents {
  /** Start again right after `id`: nothing at or before it is known here. */
  reset(afterId: string): void;
  /** The next event of the stream (in order, none skipped but undecodable ones). */
  push(id: string, event: MarketEvent): void;
  /**
   * Up to `count` events with ids after `afterId`, oldest first; null when events after it may be
   * missing here (older than what is kept, or before the read loop started).
   */
  after(afterId: string, count: number): Array<[string, MarketEvent]> | null;
}

/** Keep the last `capacity` events. */
export function createRecentEvents(capacity: number, compare: CompareIds): RecentEvents {
  let ids: string[] = [];
  let events: MarketEvent[] = [];
  let head = 0;
  // Every event after this id (up to the newest pushed) is held; null: nothing is known.
  let coveredAfter: string | null = null;

  return {
    reset(afterId) {
      ids = [];
      events = [];
      head = 0;
      coveredAfter = afterId;
    },
    push(id, event) {
      if (coveredAfter === null) return;
      ids.push(id);
      events.push(event);
      if (ids.length - head > capacity) {
        coveredAfter = ids[head]!;
        head++;
      }
      // Drop the evicted half at once (amortised) rather than shifting on every push.
      if (head >= capacity) {
        ids = ids.slice(head);
        events = events.slice(head);
        head = 0;
      }
    },
    after(afterId, count) {
      if (coveredAfter === null || compare(afterId, coveredAfter) < 0) return null;
      // First index whose id is after afterId.
      let lo = head;
      let hi = ids.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compare(ids[mid]!, afterId) > 0) hi = mid;
        else lo = mid + 1;
      }
      const out: Array<[string, MarketEvent]> = [];
      for (let i = lo; i < ids.length && out.length < count; i++) out.push([ids[i]!, events[i]!]);
      return out;
    },
  };
}
