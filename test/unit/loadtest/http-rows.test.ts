import { describe, expect, it } from 'vitest';
import type { HttpLoadResult } from '../../../loadtest/http-load.js';
import { httpRows } from '../../../loadtest/http-rows.js';
import { SPEC_TARGETS } from '../../../loadtest/targets.js';

function result(over: Partial<HttpLoadResult>): HttpLoadResult {
  return {
    mode: 'closed-loop', connections: 10, rate: null, duration_s: 10, responses: 1000, ok: 1000, non2xx: 0, errors: 0, timeouts: 0,
    failed_percent: 0, requests_per_s: 100, latency_ms: { count: 1000, min: 1, mean: 10, p50: 9, p95: 20, p99: 40, max: 80 },
    by_kind: {}, status_counts: { 200: 1000 }, cache: null, aborted: false, ...over,
  };
}
const find = (rows: ReturnType<typeof httpRows>, metric: string) => rows.find((r) => r.metric === metric)!;

describe('httpRows', () => {
  it('passes a clean fast run on its latency target', () => {
    const rows = httpRows('screen-simple', result({}), { percentile: 'p95', target: SPEC_TARGETS.simpleScreenP95Ms });
    expect(find(rows, 'latency p95')).toMatchObject({ measured: 20, pass: true });
    expect(find(rows, 'failed requests')).toMatchObject({ measured: 0, pass: true, target: { op: '<=', value: 1 } });
    expect(find(rows, 'latency p99').pass).toBeNull(); // no target on p99 for the simple screen
  });

  it('FAILS a fast run with more than 1 % failed requests, naming the statuses', () => {
    // 980 × 200 and 20 × 429: 20 / 1000 = 2 % failed
    const r = result({ ok: 980, non2xx: 20, failed_percent: 2, status_counts: { 200: 980, 429: 20 } });
    const rows = httpRows('screen-simple', r, { percentile: 'p95', target: SPEC_TARGETS.simpleScreenP95Ms });
    expect(find(rows, 'failed requests')).toMatchObject({ measured: 2, pass: false });
    expect(find(rows, 'failed requests').note).toMatch(/429 × 20.*rate limit/);
    expect(find(rows, 'latency p95')).toMatchObject({ measured: 20, pass: false });
  });

  it('accepts exactly 1 % failed', () => {
    const rows = httpRows('s', result({ failed_percent: 1 }), { percentile: 'p95', target: SPEC_TARGETS.simpleScreenP95Ms });
    expect(find(rows, 'latency p95').pass).toBe(true);
  });

  it('fails a run that completed nothing', () => {
    const empty = { count: 0, min: null, mean: null, p50: null, p95: null, p99: null, max: null };
    const rows = httpRows('s', result({ responses: 0, ok: 0, failed_percent: null, latency_ms: empty }), { percentile: 'p99', target: SPEC_TARGETS.complexScreenP99Ms });
    expect(find(rows, 'failed requests').pass).toBe(false);
    expect(find(rows, 'latency p99').pass).toBe(false);
  });

  it('labels fixed-rate runs and flags cache hits when the cache should be bypassed', () => {
    const rows = httpRows('s', result({ rate: 50, cache: { hit: 30, miss: 70 } }), undefined, { cacheExpected: false });
    // 30 / (30 + 70) = 30 %
    expect(find(rows, 'cache hits @ 50 req/s')).toMatchObject({ measured: 30, note: expect.stringMatching(/cache answered/) });
    expect(rows.map((r) => r.metric)).toContain('latency p95 @ 50 req/s');
  });
});
