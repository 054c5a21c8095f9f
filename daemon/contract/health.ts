/** Health endpoints on the wire: GET /health, /health/db, /health/redis (bare bodies, no envelope). */

/** GET /health: 200 healthy while the daemon serves; `degraded` (still 200) with its reasons while a data source is stale. */
export interface DaemonHealth {
  status: 'healthy' | 'degraded' | 'unhealthy';
  timestamp: string;
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
