/** Health endpoints at the root; 503 with "unhealthy" when a dependency is down. */
import { z } from 'zod';
import { DaemonHealth, DatabaseHealth, RedisHealth, type FeedHealth, type MarketLoadHealth } from '../../contract/health.js';
import { errorEnvelope, type ApiBuilder } from '../api.js';

/** Probes the health routes call; each resolves true when the dependency answers. */
export interface HealthDeps {
  pingDb(): Promise<boolean>;
  pingRedis(): Promise<boolean>;
  /** The market load running now (null: none; undefined: the queue could not be read in time). */
  marketLoad?(): Promise<MarketLoadHealth | null | undefined>;
  /** The real feed's freshness (absent: no real feed configured). */
  feed?(): FeedHealth | null;
  /** Why the daemon serves degraded (a data source's data is stale), or none. */
  degraded?(): Promise<string[]>;
}

/** A 503 says the dependency is down (the health body), or that the daemon is shutting down (the error envelope). */
const unhealthy = (body: z.ZodType, what: string) => ({
  503: {
    description: `${what} unreachable: {status:"unhealthy", ${what === 'Database' ? 'database' : 'redis'}:"disconnected", timestamp}; while the daemon shuts down, the error envelope`,
    schema: z.union([body, errorEnvelope]),
  },
});

/** Register GET /health, /health/db and /health/redis. */
export function registerHealthRoutes(api: ApiBuilder, deps: HealthDeps): void {
  const common = { tags: ['health'], access: 'public', raw: true, rateLimitExempt: true, errors: [503] } as const;
  api.route(
    {
      ...common, method: 'get', path: '/health', summary: 'Liveness of the daemon (degraded while a data source is stale), the market load in progress, and the real feed\'s freshness when one is configured', response: DaemonHealth,
      errorBodies: { 503: { description: 'The daemon is shutting down (error envelope, code SERVICE_UNAVAILABLE)', schema: errorEnvelope } },
    },
    async (_req, res) => {
      // A status read that fails (Redis away) must not turn liveness into an error; a stale source or
      // feed does not make the daemon unhealthy (it still serves): it says so, for monitors to alert on.
      const [reasons, load] = await Promise.all([(deps.degraded?.() ?? Promise.resolve([])).catch(() => []), deps.marketLoad?.()]);
      const feed = deps.feed?.() ?? null;
      const body: DaemonHealth = {
        status: reasons.length > 0 ? 'degraded' : 'healthy', timestamp: new Date().toISOString(),
        ...(reasons.length > 0 ? { reasons } : {}), ...(feed ? { feed } : {}), ...(load === undefined ? {} : { market_load: load }),
      };
      res.json(body);
    },
  );
  api.route(
    { ...common, method: 'get', path: '/health/db', summary: 'Database connectivity', response: DatabaseHealth, errorBodies: unhealthy(DatabaseHealth, 'Database') },
    async (_req, res) => {
      const ok = await deps.pingDb();
      res.status(ok ? 200 : 503).json({ status: ok ? 'healthy' : 'unhealthy', database: ok ? 'connected' : 'disconnected', timestamp: new Date().toISOString() } satisfies DatabaseHealth);
    },
  );
  api.route(
    { ...common, method: 'get', path: '/health/redis', summary: 'Redis connectivity (rate limits and revocation checks fail open while it is down)', response: RedisHealth, errorBodies: unhealthy(RedisHealth, 'Redis') },
    async (_req, res) => {
      const ok = await deps.pingRedis();
      res.status(ok ? 200 : 503).json({ status: ok ? 'healthy' : 'unhealthy', redis: ok ? 'connected' : 'disconnected', timestamp: new Date().toISOString() } satisfies RedisHealth);
    },
  );
}
