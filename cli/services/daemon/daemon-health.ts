/** Daemon health: GET /health, /health/db and /health/redis. */
import type { DaemonHealth, DatabaseHealth, RedisHealth } from '../../../daemon/contract/health.js';
import { createApiClient } from '../transport/api-client.js';

/** One probe's outcome. */
export interface HealthCheck {
  name: 'daemon' | 'database' | 'redis';
  path: string;
  healthy: boolean;
  /** What the endpoint said: healthy/unhealthy, connected/disconnected. */
  state: string;
  /** Exactly the JSON the endpoint returned. */
  body: unknown;
}

/** All probes. */
export interface HealthReport {
  url: string;
  healthy: boolean;
  checks: HealthCheck[];
}

// The field each probe reports is the body's own (daemon/contract/health.ts).
const PROBES = [
  { name: 'daemon', path: '/health', field: 'status' satisfies keyof DaemonHealth },
  { name: 'database', path: '/health/db', field: 'database' satisfies keyof DatabaseHealth },
  { name: 'redis', path: '/health/redis', field: 'redis' satisfies keyof RedisHealth },
] as const;

/**
 * Probe the three health endpoints (a 503 is a result, not an error).
 * @throws CliError when the daemon cannot be reached at all
 */
export async function checkHealth(baseUrl: string): Promise<HealthReport> {
  const client = createApiClient({ baseUrl, timeoutMs: 5000 });
  const checks: HealthCheck[] = [];
  for (const probe of PROBES) {
    const res = await client.request<Record<string, unknown>>({ path: probe.path, auth: false, allowError: true });
    const state = typeof res.data?.[probe.field] === 'string' ? (res.data[probe.field] as string) : `HTTP ${res.status}`;
    checks.push({ name: probe.name, path: probe.path, healthy: res.status === 200 && res.data?.status === 'healthy', state, body: res.body });
  }
  return { url: baseUrl, healthy: checks.every((c) => c.healthy), checks };
}
