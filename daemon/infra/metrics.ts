/**
 * Prometheus metrics (prom-client), one registry per daemon so several can run in a process.
 * The default Node metrics carry the `stockscreen_` prefix (event-loop lag is
 * `stockscreen_nodejs_eventloop_lag_seconds` and its percentiles); the WebSocket gateway
 * adds its own (ws/metrics.ts), the job queue its counts (registerJobCounts).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The daemon's metric instruments. */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  rateLimitDecisions: Counter<'decision' | 'limit'>;
}

/** Create the metric registry and instruments. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'stockscreen_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'stockscreen_http_requests_total',
      help: 'HTTP requests by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'stockscreen_http_request_duration_seconds',
      help: 'HTTP request latency by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    rateLimitDecisions: new Counter({
      name: 'stockscreen_rate_limit_decisions_total',
      help: 'Rate-limit decisions (allowed, rejected, failed_open)',
      labelNames: ['decision', 'limit'],
      registers: [registry],
    }),
  };
}

/** BullMQ job states reported by `stockscreen_jobs` and `stockscreen_backtest_jobs`. */
export const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed', 'paused'] as const;

/** Which queue a set of job-count gauges reports. */
export interface JobCountsGauge {
  /** Gauge name; `<name>_up` reports whether the counts could be read. */
  name: string;
  /** The queue, for the help text. */
  queue: string;
}

/** The market-data queue's gauges. */
export const MARKET_JOB_COUNTS: JobCountsGauge = { name: 'stockscreen_jobs', queue: 'market-data' };

/**
 * Register `<name>{state}` (default `stockscreen_jobs`): a job queue's counts, read when scraped
 * (one Redis round trip). When they cannot be read within `timeoutMs` (Redis down) the scrape
 * still succeeds: the gauge is left without samples and `<name>_up` is 0.
 */
export function registerJobCounts(registry: Registry, jobCounts: () => Promise<Record<string, number>>, timeoutMs = 500, gauge: JobCountsGauge = MARKET_JOB_COUNTS): void {
  // One read per scrape, shared by both gauges (collected in registration order).
  let read: Promise<Record<string, number> | null> = Promise.resolve(null);
  const fetchCounts = async (): Promise<Record<string, number> | null> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        jobCounts(),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('job counts timed out')), timeoutMs))),
      ]);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  };
  new Gauge({
    name: gauge.name,
    help: `Jobs in the ${gauge.queue} queue by state`,
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      read = fetchCounts();
      const counts = await read;
      this.reset();
      if (counts) for (const state of JOB_STATES) this.set({ state }, counts[state] ?? 0);
    },
  });
  new Gauge({
    name: `${gauge.name}_up`,
    help: `1 when the ${gauge.queue} queue's job counts could be read at the last scrape, else 0`,
    registers: [registry],
    async collect() {
      this.set((await read) ? 1 : 0);
    },
  });
}

/**
 * `stockscreen_memory_budget_bytes{holder}`: what each cache of the screening memory budget holds
 * (`reserved`: series being built; `limit`: the budget), read at each scrape.
 */
export function registerMemoryBudget(registry: Registry, stats: () => { limit: number; reserved: number; holders: Record<string, number> }): void {
  new Gauge({
    name: 'stockscreen_memory_budget_bytes',
    help: 'Bytes held by each cache of the screening memory budget, the reserved bytes of builds in flight, and the limit',
    labelNames: ['holder'],
    registers: [registry],
    collect() {
      const s = stats();
      this.reset();
      for (const [holder, bytes] of Object.entries(s.holders)) this.set({ holder }, bytes);
      this.set({ holder: 'reserved' }, s.reserved);
      this.set({ holder: 'limit' }, s.limit);
    },
  });
}
