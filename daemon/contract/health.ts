/** Health endpoints on the wire: GET /health, /health/db, /health/redis (bare bodies, no envelope). */

/** A market-data job running now, as its progress shows it (no file names, no ids). */
export interface MarketLoadHealth {
  type: 'load-files' | 'load-sample' | 'compute-indicators';
  phase: string;
  done: number;
  total: number;
  rows_ok: number;
}

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
  /** On GET /health: the market load running now (null when none, absent when the queue cannot be read quickly). */
  market_load?: MarketLoadHealth | null;
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
