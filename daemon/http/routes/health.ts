/** Health endpoints at the root; 503 with "unhealthy" when a dependency is down. */
import { z } from 'zod';
import type { DaemonHealth, DatabaseHealth, FeedHealth, MarketLoadHealth, RedisHealth } from '../../contract/health.js';
import { errorEnvelope, type ApiBuilder } from '../api.js';

/** Probes the health routes call; each resolves true when the dependency answers. */
export interface HealthDeps {
  pingDb(): Promise<boolean>;
  pingRedis(): Promise<boolean>;
  /** The market load running now (null: none; undefined: the queue could not be read in time). */
  marketLoad?(): Promise<MarketLoadHealth | null | undefined>;
  /** The real feed's freshness (absent: no real feed configured). */
  feed?(): FeedHealth | null;
}

const healthBody = z.object({ status: z.enum(['healthy', 'unhealthy']), timestamp: z.string() });
const marketLoad = z.object({
  type: z.enum(['load-files', 'load-sample', 'compute-indicators']),
  phase: z.string(), done: z.number().int(), total: z.number().int(), rows_ok: z.number().int(),
}).nullable().optional().describe('The market-data job running now (its progress, as the jobs API shows it to admins; no ids or file names); null when none, absent when the queue could not be read quickly. Writes are answered while it runs.');
const feedBody = z
  .object({
    source: z.string(), stale: z.boolean(), stale_reason: z.string().nullable(), session: z.string().nullable(),
    last_success_at: z.string().nullable(), leader: z.boolean(),
  })
  .meta({ id: 'FeedHealth' })
  .describe('The real price feed: stale while no sweep succeeded within twice its cadence, its socket is silent, or no daemon feeds during a session');
const daemonBody = healthBody.extend({ feed: feedBody.optional(), market_load: marketLoad });
const dbBody = healthBody.extend({ database: z.enum(['connected', 'disconnected']) }).meta({ id: 'DatabaseHealth' });
const redisBody = healthBody.extend({ redis: z.enum(['connected', 'disconnected']) }).meta({ id: 'RedisHealth' });

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
      ...common, method: 'get', path: '/health', summary: 'Liveness of the daemon, the market load in progress, and the real feed\'s freshness when one is configured', response: daemonBody,
      errorBodies: { 503: { description: 'The daemon is shutting down (error envelope, code SERVICE_UNAVAILABLE)', schema: errorEnvelope } },
    },
    async (_req, res) => {
      const feed = deps.feed?.() ?? null;
      const load = await deps.marketLoad?.();
      // A stale feed does not make the daemon unhealthy (it still serves): it says so, for monitors to alert on.
      res.json({ status: 'healthy', timestamp: new Date().toISOString(), ...(feed ? { feed } : {}), ...(load === undefined ? {} : { market_load: load }) } satisfies DaemonHealth);
    },
  );
  api.route(
    { ...common, method: 'get', path: '/health/db', summary: 'Database connectivity', response: dbBody, errorBodies: unhealthy(dbBody, 'Database') },
    async (_req, res) => {
      const ok = await deps.pingDb();
      res.status(ok ? 200 : 503).json({ status: ok ? 'healthy' : 'unhealthy', database: ok ? 'connected' : 'disconnected', timestamp: new Date().toISOString() } satisfies DatabaseHealth);
    },
  );
  api.route(
    { ...common, method: 'get', path: '/health/redis', summary: 'Redis connectivity (rate limits and revocation checks fail open while it is down)', response: redisBody, errorBodies: unhealthy(redisBody, 'Redis') },
    async (_req, res) => {
      const ok = await deps.pingRedis();
      res.status(ok ? 200 : 503).json({ status: ok ? 'healthy' : 'unhealthy', redis: ok ? 'connected' : 'disconnected', timestamp: new Date().toISOString() } satisfies RedisHealth);
    },
  );
}
