/**
 * WebSocket sessions in Redis (the spec: a saved session lives 5
 * minutes after disconnect; restoring needs the same user). State lives only in Redis,
 * so a session written by one daemon restores on another.
 *
 * A session record is in one of two states:
 * - `live`: a checkpoint of an open connection, written on every subscription change and
 *   every checkpoint interval, kept for the session lifetime plus one interval after the
 *   last checkpoint — so a session whose daemon died without closing it (SIGKILL, OOM,
 *   power) can still be restored from its last checkpoint;
 * - `saved`: written when the connection closes, kept for the session lifetime.
 * Every record names its owner (the connection that wrote it, and its gateway instance).
 * Writes are conditional (Lua): only the owner writes its record, and a checkpoint never
 * overwrites a saved record. A restoration replaces the record atomically with one owned
 * by the restoring connection (compare-and-set on owner and state), so a session is
 * restored at most once.
 *
 * Layout: `<prefix>ws:session:<id>` is a hash {owner, gateway, state, data (JSON)} with a
 * Redis TTL (garbage collection); the JSON's `expires_at`, checked against the injected
 * clock, decides expiry. `<prefix>ws:sessions` is a sorted set id → expires_at of the
 * saved (disconnected) sessions, for the stats. `<prefix>ws:gateway:<id>` exists while a
 * gateway instance is alive (short TTL, refreshed): a live record whose gateway key is
 * gone belongs to a dead instance.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../infra/clock.js';
import type { SavedLiveScreen } from './screen-protocol.js';
import type { AlertCursor } from './alert-cursor.js';
import type { SubscriptionMap } from './protocol.js';

/** What a session carries from one connection to the next. */
export interface SessionState {
  user_id: string | null;
  subscriptions: SubscriptionMap;
  /** Last sequence number sent on the session. */
  last_sequence: number;
  /** Every relevant bus event up to this id was handed to the socket; replay starts after it. */
  last_stream_id: string | null;
  /** When the session was first opened (ms since the epoch). */
  started_at: number;
  /** Which of the owner's alert firings the session has been sent. */
  alerts: AlertCursor;
  /** Live screens with their members at save time; absent when none. */
  live_screens?: SavedLiveScreen[];
}

/** A stored session. */
export interface SavedSession extends SessionState {
  saved_at: number;
  expires_at: number;
}

/** Who wrote a record. */
export interface SessionOwner {
  /** The gateway instance. */
  gateway: string;
  /** The connection. */
  connection: string;
}

/** A record as read. */
export interface StoredSession {
  state: 'live' | 'saved';
  owner: SessionOwner;
  session: SavedSession;
}

/** Why a restoration failed (SESSION_RESTORATION_FAILED details.reason). */
export type RestoreFailure = 'unknown' | 'expired' | 'other_user' | 'in_use';

/** Checkpoint, save, claim and count sessions. Every method throws when Redis is unavailable. */
export interface SessionStore {
  /** Checkpoints of open connections in one round trip; per item, false when the record is someone else's (or already saved). */
  checkpoint(items: ReadonlyArray<{ id: string; state: SessionState; owner: SessionOwner }>): Promise<boolean[]>;
  /** The record of a closed connection; false when the record is someone else's. */
  save(id: string, state: SessionState, owner: SessionOwner): Promise<boolean>;
  read(id: string): Promise<StoredSession | null>;
  /** Replace `expected` by a live record of `owner` (compare-and-set on owner and state); false when it changed meanwhile. */
  claim(id: string, expected: StoredSession, state: SessionState, owner: SessionOwner): Promise<boolean>;
  /** Delete the record if `owner` holds it (a connection that moved on to another session). */
  release(id: string, owner: SessionOwner): Promise<void>;
  /** Delete an expired record. */
  remove(id: string): Promise<void>;
  /** Mark a gateway instance alive for `ttlMs`. */
  markAlive(gateway: string, ttlMs: number): Promise<void>;
  isAlive(gateway: string): Promise<boolean>;
  markDead(gateway: string): Promise<void>;
  /** Saved (disconnected) sessions not yet expired. */
  count(): Promise<number>;
}

/** Collaborators of the session store. */
export interface SessionStoreDeps {
  /** A command connection. */
  redis: Redis;
  key(...parts: string[]): string;
  clock: Clock;
  /** Lifetime of a session after disconnect (spec: 5 minutes). */
  ttlSeconds: number;
  /** Checkpoint interval: a live record outlives its last checkpoint by the lifetime plus this. */
  checkpointMs: number;
}

// KEYS: session, index. ARGV: owner, gateway, state, data, pttl, expires_at, id.
const WRITE = `
local cur = redis.call('HMGET', KEYS[1], 'owner', 'state')
if cur[1] and (cur[1] ~= ARGV[1] or (cur[2] == 'saved' and ARGV[3] == 'live')) then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'gateway', ARGV[2], 'state', ARGV[3], 'data', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
if ARGV[3] == 'saved' then redis.call('ZADD', KEYS[2], ARGV[6], ARGV[7]) else redis.call('ZREM', KEYS[2], ARGV[7]) end
return 1`;

