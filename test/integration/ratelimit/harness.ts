/**
 * A small express app whose dummy routes are declared through the daemon's route table (so the
 * limiter runs per route, as in the daemon), real users in a real database (sqlite or
 * PostgreSQL), real tokens, a real Redis under a unique prefix and a manual clock.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request } from 'express';
import { Redis, type RedisOptions } from 'ioredis';
import { parseConfig, type ConfigInput } from '../../../daemon/config.js';
import type { Tier } from '../../../daemon/kernel/roles.js';
import { createTokenService, type TokenService } from '../../../daemon/auth/tokens.js';
import { createManualClock, type ManualClock } from '../../../daemon/infra/clock.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { createMetrics, type Metrics } from '../../../daemon/infra/metrics.js';
import { createRateLimiter } from '../../../daemon/http/middleware/rate-limit.js';
import { requestId } from '../../../daemon/http/middleware/request-id.js';
import { createApiBuilder } from '../../../daemon/http/api.js';
import { API_PREFIXES } from '../../../daemon/http/prefixes.js';
import { createRedisGuard } from '../../../daemon/infra/redis-guard.js';
import { openTestDb } from '../../helpers/test-store.js';
import { createUsersRepo, type UsersRepo } from '../../../daemon/store/users-repo.js';
import '../../../daemon/http/types.js';

/** 2026-03-09T00:00:10Z: 10 s into a minute (and an hour). */
export const T0 = Date.UTC(2026, 2, 9) + 10_000;

/** Shared users + token service for a test file. */
export interface Accounts {
  users: UsersRepo;
  tokens: TokenService;
  clock: ManualClock;
  /** Create a user with a tier; returns its id and a bearer token. */
  user(tier?: Tier): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

/** Open a fresh database of this pass's backend and a token service on a manual clock. */
export async function openAccounts(): Promise<Accounts> {
  const handle = await openTestDb('rl');
  const { db } = handle;
  const users = createUsersRepo(db);
  const clock = createManualClock(T0);
  // Tokens outlive every clock jump the tests make.
  const tokens = createTokenService({ secret: 'rate-limit-test-secret-0123456789abcdef', ttlSeconds: 30 * 86400, clock, isRevoked: async () => false });
  let n = 0;
  return {
    users,
    tokens,
    clock,
    async user(tier = 'free') {
      const row = await users.create({ email: `rl-${n++}-${Date.now()}@example.com`, name: null, password_hash: 'x', tier });
      return { id: row.id, token: (await tokens.sign({ id: row.id, tier, role: 'user' })).token };
    },
    close: () => handle.close(),
  };
}

/** Options for one test app. */
export interface AppOptions {
  redis: Redis;
  prefix: string;
  accounts: Accounts;
  trustProxy?: boolean;
  rateLimit?: ConfigInput['rate_limit'];
  /** The screen routes' `freeWhen` (a cache hit in the daemon). */
  isFreeRequest?: (req: Request) => Promise<boolean>;
  /** Receives every log line (JSON) at level warn and above. */
  logLines?: string[];
}

/** A running test app. */
export interface TestApp {
  metrics: Metrics;
  request(path: string, init?: { method?: string; token?: string; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** Start the app on port 0: the limiter is mounted globally, in front of every route. */
export async function startApp(options: AppOptions): Promise<TestApp> {
  const config = parseConfig({ rate_limit: options.rateLimit ?? {} }).rate_limit;
  const metrics = createMetrics();
  const lines = options.logLines;
  const logger = lines ? createLogger('warn', { write: (s: string) => void lines.push(s) }) : createLogger('silent');
  const guard = createRedisGuard(options.redis, { timeoutMs: config.timeout_ms, failuresToTrip: config.failures_to_fail_open });
  const limiter = createRateLimiter({
    guard,
    key: (...parts) => options.prefix + parts.join(':'),
    config,
    logger,
    metrics,
    clock: options.accounts.clock,
    authGuard: { tokens: options.accounts.tokens, users: options.accounts.users, clock: options.accounts.clock },
  });
  const app = express();
  app.set('trust proxy', options.trustProxy ?? false);
  app.use(requestId());
  const ok = (_req: Request, res: express.Response) => void res.json({ ok: true });
  const guards = { tokens: options.accounts.tokens, users: options.accounts.users, maxBodyBytes: 1 << 20 };
  const root = createApiBuilder('', guards);
  root.route({ method: 'get', path: '/health', summary: 'health', tags: [], access: 'public', rateLimitExempt: true }, ok);
  const api = createApiBuilder('/api/v1', { ...guards, limiter: limiter.forRoute });
  const common = { summary: 'dummy', tags: [], access: 'public' } as const;
  const freeWhen = options.isFreeRequest;
  api.route({ ...common, method: 'post', path: '/screen', freeWhen }, ok);
  api.route({ ...common, method: 'post', path: '/screening', limitAs: 'POST /screen', freeWhen }, ok);
  api.route({ ...common, method: 'get', path: '/stocks/:code' }, ok);
  api.route({ ...common, method: 'get', path: '/stocks' }, ok);
  api.route({ ...common, method: 'post', path: '/auth/login' }, ok);
  api.route({ ...common, method: 'post', path: '/auth/register' }, ok);
  app.use(root.router);
  for (const p of API_PREFIXES) app.use(p, api.router);
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    metrics,
    request(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.token) headers.set('authorization', `Bearer ${init.token}`);
      return fetch(base + path, { method: init.method ?? 'GET', headers });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A command connection like the daemon's API role (fails fast when Redis is down). */
export function commandClient(url: string, extra: RedisOptions = {}): Redis {
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, ...extra });
  client.on('error', () => undefined);
  return client;
}

/** Send `n` requests one after another; returns the statuses. */
export async function sequential(n: number, send: (i: number) => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await send(i);
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}
