/**
 * The market bus: the one fan-out and replay mechanism for real-time events. One Redis
 * Stream under the deployment prefix (`<prefix>events`), trimmed with `MAXLEN ~ maxLen`,
 * so its length is also the replay history of WebSocket session restoration. Every daemon
 * runs one `XREAD BLOCK` loop on its own connection and dispatches locally; producers on
 * any instance `XADD` to the same stream.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { closeRedis, waitReady, type RedisFactory } from '../infra/redis.js';
import type { MarketEvent } from '../kernel/events.js';
import { createBusReader, decodeEntry, ENTRY_FIELD } from './bus-reader.js';
import { createRecentEvents } from './recent-events.js';

/** Publish, subscribe and replay market events (contract shared by the feed and the gateway). */
export interface MarketBus {
  /** Append one event; resolves with its stream id. @throws when Redis is unavailable */
  publish(event: MarketEvent): Promise<string>;
  /**
   * Append several events in one pipeline; ids in input order. `encoded`: the events already as
   * encodeEvent gave them (the tick path encodes each once for the quotes and the bus).
   * @throws when Redis is unavailable
   */
  publishMany(events: MarketEvent[], encoded?: readonly Buffer[]): Promise<string[]>;
  /** Receive every event appended from now on, in stream order; returns the unsubscribe function. */
  subscribe(handler: (id: string, event: MarketEvent) => void): () => void;
  /** Up to `count` events with ids strictly after `afterId`, oldest first. @throws when Redis is unavailable */
  range(afterId: string, count: number): Promise<Array<[string, MarketEvent]>>;
  /** Oldest id still kept (null when the stream is empty): detects gaps longer than the history. */
  firstId(): Promise<string | null>;
  /** Stop the read loop and close both connections; idempotent. */
  close(): Promise<void>;
}

/** The Redis Stream bus, with its local dispatch position (the gateway's replay needs it). */
export interface StreamMarketBus extends MarketBus {
  /** Resolves once the read loop knows where it starts (events appended afterwards are delivered). */
  ready(): Promise<void>;
  /** Id of the last event dispatched locally (or the stream's last id when the loop started); null before ready. */
  position(): string | null;
  /**
   * Entries ever removed from the history (XINFO STREAM entries-added − length);
   * null when unknown (no stream yet, or Redis older than 7.0).
   * @throws when Redis is unavailable
   */
  removedCount(): Promise<number | null>;
}

/** Collaborators of the bus. */
export interface MarketBusDeps {
  redis: RedisFactory;
  logger: Logger;
  /** Approximate number of events kept (`XADD MAXLEN ~`). */
  maxLen: number;
  /** Events fetched per XREAD (default 1000). */
  readCount?: number;
  /**
   * Command timeout of the history connection (replay reads, default 5000 ms). Replays run
   * on their own connection so a reconnect storm's reads neither delay publishes nor hit
   * the fail-fast timeout of the command connections.
   */
  historyTimeoutMs?: number;
}

/** Events kept in memory for replays (at most the stream's own length). */
const RECENT_EVENTS_KEPT = 50_000;
const HISTORY_TIMEOUT_MS = 5000;

/**
 * An event as the stream and the quote hashes hold it: its JSON, as bytes. Handed to Redis as a
 * string, every command's text waited in the connection's write queue on the JS heap while a
 * busy socket drained, long enough to outlive the young generation: the feed's writes were most
 * of what the daemon's heap grew by between full collections. Bytes wait outside the heap.
 */
export const encodeEvent = (event: MarketEvent): Buffer => Buffer.from(JSON.stringify(event));

/** Compare two stream ids ("ms-seq"); negative when a < b. */
export function compareStreamIds(a: string, b: string): number {
  // Without splitting into new strings: a replay compares every event it scans, and after a
  // restart thousands of replays run at once (a profile of the reconnect storm found it hot).
  const ad = a.indexOf('-');
  const bd = b.indexOf('-');
  const aEnd = ad < 0 ? a.length : ad;
  const bEnd = bd < 0 ? b.length : bd;
  return compareSpans(a, 0, aEnd, b, 0, bEnd) || compareSpans(a, ad < 0 ? a.length : ad + 1, a.length, b, bd < 0 ? b.length : bd + 1, b.length);
}

