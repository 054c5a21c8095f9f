/** Health endpoints on the wire: GET /health, /health/db, /health/redis (bare bodies, no envelope). */

/** GET /health: 200 healthy while the daemon serves. */
export interface DaemonHealth {
  status: 'healthy' | 'unhealthy';
  timestamp: string;
}

/** GET /health/db: 503 with `disconnected` when the database does not answer. */
export interface DatabaseHealth extends DaemonHealth {
  database: 'connected' | 'disconnected';
}

/** GET /health/redis: 503 with `disconnected` when Redis does not answer. */
export interface RedisHealth extends DaemonHealth {
  redis: 'connected' | 'disconnected';
}
