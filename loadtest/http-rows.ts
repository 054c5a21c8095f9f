/**
 * Report rows of a REST run: requests, throughput, latency percentiles and the failed
 * share. A run with more than 1 % failed requests is FAILED: its latency target
 * fails whatever the figure, since fast errors prove nothing.
 */
import type { HttpLoadResult } from './http-load.js';
import { correctness, makeRow, MAX_FAILED_PERCENT } from './targets.js';
import type { ReportRow, Target } from './types.js';

/** Which latency percentile carries a target. */
export interface LatencyTarget {
  percentile: 'p50' | 'p95' | 'p99';
  target: Target;
}

/** Hints for failed answers by status. */
function failureNote(r: HttpLoadResult): string | undefined {
  const bad = Object.entries(r.status_counts).filter(([code]) => !code.startsWith('2'));
  const parts = bad.map(([code, n]) => `${code} × ${n.toLocaleString('en-US')}`);
  if (r.timeouts > 0) parts.push(`timeouts × ${r.timeouts}`);
  if (r.errors > 0) parts.push(`socket errors × ${r.errors}`);
  if (parts.length === 0) return undefined;
  const hints: string[] = [];
  if (r.status_counts['429']) hints.push('429: a rate limit throttled the run (give an admin so the bench user is lifted, and raise rate_limit.endpoints on the daemon)');
  if (r.status_counts['401']) hints.push('401: the token was refused');
  return [parts.join(', '), ...hints].join('; ');
}

/** Mode label appended to metric names of fixed-rate runs. */
export function modeLabel(r: Pick<HttpLoadResult, 'rate'>): string {
  return r.rate ? ` @ ${r.rate.toLocaleString('en-US')} req/s` : '';
}

/** Rows of one REST run (`latency` puts the spec target on one percentile). */
export function httpRows(scenario: string, r: HttpLoadResult, latency?: LatencyTarget, extra: { cacheExpected?: boolean } = {}): ReportRow[] {
  const label = modeLabel(r);
  const valid = r.failed_percent !== null && r.failed_percent <= MAX_FAILED_PERCENT;
  const rows: ReportRow[] = [
    makeRow(scenario, `failed requests${label}`, r.failed_percent, '%', correctness('<=', MAX_FAILED_PERCENT), { note: failureNote(r) }),
    makeRow(scenario, `throughput${label}`, r.requests_per_s, 'req/s'),
  ];
  for (const p of ['p50', 'p95', 'p99'] as const) {
    const target = latency?.percentile === p ? latency.target : null;
    rows.push(makeRow(scenario, `latency ${p}${label}`, r.latency_ms[p], 'ms', target, { valid }));
  }
  rows.push(makeRow(scenario, `latency max${label}`, r.latency_ms.max, 'ms'));
  if (r.cache) {
    const seen = r.cache.hit + r.cache.miss;
    const share = seen === 0 ? null : (r.cache.hit / seen) * 100;
    const note =
      extra.cacheExpected === false && share !== null && share > MAX_FAILED_PERCENT
        ? 'the result cache answered although requests were varied: latency is not the engine’s'
        : undefined;
    rows.push(makeRow(scenario, `cache hits${label}`, share, '%', null, { note }));
  }
  return rows;
}

/** Per-kind latency rows (p50, p99) of a mixed run. */
export function kindRows(scenario: string, r: HttpLoadResult): ReportRow[] {
  const label = modeLabel(r);
  return Object.entries(r.by_kind).flatMap(([kind, s]) => [
    makeRow(scenario, `${kind} p50${label}`, s.p50, 'ms'),
    makeRow(scenario, `${kind} p99${label}`, s.p99, 'ms'),
  ]);
}