// Decimal digits of a[as, ae) vs b[bs, be); an empty span is 0.
function compareSpans(a: string, as: number, ae: number, b: string, bs: number, be: number): number {
  if (as === ae || bs === be) return compareDigits(as === ae ? '0' : a.slice(as, ae), bs === be ? '0' : b.slice(bs, be));
  if (ae - as !== be - bs) return ae - as < be - bs ? -1 : 1;
  for (let i = 0; i < ae - as; i++) {
    const d = a.charCodeAt(as + i) - b.charCodeAt(bs + i);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

// Decimal strings without leading zeros: a longer one is larger (exact beyond 2^53).
function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The greatest possible stream id below `id` (so that `range(previousStreamId(id))` starts at `id`). */
export function previousStreamId(id: string): string {
  const [ms = '0', seq = '0'] = id.split('-');
  if (seq !== '0') return `${ms}-${BigInt(seq) - 1n}`;
  return ms === '0' ? '0-0' : `${BigInt(ms) - 1n}-18446744073709551615`;
}

/** The smallest possible stream id above `id`. */
export function nextStreamId(id: string): string {
  const [ms = '0', seq = '0'] = id.split('-');
  return seq === '18446744073709551615' ? `${BigInt(ms) + 1n}-0` : `${ms}-${BigInt(seq) + 1n}`;
}

/** Entries ever removed from the stream `key` (see StreamMarketBus.removedCount). */
async function removedCount(history: Redis, key: string): Promise<number | null> {
  let info: unknown[];
  try {
    info = (await history.xinfo('STREAM', key)) as unknown[];
  } catch (err) {
    if (/no such key/i.test((err as Error).message)) return null;
    throw err;
  }
  const field = (name: string) => {
    const at = info.indexOf(name);
    return at >= 0 ? Number(info[at + 1]) : NaN;
  };
  const removed = field('entries-added') - field('length');
  return Number.isFinite(removed) ? removed : null;
}

/** Create the bus (connections open now; the read loop starts on the first subscribe). */
export function createMarketBus(deps: MarketBusDeps): StreamMarketBus {
  const { redis, logger, maxLen } = deps;
  const streamKey = redis.key('events');
  const commands: Redis = redis.connect('command', 'bus');
  const history: Redis = redis.connect('command', 'bus-history', { commandTimeoutMs: deps.historyTimeoutMs ?? HISTORY_TIMEOUT_MS });
  // What the read loop dispatched lately, for replays (recent-events.ts).
  const recent = createRecentEvents(Math.min(maxLen, RECENT_EVENTS_KEPT), compareStreamIds);
  const reader = createBusReader({ redis, logger, streamKey, readCount: deps.readCount ?? 1000, recent });
  let closed = false;

  async function ensureReady(conn: Redis = commands): Promise<void> {
    if (conn.status !== 'ready') await waitReady(conn, 2000);
  }

  return {
    async publish(event) {
      await ensureReady();
      const id = await commands.xadd(streamKey, 'MAXLEN', '~', maxLen, '*', ENTRY_FIELD, encodeEvent(event));
      return id as string;
    },
    async publishMany(events, encoded) {
      if (events.length === 0) return [];
      await ensureReady();
      const pipe = commands.pipeline();
      events.forEach((event, i) => pipe.xadd(streamKey, 'MAXLEN', '~', maxLen, '*', ENTRY_FIELD, encoded?.[i] ?? encodeEvent(event)));
      const results = (await pipe.exec()) ?? [];
      return results.map(([err, id]) => {
        if (err) throw err;
        return id as string;
      });
    },
    subscribe: (handler) => reader.subscribe(handler),
    async range(afterId, count) {
      // From memory as far as it goes; the stream for the rest (usually nothing: the newest
      // entries not read by the loop yet).
      const local = recent.after(afterId, count) ?? [];
      if (local.length === count) return local;
      const from = local.length > 0 ? local[local.length - 1]![0] : afterId;
      await ensureReady(history);
      const entries = await history.xrange(streamKey, `(${from}`, '+', 'COUNT', count - local.length);
      const out = local;
      for (const [id, fields] of entries) {
        const event = decodeEntry(fields, logger, id);
        if (event) out.push([id, event]);
      }
      return out;
    },
    async firstId() {
      await ensureReady(history);
      const first = await history.xrange(streamKey, '-', '+', 'COUNT', 1);
      return first[0]?.[0] ?? null;
    },
    async removedCount() {
      await ensureReady(history);
      return removedCount(history, streamKey);
    },
    ready: () => reader.ready(),
    position: () => reader.position(),
    async close() {
      if (closed) return;
      closed = true;
      await reader.close();
      await Promise.all([closeRedis(commands), closeRedis(history)]);
    },
  };
}
