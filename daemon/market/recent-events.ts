/**
 * The events this daemon's bus read loop dispatched lately, in stream order. A session restore
 * replays what it missed from the history; when every client reconnects at once (a restart of
 * another daemon, a deploy), thousands of restores read the same recent stretch of the stream:
 * from memory they cost no Redis round trip and no transfer, and each event is decoded once.
 *
 * Entries are kept as the stream gave them (their JSON as bytes, outside the JS heap), decoded on
 * the first replay that reads them. Kept decoded, a full market's feed (thousands of prices and
 * order books a second, an order book a score of objects) held tens of MB of objects that all
 * outlived the young generation: the daemon's heap grew by hundreds of MB between full
 * collections with no replay asking for any of them.
 */
import type { MarketEvent } from '../kernel/events.js';

/** Compares two stream ids; negative when a < b. */
type CompareIds = (a: string, b: string) => number;

/** Decodes an entry (null: undecodable, left out of replays). */
type Decode = (raw: Buffer, id: string) => MarketEvent | null;

/** The recent events. */
export interface RecentEvents {
  /** Start again right after `id`: nothing at or before it is known here. */
  reset(afterId: string): void;
  /** The next entry of the stream, its JSON as bytes (in order, none skipped but undecodable ones). */
  push(id: string, raw: Buffer): void;
  /**
   * Up to `count` events with ids after `afterId`, oldest first; null when events after it may be
   * missing here (older than what is kept, or before the read loop started).
   */
  after(afterId: string, count: number): Array<[string, MarketEvent]> | null;
}

/** Keep the last `capacity` entries. */
export function createRecentEvents(capacity: number, compare: CompareIds, decode: Decode = decodeEventJson): RecentEvents {
  let ids: string[] = [];
  let raws: Buffer[] = [];
  // Decoded on the first replay that read them (undefined: not yet; null: undecodable).
  let decoded: (MarketEvent | null | undefined)[] = [];
  let head = 0;
  // Every event after this id (up to the newest pushed) is held; null: nothing is known.
  let coveredAfter: string | null = null;

  const eventAt = (i: number): MarketEvent | null => {
    let event = decoded[i];
    if (event === undefined) decoded[i] = event = decode(raws[i]!, ids[i]!);
    return event;
  };

  return {
    reset(afterId) {
      ids = [];
      raws = [];
      decoded = [];
      head = 0;
      coveredAfter = afterId;
    },
    push(id, raw) {
      if (coveredAfter === null) return;
      ids.push(id);
      raws.push(raw);
      if (ids.length - head > capacity) {
        coveredAfter = ids[head]!;
        head++;
      }
      // Drop the evicted half at once (amortised) rather than shifting on every push.
      if (head >= capacity) {
        ids = ids.slice(head);
        raws = raws.slice(head);
        decoded = decoded.slice(head);
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
      for (let i = lo; i < ids.length && out.length < count; i++) {
        const event = eventAt(i);
        if (event) out.push([ids[i]!, event]);
      }
      return out;
    },
  };
}

/** An event's JSON (text or bytes) decoded; null when it is not JSON (the bus reader's decoding too). */
export function decodeEventJson(raw: string | Buffer): MarketEvent | null {
  try {
    return JSON.parse(raw.toString()) as MarketEvent;
  } catch {
    return null;
  }
}
