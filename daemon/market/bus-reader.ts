/**
 * The market bus's read loop (bus.ts): one `XREAD BLOCK` loop on a connection of its own, started
 * by the first subscriber. It starts at the stream's last id, dispatches every event after it to
 * each handler in stream order, and keeps the recent ones for replays (recent-events.ts).
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { dropRedis, type RedisFactory } from '../infra/redis.js';
import type { MarketEvent } from '../kernel/events.js';
import { decodeEventJson, type RecentEvents } from './recent-events.js';

/** The stream entry's field holding the event (JSON). */
export const ENTRY_FIELD = 'e';
const BLOCK_MS = 5000;
/** Longest the read loop dispatches without giving the event loop a turn. */
const DISPATCH_SLICE_MS = 4;

/** Receives each event read, with its stream id. */
type Handler = (id: string, event: MarketEvent) => void;

/** ENTRY_FIELD as the buffer form of XREAD gives field names. */
const ENTRY_FIELD_BYTES = Buffer.from(ENTRY_FIELD);

/** The JSON of a stream entry's event, if it has one (as the read loop gets it: bytes; replays: a string). */
function entryJson<T extends string | Buffer>(fields: readonly T[]): T | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i]!;
    if (typeof name === 'string' ? name === ENTRY_FIELD : name.equals(ENTRY_FIELD_BYTES)) return fields[i + 1];
  }
  return undefined;
}

/** The event of an entry's JSON; null (logged) when it is missing or undecodable. */
function decodeRaw(raw: string | Buffer | undefined, logger: Logger, id: string): MarketEvent | null {
  if (raw === undefined) return null;
  const event = decodeEventJson(raw);
  if (event === null) logger.warn({ id }, 'market bus: undecodable entry skipped');
  return event;
}

/** The event of a stream entry; null (an undecodable one is logged) when it holds none. */
export function decodeEntry(fields: readonly (string | Buffer)[], logger: Logger, id: string): MarketEvent | null {
  return decodeRaw(entryJson(fields), logger, id);
}

/** Hand an event to every handler; one that throws is logged and the others still run. */
function dispatch(handlers: ReadonlySet<Handler>, id: string, event: MarketEvent, logger: Logger): void {
  for (const handler of handlers) {
    try {
      handler(id, event);
    } catch (err) {
      logger.error({ err, id }, 'market bus handler failed');
    }
  }
}

/** What the loop reads and where it keeps what it read. */
export interface BusReaderOptions {
  redis: RedisFactory;
  logger: Logger;
  streamKey: string;
  /** Events fetched per XREAD. */
  readCount: number;
  recent: RecentEvents;
}

/** The read loop and its handlers. */
export interface BusReader {
  /** Receive every event read from now on; returns the unsubscribe function. Starts the loop. */
  subscribe(handler: Handler): () => void;
  /** Resolves once the loop knows where it starts. */
  ready(): Promise<void>;
  /** Id of the last event dispatched (or the stream's last id when the loop started); null before ready. */
  position(): string | null;
  /** Stop the loop and drop its connection; waits for the loop at most a second. */
  close(): Promise<void>;
}

/** Create the read loop (it starts on the first subscribe). */
export function createBusReader(options: BusReaderOptions): BusReader {
  const { logger, streamKey, recent } = options;
  const handlers = new Set<Handler>();
  let connection: Redis | undefined;
  let closed = false;
  let position: string | null = null;
  let loop: Promise<void> | undefined;
  let markReady!: () => void;
  const readyPromise = new Promise<void>((resolve) => (markReady = resolve));

  /**
   * Dispatch what one XREAD returned; false when the reader closed meanwhile. The entries come as
   * bytes (XREAD's buffer form): the replay ring keeps them for seconds, outside the JS heap.
   */
  async function dispatchRead(res: [Buffer, [Buffer, Buffer[]][]][] | null): Promise<boolean> {
    let sliceStart = performance.now();
    for (const [, entries] of res ?? []) {
      for (const [rawId, fields] of entries) {
        const id = rawId.toString();
        position = id;
        // The entry's JSON found once: decoded for the handlers, kept as it came for replays.
        const raw = entryJson(fields);
        const event = decodeRaw(raw, logger, id);
        if (!event || raw === undefined) continue;
        recent.push(id, raw);
        dispatch(handlers, id, event, logger);
        // A read is up to `readCount` events, each dispatched to the live screens and the
        // gateway: give the event loop a turn every few ms so requests do not wait for all of them.
        if (performance.now() - sliceStart >= DISPATCH_SLICE_MS) {
          await new Promise<void>((r) => setImmediate(r));
          if (closed) return false;
          sliceStart = performance.now();
        }
      }
    }
    return true;
  }

  async function run(conn: Redis): Promise<void> {
    let failures = 0;
    while (!closed) {
      try {
        if (position === null) {
          const last = await conn.xrevrange(streamKey, '+', '-', 'COUNT', 1);
          position = last[0]?.[0] ?? '0-0';
          recent.reset(position);
          markReady();
        }
        const res = (await conn.xreadBuffer('COUNT', options.readCount, 'BLOCK', BLOCK_MS, 'STREAMS', streamKey, position)) as [Buffer, [Buffer, Buffer[]][]][] | null;
        failures = 0;
        if (!(await dispatchRead(res))) return;
      } catch (err) {
        if (closed) return;
        if (failures++ === 0) logger.warn({ err: (err as Error).message }, 'market bus read failed; retrying');
        await new Promise((r) => setTimeout(r, Math.min(100 * failures, 2000)));
      }
    }
  }

  return {
    subscribe(handler) {
      handlers.add(handler);
      if (!loop && !closed) {
        connection = options.redis.connect('subscriber', 'bus-reader');
        loop = run(connection);
      }
      return () => void handlers.delete(handler);
    },
    ready: () => readyPromise,
    position: () => position,
    async close() {
      closed = true;
      handlers.clear();
      if (connection) dropRedis(connection);
      // With Redis down the pending XREAD may never settle: do not let it hold up shutdown.
      await Promise.race([loop, new Promise((r) => setTimeout(r, 1000).unref())]);
    },
  };
}
