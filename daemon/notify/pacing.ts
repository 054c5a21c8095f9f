/**
 * Per-destination pacing across daemons: each destination (a Telegram chat of one bot, a Slack or
 * Discord webhook, …) has a "next free slot" time in Redis; taking a slot moves it `intervalMs` on,
 * in one script call on Redis's own clock, so every daemon spaces its messages to one destination
 * by at least the interval (Telegram asks for about one message per second per chat). With Redis
 * unreachable, messages go unpaced (the receivers' 429s are still honoured by the retries).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Reserves send slots. */
export interface Pacer {
  /** Take the next slot of `destination`; resolves with the milliseconds to wait for it (0: now). */
  reserve(destination: string, intervalMs: number): Promise<number>;
}

const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local nextFree = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(now, nextFree)
redis.call('SET', KEYS[1], slot + interval, 'PX', slot + interval - now + 1000)
return slot - now
`;

/** A pacer over Redis keys `<prefix>pace:<hash of destination>`. */
export function createRedisPacer(redis: Redis, key: (...parts: string[]) => string): Pacer {
  return {
    async reserve(destination, intervalMs) {
      if (intervalMs <= 0) return 0;
      const hash = createHash('sha256').update(destination).digest('hex').slice(0, 32);
      try {
        return Number(await redis.eval(SCRIPT, 1, key('pace', hash), intervalMs));
      } catch {
        return 0;
      }
    },
  };
}
