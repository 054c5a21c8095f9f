/**
 * One REST load run through autocannon's programmatic API: a warm-up phase, then the
 * measured phase, closed-loop (`connections` in flight) or fixed-rate (autocannon
 * `overallRate`), with requests built per call (paths and bodies may vary), a bearer token,
 * and a clean stop on abort. Latency percentiles come from our own histogram (autocannon
 * has no p95), fed by autocannon's per-response timings of 2xx answers, with
 * coordinated-omission correction in fixed-rate mode.
 */
import autocannon from 'autocannon';
import { Histogram, type HistogramSummary } from './histogram.js';
import { LIMITS } from './options.js';

/** One request shape of a run; the run cycles through them on every connection. */
export interface HttpRequestSpec {
  /** Label for per-kind latency (e.g. `detail`). */
  kind?: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the base URL, fixed or built per request. */
  path: string | (() => string);
  /** JSON body, built per request. */
  body?: () => unknown;
}

/** Options of one run. */
export interface HttpLoadOptions {
  base: string;
  requests: HttpRequestSpec[];
  connections: number;
  durationS: number;
  warmupS: number;
  /** Requests per second over all connections; absent: closed loop. */
  rate?: number;
  token?: string | null;
  timeoutS: number;
  signal: AbortSignal;
  /** Count `X-Cache: HIT|MISS` answers. */
  trackCache?: boolean;
  /** About once a second: answers of the last second, and failures (non-2xx, errors, timeouts) so far in the phase. */
  onTick?(tick: { phase: 'warmup' | 'measure'; elapsed_s: number; planned_s: number; requests_per_s: number; failed: number; connections: number }): void;
}

/** Figures of the measured phase. */
export interface HttpLoadResult {
  mode: 'closed-loop' | 'fixed-rate';
  connections: number;
  rate: number | null;
  duration_s: number;
  /** Answers of any status. */
  responses: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** (non-2xx + timeouts + socket errors) / attempts × 100; null when nothing was attempted. */
  failed_percent: number | null;
  requests_per_s: number;
  /** Latency of 2xx answers in ms. */
  latency_ms: HistogramSummary;
  by_kind: Record<string, HistogramSummary>;
  status_counts: Record<string, number>;
  cache: { hit: number; miss: number } | null;
  aborted: boolean;
}

interface PhaseOutcome {
  result: autocannon.Result;
  latency: Histogram;
  byKind: Map<string, Histogram>;
  cache: { hit: number; miss: number };
  aborted: boolean;
}

interface Timing {
  kind?: string;
  t0?: number;
}

function buildRequests(o: HttpLoadOptions, prefix: string, byKind: Map<string, Histogram>, cache: { hit: number; miss: number }): autocannon.Request[] {
  return o.requests.map((spec) => ({
    method: spec.method,
    path: prefix + (typeof spec.path === 'string' ? spec.path : '/'),
    setupRequest(req: autocannon.Request, context: object) {
      const t = context as Timing;
      t.kind = spec.kind;
      t.t0 = performance.now();
      const next: autocannon.Request = { ...req, path: prefix + (typeof spec.path === 'string' ? spec.path : spec.path()) };
      if (spec.body) next.body = JSON.stringify(spec.body());
      return next;
    },
    onResponse(status: number, _body: string, context: object, headers?: Record<string, unknown>) {
      const t = context as Timing;
      if (t.kind !== undefined && t.t0 !== undefined && status >= 200 && status < 300) {
        let h = byKind.get(t.kind);
        if (!h) byKind.set(t.kind, (h = new Histogram()));
        h.record((performance.now() - t.t0) * 1000);
      }
      if (o.trackCache && headers) {
        const x = String(headers['x-cache'] ?? headers['X-Cache'] ?? '').toUpperCase();
        if (x === 'HIT') cache.hit++;
        else if (x === 'MISS') cache.miss++;
      }
    },
  }));
}

function runPhase(o: HttpLoadOptions, phase: 'warmup' | 'measure', durationS: number): Promise<PhaseOutcome> {
  const url = new URL(o.base);
  const prefix = url.pathname.replace(/\/+$/, '');
  const latency = new Histogram();
  const byKind = new Map<string, Histogram>();
  const cache = { hit: 0, miss: 0 };
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  // Fixed rate: each response is expected every connections / rate seconds on its connection.
  const intervalUs = o.rate ? (Math.min(o.connections, o.rate) / o.rate) * 1e6 : 0;
  return new Promise((resolve, reject) => {
    let aborted = false;
    let failed = 0;
    const started = performance.now();
    const instance = autocannon(
      {
        url: url.origin,
        connections: o.connections,
        duration: durationS,
        overallRate: o.rate,
        timeout: o.timeoutS,
        headers,
        requests: buildRequests(o, prefix, byKind, cache),
        maxOverallRequests: LIMITS.maxRequestsPerRun,
      },
      (err, result) => {
        o.signal.removeEventListener('abort', onAbort);
        if (err) reject(err instanceof Error ? err : new Error(String(err)));
        else resolve({ result, latency, byKind, cache, aborted });
      },
    );
    const onAbort = () => {
      aborted = true;
      instance.stop();
    };
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) {
        if (intervalUs > 0) latency.recordCorrected(ms * 1000, intervalUs);
        else latency.record(ms * 1000);
      } else failed++;
    });
    // Socket errors and timeouts (autocannon counts both as request errors).
    instance.on('reqError', () => void failed++);
    // The typings declare 'tick' without its argument; autocannon passes { counter, bytes }.
    (instance as NodeJS.EventEmitter).on('tick', (t: { counter: number }) =>
      o.onTick?.({
        phase, elapsed_s: (performance.now() - started) / 1000, planned_s: durationS, requests_per_s: t.counter, failed,
        connections: o.rate ? Math.min(o.connections, Math.ceil(o.rate)) : o.connections,
      }),
    );
  });
}

function summarise(o: HttpLoadOptions, out: PhaseOutcome): HttpLoadResult {
  const r = out.result;
  const responses = r['1xx'] + r['2xx'] + r['3xx'] + r['4xx'] + r['5xx'];
  const failed = r.non2xx + r.errors + r.timeouts;
  const attempts = responses + r.errors + r.timeouts;
  const statusCounts: Record<string, number> = {};
  for (const [code, v] of Object.entries((r as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {})) {
    statusCounts[code] = v.count;
  }
  const duration = r.duration > 0 ? r.duration : o.durationS;
  return {
    mode: o.rate ? 'fixed-rate' : 'closed-loop',
    connections: o.rate ? Math.min(o.connections, Math.ceil(o.rate)) : o.connections,
    rate: o.rate ?? null,
    duration_s: duration,
    responses,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    failed_percent: attempts === 0 ? null : (failed / attempts) * 100,
    requests_per_s: responses / duration,
    latency_ms: out.latency.summary(1000),
    by_kind: Object.fromEntries([...out.byKind].map(([k, h]) => [k, h.summary(1000)])),
    status_counts: statusCounts,
    cache: o.trackCache ? out.cache : null,
    aborted: out.aborted,
  };
}

/**
 * Warm up (if `warmupS` > 0), then measure.
 * @throws Error when autocannon rejects the options
 */
export async function runHttpLoad(o: HttpLoadOptions): Promise<HttpLoadResult> {
  if (o.warmupS > 0 && !o.signal.aborted) await runPhase(o, 'warmup', o.warmupS);
  return summarise(o, await runPhase(o, 'measure', o.durationS));
}
