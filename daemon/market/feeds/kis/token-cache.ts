/**
 * The KIS access token and WebSocket approval key, shared by every daemon through Redis.
 *
 * The provider issues one token a minute per app key (EGW00133 otherwise) and a token lives a
 * day, so a token is asked for only when none is cached, and a Redis claim (`SET NX PX 60000`)
 * makes sure no two daemons — nor one daemon in a retry loop — ask within the same minute. A
 * leader that takes over reads the token its predecessor stored. An expired token (EGW00123)
 * is dropped only if it is still the cached one, so a late failure cannot discard a fresh token.
 */
import type { Redis } from 'ioredis';
import { KisApiError, type KisRest } from './rest-client.js';

/** The least time between two issuances of one kind (the provider's "1분당 1회"). */
export const ISSUE_INTERVAL_MS = 60_000;
// A token this close to its end is not used: a sweep must not start on one that dies half-way.
const EXPIRY_MARGIN_MS = 5 * 60_000;

/** Collaborators of the credential cache. */
export interface KisCredentialsDeps {
  redis: Redis;
  key(...parts: string[]): string;
  rest: Pick<KisRest, 'issueToken' | 'approvalKey'>;
  now(): number;
  /** Least time between two issuances of one kind (default ISSUE_INTERVAL_MS). */
  intervalMs?: number;
}

/** Tokens and approval keys, cached and shared. */
export interface KisCredentials {
  /** A valid access token (cached, or issued when allowed). @throws KisApiError when none can be had now */
  token(): Promise<string>;
  /** A WebSocket approval key (cached for the day, or issued when allowed). @throws KisApiError */
  approvalKey(): Promise<string>;
  /** Forget `token` if it is still the cached one (the provider said it expired). */
  dropToken(token: string): Promise<void>;
  /** Forget the approval key (the socket refused it). */
  dropApprovalKey(key: string): Promise<void>;
  /** Issuances this process made (token, approval). */
  issued(): { tokens: number; approval_keys: number };
}

const DROP_IF_SAME = `local v = redis.call('GET', KEYS[1]) if v and cjson.decode(v).value == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** Create the shared credential cache. */
export function createKisCredentials(deps: KisCredentialsDeps): KisCredentials {
  const { redis, now } = deps;
  const counts = { tokens: 0, approval_keys: 0 };
  const local = new Map<string, { value: string; expiresAt: number }>();
  const inflight = new Map<string, Promise<string>>();

  async function cached(kind: string): Promise<string | null> {
    const mine = local.get(kind);
    if (mine && mine.expiresAt - EXPIRY_MARGIN_MS > now()) return mine.value;
    const raw = await redis.get(deps.key('kis', kind));
    if (!raw) return null;
    try {
      const entry = JSON.parse(raw) as { value: string; expiresAt: number };
      if (entry.expiresAt - EXPIRY_MARGIN_MS <= now()) return null;
      local.set(kind, entry);
      return entry.value;
    } catch {
      return null;
    }
  }

  async function issue(kind: 'token' | 'approval', make: () => Promise<{ value: string; expiresAt: number }>): Promise<string> {
    const have = await cached(kind);
    if (have) return have;
    const claimed = await redis.set(deps.key('kis', kind, 'issued'), String(now()), 'PX', deps.intervalMs ?? ISSUE_INTERVAL_MS, 'NX');
    if (claimed !== 'OK') {
      // Another daemon (or this one, a moment ago) asked within the minute: its result lands in Redis.
      const again = await cached(kind);
      if (again) return again;
      throw new KisApiError(0, null, `KIS ${kind === 'token' ? 'access token' : 'approval key'} was issued less than a minute ago and is not cached yet; waiting for the provider's once-a-minute limit`);
    }
    const entry = await make();
    await redis.set(deps.key('kis', kind), JSON.stringify(entry), 'PX', Math.max(1000, entry.expiresAt - now()));
    local.set(kind, entry);
    return entry.value;
  }

  function once(kind: 'token' | 'approval', make: () => Promise<{ value: string; expiresAt: number }>): Promise<string> {
    let p = inflight.get(kind);
    if (!p) {
      p = issue(kind, make).finally(() => inflight.delete(kind));
      inflight.set(kind, p);
    }
    return p;
  }

  async function drop(kind: string, value: string): Promise<void> {
    if (local.get(kind)?.value === value) local.delete(kind);
    await redis.eval(DROP_IF_SAME, 1, deps.key('kis', kind), value);
  }

  return {
    token: () =>
      once('token', async () => {
        const t = await deps.rest.issueToken();
        counts.tokens++;
        return { value: t.token, expiresAt: t.expiresAt };
      }),
    approvalKey: () =>
      once('approval', async () => {
        const value = await deps.rest.approvalKey();
        counts.approval_keys++;
        // The approval key is documented like the token (a day); it is renewed on refusal anyway.
        return { value, expiresAt: now() + 86_400_000 };
      }),
    dropToken: (token) => drop('token', token),
    dropApprovalKey: (key) => drop('approval', key),
    issued: () => ({ ...counts }),
  };
}
