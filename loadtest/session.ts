/**
 * The accounts and lookups a run needs, made lazily and once: the bench user (registered
 * fresh unless a token is given; lifted to enterprise with a huge custom limit when an admin
 * is available, so the tier does not throttle the run), the admin token, fresh users, and
 * the stock codes to request.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { accessTokenOf, type ApiClient } from './api.js';
import type { ResolvedOptions } from './options.js';

/** A user made for the run. */
export interface RunUser {
  id: string;
  email: string;
  password: string;
  token: string;
}

/** Custom hourly limit given to the bench user (the largest the admin API accepts). */
export const BENCH_USER_LIMIT = 1_000_000_000;

/** Lazily made accounts and lookups of one run. */
export interface Session {
  readonly api: ApiClient;
  /** Bearer token of the bench user. @throws ApiCallError when registering or logging in fails */
  token(): Promise<string>;
  /** Admin token, or null when no admin was given. @throws ApiCallError when the admin login fails */
  adminToken(): Promise<string | null>;
  /** Register and log in a new user; `patch` is applied by the admin first (tier, custom limit). */
  freshUser(patch?: Record<string, unknown>): Promise<RunUser>;
  /** Credentials that log in (the bench user's, or a fresh user's when a token was given). */
  credentials(): Promise<{ email: string; password: string }>;
  /** Codes of up to `n` stocks (of one market when given), largest market cap first. @throws when the target lists none */
  stockCodes(n: number, market?: 'KOSPI' | 'KOSDAQ'): Promise<string[]>;
  /** Things the report should say about the setup (e.g. the bench user could not be lifted). */
  readonly notes: string[];
}

/** Create the session of a run against `api`. */
export function createSession(api: ApiClient, options: ResolvedOptions, signal: AbortSignal): Session {
  const notes: string[] = [];
  let admin: Promise<string | null> | undefined;
  let bench: Promise<RunUser | { token: string }> | undefined;
  const codes = new Map<string, Promise<string[]>>();

  async function login(email: string, password: string): Promise<string> {
    return accessTokenOf(await api.ok('/api/v1/auth/login', { json: { email, password }, signal }));
  }

  async function freshUser(patch?: Record<string, unknown>): Promise<RunUser> {
    const email = `loadtest-${randomUUID().slice(0, 12)}@example.com`;
    const password = randomBytes(12).toString('base64url');
    await api.ok('/api/v1/auth/register', { json: { email, password }, signal });
    let token = await login(email, password);
    const me = await api.ok<{ data: { id: string } }>('/api/v1/users/me', { token, signal });
    const adminToken = patch ? await session.adminToken() : null;
    if (patch && adminToken) {
      await api.ok(`/api/v1/admin/users/${me.data.id}`, { method: 'PATCH', json: patch, token: adminToken, signal });
      token = await login(email, password); // a fresh token carries the new tier
    }
    return { id: me.data.id, email, password, token };
  }

  async function makeBench(): Promise<RunUser | { token: string }> {
    if (options.token) return { token: options.token };
    const lifted = await session.adminToken();
    if (!lifted) notes.push('no admin given: the bench user keeps the default tier; a REST scenario whose planned requests exceed its quota stops at once');
    return freshUser(lifted ? { tier: 'enterprise', rate_limit_per_hour: BENCH_USER_LIMIT } : undefined);
  }

  const session: Session = {
    api,
    notes,
    adminToken() {
      admin ??= (async () => {
        if (options.adminToken) return options.adminToken;
        if (!options.admin) return null;
        return login(options.admin.email, options.admin.password);
      })();
      return admin;
    },
    async token() {
      bench ??= makeBench();
      return (await bench).token;
    },
    freshUser,
    async credentials() {
      bench ??= makeBench();
      const user = await bench;
      if ('email' in user) return { email: user.email, password: user.password };
      const fresh = await freshUser();
      return { email: fresh.email, password: fresh.password };
    },
    stockCodes(n, market) {
      const key = `${n}:${market ?? 'ALL'}`;
      let found = codes.get(key);
      if (!found) {
        found = (async () => {
          const token = await session.token();
          const all: string[] = [];
          for (let page = 1; all.length < n; page++) {
            const path = `/api/v1/stocks?limit=${Math.min(500, n)}&page=${page}&sort=market_cap&order=desc${market ? `&market=${market}` : ''}`;
            const list = await api.ok<{ data: { code: string }[] }>(path, { token, signal });
            all.push(...list.data.map((s) => s.code));
            if (list.data.length < Math.min(500, n)) break;
          }
          if (all.length === 0) throw new Error(`the target lists no ${market ?? ''}${market ? ' ' : ''}stocks: load a market first (POST /api/v1/admin/jobs {"type":"load-sample"})`);
          return all.slice(0, n);
        })();
        codes.set(key, found);
      }
      return found;
    },
  };
  return session;
}
