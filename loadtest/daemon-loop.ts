/**
 * The daemon's own event-loop delay while a scenario runs, read from its Prometheus metrics
 * (`GET /metrics` with an admin token): prom-client's `nodejs_eventloop_lag_p99_seconds` and
 * `…_max_seconds` cover the time since the previous scrape, so scraping every `everyMs` and
 * keeping the largest gives the worst delay of the window. It tells a daemon whose loop was
 * late (work in the daemon, or a machine that starved it) from waits elsewhere (the kernel's
 * accept queue, the generator).
 */
import type { ApiClient } from './api.js';

/** Worst event-loop delays seen (ms); null when never read. */
export interface LoopDelay {
  p99Ms: number | null;
  maxMs: number | null;
}

/** Read `name`'s value (in seconds) from Prometheus text; null when absent. */
export function metricSeconds(text: string, name: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  const value = line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
  return Number.isFinite(value) ? value : null;
}

/** Scrape the daemon's loop delay until stop(); without an admin token nothing is read. */
export function sampleDaemonLoopDelay(api: ApiClient, adminToken: string | null, prefix = 'stockscreen_', everyMs = 500): { stop(): Promise<LoopDelay> } {
  const out: LoopDelay = { p99Ms: null, maxMs: null };
  let stopped = adminToken === null;
  const worst = (a: number | null, seconds: number | null) => (seconds === null ? a : Math.max(a ?? 0, seconds * 1000));
  const loop = (async () => {
    while (!stopped) {
      const res = await api.call<string>('/metrics', { token: adminToken!, timeoutMs: 10_000 }).catch(() => null);
      if (res && res.status === 200 && typeof res.body === 'string') {
        out.p99Ms = worst(out.p99Ms, metricSeconds(res.body, `${prefix}nodejs_eventloop_lag_p99_seconds`));
        out.maxMs = worst(out.maxMs, metricSeconds(res.body, `${prefix}nodejs_eventloop_lag_max_seconds`));
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs).unref());
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return out;
    },
  };
}
