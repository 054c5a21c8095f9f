/** Health endpoints on the wire: GET /health, /health/db, /health/redis (bare bodies, no envelope). */

/** The real feed's freshness in GET /health (feed `kis`). */
export interface FeedHealth {
  source: string;
  stale: boolean;
  stale_reason: string | null;
  /** The trading session now (`pre_market`, `regular`, `after_market`), null when none. */
  session: string | null;
  last_success_at: string | null;
  /** This daemon holds the feed lease. */
  leader: boolean;
}

/** GET /health: 200 healthy while the daemon serves; `degraded` (still 200) with its reasons while a data source is stale. */
export interface DaemonHealth {
  status: 'healthy' | 'degraded' | 'unhealthy';
  timestamp: string;
  /** Present when a real feed is configured. */
  feed?: FeedHealth;
  reasons?: string[];
}

/** GET /health/db: 503 with `disconnected` when the database does not answer. */
export interface DatabaseHealth extends DaemonHealth {
  database: 'connected' | 'disconnected';
}

/** GET /health/redis: 503 with `disconnected` when Redis does not answer. */
export interface RedisHealth extends DaemonHealth {
  redis: 'connected' | 'disconnected';
}
