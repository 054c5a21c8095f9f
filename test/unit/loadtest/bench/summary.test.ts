import { describe, expect, it } from 'vitest';
import { LABELS } from '../../../../loadtest/bench/compare.js';
import { benchSummary, CACHE_ON } from '../../../../loadtest/bench/summary.js';
import { makeRow, SPEC_TARGETS } from '../../../../loadtest/targets.js';
import type { ReportRow } from '../../../../loadtest/types.js';

const http = (scenario: string, p50: number, throughput: number): ReportRow[] => [
  makeRow(scenario, 'failed requests', 0, '%'),
  makeRow(scenario, 'throughput', throughput, 'req/s'),
  makeRow(scenario, 'latency p50', p50, 'ms'),
  makeRow(scenario, 'latency p95', p50 * 2, 'ms', scenario.startsWith('screen-simple') ? SPEC_TARGETS.simpleScreenP95Ms : null),
  makeRow(scenario, 'latency p99', p50 * 3, 'ms'),
];

const ROWS: ReportRow[] = [
  ...http('screen-simple', 4, 900),
  ...http(CACHE_ON.simple, 1, 3000),
  ...http('screen-complex', 6, 600),
  ...http(CACHE_ON.complex, 1.2, 2800),
  makeRow('engine', 'simple query mean', 150, 'µs'), makeRow('engine', 'simple query p50', 140, 'µs'), makeRow('engine', 'simple query p99', 300, 'µs'),
  ...http(LABELS.limiterOn, 1.3, 2000),
  ...http(LABELS.limiterOff, 1.1, 2200),
  makeRow('rate limiter cost', 'p50 added', 0.2, 'ms'), makeRow('rate limiter cost', 'p99 added', 0.6, 'ms'), makeRow('rate limiter cost', 'throughput lost', 9.1, '%'),
  makeRow(LABELS.limiterOn, 'daemon CPU per request', 330, 'µs'), makeRow(LABELS.limiterOff, 'daemon CPU per request', 290, 'µs'),
  makeRow('rate limiter cost', 'server CPU per request added', 12.5, '%'),
  makeRow('alert evaluation (in process)', 'active alerts', 10_000, ''),
  makeRow('alert evaluation (in process)', 'ticks/s with alerts', 250_000, 'tick/s'),
  makeRow('alert evaluation (POST /admin/ticks)', 'added per tick p50', 3.5, 'µs'),
  makeRow('market load (KRX)', 'rows skipped', 1310, ''),
  makeRow('market load (KRX)', 'halt records', 42, ''),
];

describe('the bench summary', () => {
  const text = benchSummary(ROWS, { total_s: 432, steps: [{ step: 'market load', seconds: 61 }, { step: 'REST scenarios', seconds: 150 }] });
  const line = (start: string) => text.split('\n').find((l) => l.trimStart().startsWith(start)) ?? '';

  it('puts screening with the cache off and on side by side, with the spec verdicts', () => {
    expect(line('screen-simple, cache off')).toMatch(/4 ms\s+8 ms ✓\s+12 ms\s+900 req\/s\s+0%$/);
    expect(line('screen-simple, cache on')).toMatch(/1 ms\s+2 ms ✓\s+3 ms\s+3,000 req\/s/);
    expect(line('screen-complex, cache on')).toContain('2,800 req/s');
    expect(line('engine, simple')).toMatch(/150 µs\s+140 µs\s+300 µs/);
    expect(line('engine, complex')).toMatch(/—\s+—\s+—/);
  });

  it('shows the limiter on and off and its cost', () => {
    expect(line('limits on')).toMatch(/2,000 req\/s\s+1\.30 ms\s+3\.90 ms/);
    expect(line('limits off')).toMatch(/2,200 req\/s\s+1\.10 ms/);
    expect(line('limits on')).toMatch(/330 µs\s+—$/); // daemon CPU per request; Redis's unknown
    expect(line('limits off')).toMatch(/290 µs\s+—$/);
    expect(line('cost').trim()).toBe('cost   p50 +0.20 ms, p99 +0.60 ms, throughput −9.10%, server CPU per request +12.5%');
  });

  it('shows the alert figures, the KRX counts and the wall time with its steps', () => {
    expect(text).toContain('Alert evaluation, 10,000 active alerts');
    expect(line('in process: ticks/s')).toContain('250,000 tick/s');
    expect(line('POST /admin/ticks: request p50')).toContain('3.50 µs');
    expect(line('KRX folder')).toMatch(/1,310\s+42\s+—$/);
    expect(text.trimEnd().split('\n').at(-1)).toBe('Wall time 7 min 12 s (target < 10 min on 2 cores): market load 1 min 1 s · REST scenarios 2 min 30 s');
  });
});
