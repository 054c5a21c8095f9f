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
  /** Why the daemon serves degraded (a data source's data is stale), or none. */
  degraded?(): Promise<string[]>;
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
const daemonBody = z.object({
  status: z.enum(['healthy', 'degraded']).describe('degraded: serving, but a data source\'s latest data is older than the trading calendar says it should be, or the real feed is stale'),
  timestamp: z.string(),
  reasons: z.array(z.string()).optional().describe('why it is degraded'),
  feed: feedBody.optional(),
  market_load: marketLoad,
});
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
      ...common, method: 'get', path: '/health', summary: 'Liveness of the daemon (degraded while a data source is stale), the market load in progress, and the real feed\'s freshness when one is configured', response: daemonBody,
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
