/**
 * Health endpoints on the wire: GET /health, /health/db, /health/redis (bare bodies, no
 * envelope). Each body is one zod schema: the routes document with it, the CLI reads its type.
 */
import { z } from 'zod';

/** A market-data job running now, as its progress shows it (no file names, no ids). */
export const MarketLoadHealth = z.object({
  type: z.enum(['load-files', 'load-sample', 'compute-indicators']),
  phase: z.string(), done: z.number().int(), total: z.number().int(), rows_ok: z.number().int(),
});
export type MarketLoadHealth = z.output<typeof MarketLoadHealth>;

/** The real feed's freshness in GET /health (feed `kis`); `session` is the trading session now (`pre_market`, `regular`, `after_market`), null when none; `leader`: this daemon holds the feed lease. */
export const FeedHealth = z
  .object({
    source: z.string(), stale: z.boolean(), stale_reason: z.string().nullable(), session: z.string().nullable(),
    last_success_at: z.string().nullable(), leader: z.boolean(),
  })
  .meta({ id: 'FeedHealth' })
  .describe('The real price feed: stale while no sweep succeeded within twice its cadence, its socket is silent, or no daemon feeds during a session');
export type FeedHealth = z.output<typeof FeedHealth>;

/**
 * GET /health: 200 healthy while the daemon serves; `degraded` (still 200) with its reasons while
 * a data source is stale. `market_load`: the load running now (null when none, absent when the
 * queue cannot be read quickly); `feed`: present when a real feed is configured.
 */
export const DaemonHealth = z.object({
  status: z.enum(['healthy', 'degraded']).describe('degraded: serving, but a data source\'s latest data is older than the trading calendar says it should be, or the real feed is stale'),
  timestamp: z.string(),
  reasons: z.array(z.string()).optional().describe('why it is degraded'),
  feed: FeedHealth.optional(),
  market_load: MarketLoadHealth.nullable().optional().describe('The market-data job running now (its progress, as the jobs API shows it to admins; no ids or file names); null when none, absent when the queue could not be read quickly. Writes are answered while it runs.'),
});
export type DaemonHealth = z.output<typeof DaemonHealth>;

/** What GET /health/db and /health/redis share: `unhealthy` (with a 503) while the dependency does not answer. */
const dependencyHealth = z.object({ status: z.enum(['healthy', 'unhealthy']), timestamp: z.string() });

/** GET /health/db: 503 with `disconnected` when the database does not answer. */
export const DatabaseHealth = dependencyHealth.extend({ database: z.enum(['connected', 'disconnected']) }).meta({ id: 'DatabaseHealth' });
export type DatabaseHealth = z.output<typeof DatabaseHealth>;

/** GET /health/redis: 503 with `disconnected` when Redis does not answer. */
export const RedisHealth = dependencyHealth.extend({ redis: z.enum(['connected', 'disconnected']) }).meta({ id: 'RedisHealth' });
export type RedisHealth = z.output<typeof RedisHealth>;