// KEYS: session, index. ARGV: expected owner, expected state, owner, gateway, data, pttl, id.
const CLAIM = `
local cur = redis.call('HMGET', KEYS[1], 'owner', 'state')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[3], 'gateway', ARGV[4], 'state', 'live', 'data', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('ZREM', KEYS[2], ARGV[7])
return 1`;

// KEYS: session, index. ARGV: owner, id.
const RELEASE = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[2])
  return 1
end
return 0`;

type Script = (...args: (string | number)[]) => Promise<unknown>;
interface Scripted {
  wsSessionWrite: Script;
  wsSessionClaim: Script;
  wsSessionRelease: Script;
}

function defineScripts(redis: Redis): void {
  const r = redis as unknown as Partial<Scripted>;
  if (!r.wsSessionWrite) redis.defineCommand('wsSessionWrite', { numberOfKeys: 2, lua: WRITE });
  if (!r.wsSessionClaim) redis.defineCommand('wsSessionClaim', { numberOfKeys: 2, lua: CLAIM });
  if (!r.wsSessionRelease) redis.defineCommand('wsSessionRelease', { numberOfKeys: 2, lua: RELEASE });
}

/** Create the Redis-backed session store. */
export function createSessionStore(deps: SessionStoreDeps): SessionStore {
  const { redis, clock, ttlSeconds, checkpointMs } = deps;
  defineScripts(redis);
  const scripts = redis as unknown as Scripted;
  const sessionKey = (id: string) => deps.key('ws', 'session', id);
  const gatewayKey = (id: string) => deps.key('ws', 'gateway', id);
  const indexKey = deps.key('ws', 'sessions');
  const lifetimeMs = ttlSeconds * 1000;

  /** Arguments of WRITE for one record. */
  function writeArgs(id: string, state: SessionState, owner: SessionOwner, mode: 'live' | 'saved'): (string | number)[] {
    const now = clock.now();
    const expires = now + lifetimeMs + (mode === 'live' ? checkpointMs : 0);
    const record: SavedSession = { ...state, saved_at: now, expires_at: expires };
    // The Redis TTL only collects garbage (the record's expires_at decides): a little slack for clock differences.
    const pttl = lifetimeMs + (mode === 'live' ? 2 * checkpointMs : 0) + 1000;
    return [sessionKey(id), indexKey, owner.connection, owner.gateway, mode, JSON.stringify(record), pttl, expires, id];
  }

  return {
    async checkpoint(items) {
      if (items.length === 0) return [];
      const pipe = redis.pipeline() as unknown as Scripted & { exec(): Promise<[Error | null, unknown][] | null> };
      for (const item of items) void pipe.wsSessionWrite(...writeArgs(item.id, item.state, item.owner, 'live'));
      const results = (await pipe.exec()) ?? [];
      return results.map(([err, ok]) => {
        if (err) throw err;
        return ok === 1;
      });
    },
    async save(id, state, owner) {
      return (await scripts.wsSessionWrite(...writeArgs(id, state, owner, 'saved'))) === 1;
    },
    async read(id) {
      const h = await redis.hgetall(sessionKey(id));
      if (!h.data || !h.owner || (h.state !== 'live' && h.state !== 'saved')) return null;
      try {
        return { state: h.state, owner: { connection: h.owner, gateway: h.gateway ?? '' }, session: JSON.parse(h.data) as SavedSession };
      } catch {
        return null;
      }
    },
    async claim(id, expected, state, owner) {
      const now = clock.now();
      const record: SavedSession = { ...state, saved_at: now, expires_at: now + lifetimeMs + checkpointMs };
      const pttl = lifetimeMs + 2 * checkpointMs + 1000;
      const ok = await scripts.wsSessionClaim(
        sessionKey(id), indexKey, expected.owner.connection, expected.state, owner.connection, owner.gateway, JSON.stringify(record), pttl, id,
      );
      return ok === 1;
    },
    async release(id, owner) {
      await scripts.wsSessionRelease(sessionKey(id), indexKey, owner.connection, id);
    },
    async remove(id) {
      await redis.multi().del(sessionKey(id)).zrem(indexKey, id).exec();
    },
    async markAlive(gateway, ttlMs) {
      await redis.set(gatewayKey(gateway), '1', 'PX', Math.max(1, Math.round(ttlMs)));
    },
    async isAlive(gateway) {
      return (await redis.exists(gatewayKey(gateway))) === 1;
    },
    async markDead(gateway) {
      await redis.del(gatewayKey(gateway));
    },
    async count() {
      const now = clock.now();
      const [, [, n] = []] = (await redis.multi().zremrangebyscore(indexKey, '-inf', now).zcard(indexKey).exec()) ?? [];
      return Number(n ?? 0);
    },
  };
}
