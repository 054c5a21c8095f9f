/** Daemon health: GET /health, /health/db and /health/redis. */
import type { DaemonHealth, DatabaseHealth, MarketLoadHealth, RedisHealth } from '../../../daemon/contract/health.js';
import { groupThousands } from '../output/number-format.js';
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
  /** The market load running (or queued) now, as /health reports it; null when none or not reported. */
  marketLoad: MarketLoadHealth | null;
}

const WHAT: Record<MarketLoadHealth['type'], string> = { 'load-sample': 'the sample market', 'load-files': 'market files', 'compute-indicators': 'indicators' };

/**
 * One line about a load in progress, e.g. `loading the sample market: 1,234,567 rows so far
 * (writes are answered meanwhile)`; null when there is none.
 */
export function marketLoadText(load: MarketLoadHealth | null): string | null {
  if (!load) return null;
  const what = WHAT[load.type] ?? load.type;
  const step = load.phase === 'queued' ? `${load.type === 'compute-indicators' ? 'computing' : 'loading'} ${what}: queued`
    : load.phase === 'indicators' ? `computing indicators${load.total > 0 ? `: ${groupThousands(load.done)}/${groupThousands(load.total)} stocks` : ''}`
      : load.phase === 'load' ? `loading ${what}: ${groupThousands(load.rows_ok)} rows so far${load.type === 'load-files' && load.total > 0 ? ` (file ${Math.min(load.done + 1, load.total)} of ${load.total})` : ''}`
        : `loading ${what}: ${load.phase}`;
  return `${step} (the market shown is the previous one until it completes; other requests are answered meanwhile)`;
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
  const load = (checks[0]?.body as DaemonHealth | undefined)?.market_load;
  return { url: baseUrl, healthy: checks.every((c) => c.healthy), checks, marketLoad: load ?? null };
}

/** The market load /health reports at `baseUrl` (null when none, or when it cannot be read in 2 s). */
export async function marketLoadAt(baseUrl: string): Promise<MarketLoadHealth | null> {
  try {
    const res = await createApiClient({ baseUrl, timeoutMs: 2000 }).request<DaemonHealth>({ path: '/health', auth: false, allowError: true });
    return res.data?.market_load ?? null;
  } catch {
    return null;
  }
}
