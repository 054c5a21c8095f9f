/**
 * The REST scenario skeleton: one autocannon run with the run's connections, rate,
 * duration, warm-up, timeout and abort signal, reporting progress as it goes.
 */
import { runHttpLoad, type HttpLoadResult, type HttpRequestSpec } from '../http-load.js';
import { readQuota, throttleProblem } from '../quota.js';
import type { ScenarioContext } from '../types.js';

/** The token's tier would throttle the planned run (the bench user must not be throttled). */
export class ThrottledRunError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ThrottledRunError';
  }
}

/** Per-scenario choices. */
export interface RestRunOptions {
  /** Bearer token (null: anonymous). */
  token: string | null;
  trackCache?: boolean;
  /** Connections instead of the run's (e.g. fewer for a costly endpoint). */
  connections?: number;
}

/**
 * Run `requests` under the run's load settings.
 * @throws ThrottledRunError before sending anything when the token's remaining quota is below the planned requests
 */
export async function restRun(ctx: ScenarioContext, requests: HttpRequestSpec[], o: RestRunOptions): Promise<HttpLoadResult> {
  const { options } = ctx;
  const connections = o.connections ?? options.httpConnections;
  if (o.token) {
    const quota = await readQuota(ctx.session.api, o.token, ctx.signal);
    const problem = quota && throttleProblem(quota, { connections, warmup: options.warmup, duration: options.duration, rate: options.rate });
    if (problem) throw new ThrottledRunError(problem);
  }
  ctx.settings({
    mode: options.rate ? 'fixed-rate' : 'closed-loop',
    connections: options.rate ? Math.min(connections, Math.ceil(options.rate)) : connections,
    rate: options.rate ?? null,
    duration_s: options.duration,
    warmup_s: options.warmup,
  });
  let phase = '';
  return runHttpLoad({
    base: ctx.url,
    requests,
    connections,
    durationS: options.duration,
    warmupS: options.warmup,
    rate: options.rate,
    token: o.token,
    timeoutS: options.timeout,
    signal: ctx.signal,
    trackCache: o.trackCache,
    onTick(t) {
      if (t.phase !== phase) ctx.progress({ type: 'phase', phase: (phase = t.phase) });
      ctx.progress({ type: 'tick', elapsed_s: t.elapsed_s, planned_s: t.planned_s, requests_per_s: t.requests_per_s, connections: t.connections, failed: t.failed });
    },
  });
}
