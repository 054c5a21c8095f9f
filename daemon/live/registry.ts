/**
 * The deployment-wide registry of live screens in Redis: what `GET /screen/live` lists and
 * what the per-user limit counts, across every daemon (each daemon evaluates only its own
 * connections' screens, so only Redis sees them all).
 *
 * Per user: a sorted set of screen ids scored with their lease expiry (ms, Redis TIME) and a
 * hash of their descriptions. Claiming drops expired entries, counts, and adds when under the
 * limit, in one script (two daemons cannot both take the last slot). The owning daemon renews
 * its leases every third of `leaseMs` and releases on unsubscribe or close; a daemon that
 * dies stops renewing, so its entries lapse within `leaseMs`. Redis unavailable: the claim is
 * admitted (logged), like the connection caps (daemon/ws/connection-caps.ts).
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { LiveScreenEntry } from '../contract/screening.js';

/** One live screen as listed by GET /screen/live: the record is the wire shape (daemon/contract/screening.ts). */
export type { LiveScreenEntry } from '../contract/screening.js';

/** Outcome of a claim: taken, or the number already live for the user. */
export type LiveClaim = { ok: true } | { ok: false; current: number };

/** The registry. */
export interface LiveRegistry {
  /** Register `entry` for `userId` unless the user already has `limit` live screens. */
  claim(userId: string, entry: LiveScreenEntry, limit: number): Promise<LiveClaim>;
  /** Remove a screen; never throws. */
  release(userId: string, screenId: string): Promise<void>;
  /** Renew the leases of these screens; never throws. */
  renew(held: Iterable<{ userId: string; screenId: string }>): Promise<void>;
  /** The user's live screens on every daemon, oldest first. */
  list(userId: string): Promise<LiveScreenEntry[]>;
}

/** Collaborators of the registry. */
export interface LiveRegistryDeps {
  redis: Redis;
  key(...parts: string[]): string;
  logger: Logger;
  /** Lease of an entry (a crashed daemon's screens stop counting after this). */
  leaseMs: number;
}

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// KEYS: zset, hash; ARGV: screen id, entry JSON, limit, lease ms. Returns -1 when taken, else the current count.
const CLAIM = `${NOW}
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
if #expired > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  redis.call('HDEL', KEYS[2], unpack(expired))
end
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[3]) then return n end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]))
return -1`;

// KEYS: zset, hash; ARGV: lease ms, ids…
const RENEW = `${NOW}
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[1]))
return 1`;

// KEYS: zset, hash. Returns the JSON of the live (unexpired) entries, oldest lease first.
const LIST = `${NOW}
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(ids))`;

/** Create the registry. */
export function createLiveRegistry(deps: LiveRegistryDeps): LiveRegistry {
  const { redis, logger, leaseMs } = deps;
  const keys = (userId: string) => [deps.key('live', 'user', userId), deps.key('live', 'entries', userId)] as const;
  const warn = (err: Error, what: string) => logger.warn({ err: err.message }, `live screen registry: ${what} failed`);
  return {
    async claim(userId, entry, limit) {
      const [z, h] = keys(userId);
      try {
        const n = Number(await redis.eval(CLAIM, 2, z, h, entry.screen_id, JSON.stringify(entry), limit, leaseMs));
        return n < 0 ? { ok: true } : { ok: false, current: n };
      } catch (err) {
        warn(err as Error, 'claim');
        return { ok: true };
      }
    },
    async release(userId, screenId) {
      const [z, h] = keys(userId);
      await Promise.all([redis.zrem(z, screenId), redis.hdel(h, screenId)]).catch((err: Error) => warn(err, 'release'));
    },
    async renew(held) {
      const byUser = new Map<string, string[]>();
      for (const { userId, screenId } of held) byUser.set(userId, [...(byUser.get(userId) ?? []), screenId]);
      await Promise.all(
        [...byUser].map(([userId, ids]) => redis.eval(RENEW, 2, ...keys(userId), leaseMs, ...ids).catch((err: Error) => warn(err, 'renewal'))),
      );
    },
    async list(userId) {
      const rows = (await redis.eval(LIST, 2, ...keys(userId))) as (string | null)[];
      const entries = rows.flatMap((json) => (json === null ? [] : [JSON.parse(json) as LiveScreenEntry]));
      return entries.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
    },
  };
}
