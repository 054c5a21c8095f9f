/**
 * Caps on open WebSocket connections, counted in Redis across every daemon: per client
 * address for anonymous callers, per user for authenticated ones (config
 * `ws_max_connections_per_address`, `ws_max_connections_per_user`; 0 = no cap).
 *
 * Each holder is a member of a sorted set scored with its lease expiry (ms, Redis TIME).
 * Taking a slot drops expired members, counts, and adds itself when under the cap, in one
 * script. The gateway renews its members' leases every third of `leaseMs` and removes
 * them on close; a daemon that dies without closing stops renewing, so its slots lapse
 * within `leaseMs` (and the key itself expires), never leaking a cap forever.
 * A connection over the cap is closed with CLOSE_CODES.TOO_MANY_CONNECTIONS (4029).
 * When Redis cannot be asked, the connection is admitted (logged): the cap is abuse
 * protection, and the gateway cannot save sessions without Redis anyway.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Who holds a slot: the key it is counted under and its member name. */
export interface CapSlot {
  key: string;
  member: string;
}

/** Settings of the caps. */
export interface ConnectionCapOptions {
  perAddress: number;
  perUser: number;
  /** How long a slot lives without renewal (a crashed daemon's slots lapse after this). */
  leaseMs: number;
}

/** The caps of one gateway. */
export interface ConnectionCaps {
  /**
   * Take a slot for a connection of `userId` (or, anonymous, of `address`).
   * @returns the slot, `null` when over the cap, or `undefined` when no cap applies or Redis failed (admitted)
   */
  acquire(id: { connectionId: string; userId: string | null; address: string }): Promise<CapSlot | null | undefined>;
  /** Give a slot back (connection closed). Never throws. */
  release(slot: CapSlot): Promise<void>;
  /** Renew the leases of these slots (called periodically). Never throws. */
  renew(slots: Iterable<CapSlot>): Promise<void>;
}

/** Collaborators of the caps. */
export interface ConnectionCapDeps {
  redis: Redis;
  key(...parts: string[]): string;
  gatewayId: string;
  logger: Logger;
}

// KEYS[1] set; ARGV: member, cap, lease ms. Returns 1 when taken, 0 when over the cap.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1`;

// KEYS[1] set; ARGV: lease ms, members… Pushes the members' expiry (only those present) and the key's.
const RENEW = `
local t = redis.call('TIME')
local until_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', until_ms, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1`;

/** Create the connection caps of one gateway. */
export function createConnectionCaps(deps: ConnectionCapDeps, options: ConnectionCapOptions): ConnectionCaps {
  const { redis, logger } = deps;
  const warn = (err: Error, what: string) => logger.warn({ err: err.message }, `WebSocket connection cap: ${what} failed`);
  return {
    async acquire({ connectionId, userId, address }) {
      const cap = userId ? options.perUser : options.perAddress;
      if (cap <= 0) return undefined;
      const slot = { key: userId ? deps.key('ws', 'conns', 'user', userId) : deps.key('ws', 'conns', 'addr', address), member: `${deps.gatewayId}:${connectionId}` };
      try {
        const taken = await redis.eval(ACQUIRE, 1, slot.key, slot.member, cap, options.leaseMs);
        return taken === 1 ? slot : null;
      } catch (err) {
        warn(err as Error, 'check');
        return undefined;
      }
    },
    async release(slot) {
      await redis.zrem(slot.key, slot.member).catch((err: Error) => warn(err, 'release'));
    },
    async renew(slots) {
      const byKey = new Map<string, string[]>();
      for (const s of slots) byKey.set(s.key, [...(byKey.get(s.key) ?? []), s.member]);
      await Promise.all(
        [...byKey].map(([key, members]) => redis.eval(RENEW, 1, key, options.leaseMs, ...members).catch((err: Error) => warn(err, 'renewal'))),
      );
    },
  };
}
