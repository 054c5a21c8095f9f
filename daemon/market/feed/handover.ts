/**
 * The hand-over of ingested ticks to the simulating leader: ticks ingested on any daemon while a
 * simulator runs are left in one Redis hash (`<prefix>feed:ingested`, latest per code), and the
 * leader continues from them at its next step instead of overwriting them.
 */
import type { Redis } from 'ioredis';
import type { MarketEvent, PriceEvent } from '../../kernel/events.js';
import { isPrice } from './tick-path.js';

/** How long handed-over ticks wait for a leader. */
const HANDOVER_TTL_MS = 60_000;

/** Both ends of the hand-over. */
export interface Handover {
  /** Leave the latest price per code of `events` for the leader. */
  give(events: MarketEvent[]): Promise<void>;
  /** Take (and remove) every price left since the last take. */
  take(): Promise<PriceEvent[]>;
  /** Forget what was left (a new leader synced from the quotes already). */
  clear(): Promise<void>;
}

/** Create the hand-over through hash `key` on command connection `commands`. */
export function createHandover(commands: Redis, key: string): Handover {
  return {
    async give(events) {
      const latest = new Map<string, string>();
      for (const e of events) if (isPrice(e)) latest.set(e.code, JSON.stringify(e));
      await commands.multi().hset(key, latest).pexpire(key, HANDOVER_TTL_MS).exec();
    },
    async take() {
      const res = await commands.multi().hgetall(key).del(key).exec();
      const raw = (res?.[0]?.[1] ?? {}) as Record<string, string>;
      return Object.values(raw).map((v) => JSON.parse(v) as PriceEvent);
    },
    async clear() {
      await commands.del(key);
    },
  };
}
