/**
 * The `ticks:in` Redis stream: how an external bridge to a broker's feed drives the daemons
 * (the same ticks POST /admin/ticks takes, for a bridge that cannot call HTTP). The bridge appends entries, e.g.
 *
 *   XADD <prefix>ticks:in MAXLEN ~ 100000 * tick '{"code":"005930","price":71500,"volume":1234567}'
 *   XADD <prefix>ticks:in MAXLEN ~ 100000 * tick '{"ticks":[{...},{...}]}'
 *   XADD <prefix>ticks:in MAXLEN ~ 100000 * code 005930 price 71500 volume 1234567 [ts 1773014400000]
 *
 * (field formats: see `streamEntryBody` in ./ingest.ts; the bridge trims the stream with
 * MAXLEN). Every daemon reads it in the consumer group `feed`, with XREADGROUP BLOCK on its
 * own connection, so each entry is applied by exactly one daemon; the group starts at the
 * stream's end when first created (a backlog from before is not replayed). An entry that
 * is invalid is logged and acknowledged; one that failed for a transient reason (Redis
 * down) stays pending and is claimed again (XAUTOCLAIM) after `claimIdleMs` by any daemon.
 */
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isAppError } from '../../errors.js';
import { dropRedis, type RedisFactory } from '../../infra/redis.js';
import { streamEntryBody } from './ingest.js';

/** Consumer group name on `ticks:in`. */
export const TICK_STREAM_GROUP = 'feed';

/** Options of the consumer. */
export interface TickStreamOptions {
  redis: RedisFactory;
  instanceId: string;
  /** Apply one entry's body. Throw AppError INVALID_REQUEST for bad input (acknowledged), anything else to retry later. */
  handle(body: unknown): Promise<void>;
  logger: Logger;
  blockMs?: number;
  /** Pending entries idle this long are taken over from their consumer (default 30 s). */
  claimIdleMs?: number;
  /** Called after each entry is settled (tests, stats). */
  onEntry?(id: string, ok: boolean): void;
}

/** A running consumer. */
export interface TickStreamConsumer {
  start(): void;
  /** Stop reading and close the connection; idempotent. */
  stop(): Promise<void>;
}

type Entry = [id: string, fields: string[]];

/** Create the consumer group of stream `key` (with the stream) unless it exists. */
async function ensureGroup(c: Redis, key: string): Promise<void> {
  try {
    await c.xgroup('CREATE', key, TICK_STREAM_GROUP, '$', 'MKSTREAM');
  } catch (err) {
    if (!/BUSYGROUP/.test((err as Error).message)) throw err;
  }
}

/** Create the consumer of `<prefix>ticks:in`. */
export function createTickStreamConsumer(options: TickStreamOptions): TickStreamConsumer {
  const { redis, instanceId, logger } = options;
  const key = redis.key('ticks:in');
  const blockMs = options.blockMs ?? 2_000;
  const claimIdleMs = options.claimIdleMs ?? 30_000;
  let conn: Redis | undefined;
  let loop: Promise<void> | undefined;
  let stopped = false;

  async function settle(id: string, fields: string[]): Promise<void> {
    let ok = false;
    try {
      await options.handle(streamEntryBody(fields));
      ok = true;
    } catch (err) {
      const permanent = isAppError(err) || err instanceof SyntaxError;
      logger.warn({ id, err: (err as Error).message, details: isAppError(err) ? err.details : undefined }, permanent ? 'ticks:in entry rejected' : 'ticks:in entry failed; will retry');
      if (!permanent) return;
    }
    await conn!.xack(key, TICK_STREAM_GROUP, id);
    options.onEntry?.(id, ok);
  }

  async function claimStale(c: Redis): Promise<void> {
    let cursor = '0-0';
    for (let round = 0; round < 10; round++) {
      const [next, entries] = (await c.xautoclaim(key, TICK_STREAM_GROUP, instanceId, claimIdleMs, cursor, 'COUNT', 100)) as [string, Entry[]];
      for (const [id, fields] of entries) if (fields) await settle(id, fields);
      if (next === '0-0') return;
      cursor = next;
    }
  }

  async function run(c: Redis): Promise<void> {
    let groupReady = false;
    let lastClaim = performance.now();
    let failures = 0;
    while (!stopped) {
      try {
        if (!groupReady) {
          await ensureGroup(c, key);
          groupReady = true;
        }
        if (performance.now() - lastClaim >= claimIdleMs) {
          lastClaim = performance.now();
          await claimStale(c);
        }
        const res = (await c.xreadgroup('GROUP', TICK_STREAM_GROUP, instanceId, 'COUNT', 100, 'BLOCK', blockMs, 'STREAMS', key, '>')) as [string, Entry[]][] | null;
        failures = 0;
        for (const [, entries] of res ?? []) for (const [id, fields] of entries) await settle(id, fields);
      } catch (err) {
        if (stopped) return;
        if (/NOGROUP/.test((err as Error).message)) groupReady = false; // the stream was deleted
        if (failures++ === 0) logger.warn({ err: (err as Error).message }, 'ticks:in read failed; retrying');
        await new Promise((r) => setTimeout(r, Math.min(100 * failures, 2_000)));
      }
    }
  }

  return {
    start() {
      if (loop || stopped) return;
      conn = redis.connect('subscriber', 'feed-ticks-in');
      loop = run(conn);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // A blocked XREADGROUP only returns when the connection goes away.
      if (conn) dropRedis(conn);
      await loop;
    },
  };
}
