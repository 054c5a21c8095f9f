import { describe, expect, it } from 'vitest';
import { averageRuns, baselineRows, LABELS, limiterRows, relabel, serverCpuRows } from '../../../../loadtest/bench/compare.js';
import { correctness, makeRow, SPEC_TARGETS } from '../../../../loadtest/targets.js';
import type { Report, ReportRow } from '../../../../loadtest/types.js';

const value = (rows: ReportRow[], metric: string) => rows.find((r) => r.metric === metric)?.measured;

describe('bench comparisons', () => {
  it('reads the platform as a share of the bare servers', () => {
    const rows = [
      makeRow(LABELS.httpBaseline, 'throughput', 4000, 'req/s'),
      makeRow('screen-simple', 'throughput', 500, 'req/s'),
      makeRow('screen-complex', 'throughput', 200, 'req/s'),
      makeRow(LABELS.limiterOn, 'throughput', 1000, 'req/s'),
      makeRow('ws-fanout', 'messages delivered/s', 30_000, 'msg/s'),
      makeRow(LABELS.wsBaseline, 'messages delivered/s', 40_000, 'msg/s'),
      makeRow('ws-fanout', 'latency p99', 45, 'ms'),
      makeRow(LABELS.wsBaseline, 'latency p99', 5, 'ms'),
    ];
    const out = baselineRows(rows);
    expect(value(out, 'screen-simple req/s, % of bare http')).toBe(12.5); // 500 / 4000
    expect(value(out, 'screen-complex req/s, % of bare http')).toBe(5); // 200 / 4000
    expect(value(out, 'auth-get req/s, % of bare http')).toBe(25); // 1000 / 4000
    expect(value(out, 'ws messages/s, % of bare ws')).toBe(75); // 30,000 / 40,000
    expect(value(out, 'ws latency p99, ms over bare ws')).toBe(40); // 45 − 5
    expect(value(out, 'stocks-mixed req/s, % of bare http')).toBeNull(); // not measured
    expect(out.every((r) => r.pass === null)).toBe(true);
  });

  it('prices the rate limiter as on minus off', () => {
    const rows = [
      makeRow(LABELS.limiterOn, 'latency p50', 3.5, 'ms'),
      makeRow(LABELS.limiterOff, 'latency p50', 3, 'ms'),
      makeRow(LABELS.limiterOn, 'latency p99', 12, 'ms'),
      makeRow(LABELS.limiterOff, 'latency p99', 9, 'ms'),
      makeRow(LABELS.limiterOn, 'throughput', 900, 'req/s'),
      makeRow(LABELS.limiterOff, 'throughput', 1000, 'req/s'),
    ];
    const out = limiterRows(rows);
    expect(value(out, 'p50 added')).toBe(0.5);
    expect(value(out, 'p99 added')).toBe(3);
    expect(value(out, 'throughput with limits, % of without')).toBe(90);
    expect(value(out, 'throughput lost')).toBe(10);
    // The rate limiter's targets: under 0.5 ms p50 (0.5 is not under) and under 15 % throughput
    expect(out.find((r) => r.metric === 'p50 added')).toMatchObject({ target: { op: '<', value: 0.5, source: 'issue' }, pass: false });
    expect(out.find((r) => r.metric === 'throughput lost')).toMatchObject({ target: { op: '<', value: 15, source: 'issue' }, pass: true });
  });

  it('prices the limiter on the server side: daemon plus Redis CPU per request, on against off', () => {
    const rows = [
      ...serverCpuRows(LABELS.limiterOn, { daemonUs: 330, redisUs: 30 }),
      ...serverCpuRows(LABELS.limiterOff, { daemonUs: 290, redisUs: 10 }),
    ];
    // (330 + 30) / (290 + 10) = 1.2: 20 % more CPU per request
    expect(value(limiterRows(rows), 'server CPU per request added')).toBeCloseTo(20, 10);
    // Unknown where /proc could not tell (another OS, a remote Redis)
    const partial = [...serverCpuRows(LABELS.limiterOn, { daemonUs: 330, redisUs: null }), ...serverCpuRows(LABELS.limiterOff, { daemonUs: 290, redisUs: null })];
    expect(value(limiterRows(partial), 'server CPU per request added')).toBeNull();
  });

  it('fails the limiter targets when either side of the comparison had too many failed requests', () => {
    const rows = [
      makeRow(LABELS.limiterOn, 'failed requests', 40, '%'),
      makeRow(LABELS.limiterOff, 'failed requests', 0, '%'),
      makeRow(LABELS.limiterOn, 'latency p50', 1, 'ms'),
      makeRow(LABELS.limiterOff, 'latency p50', 1, 'ms'),
      makeRow(LABELS.limiterOn, 'throughput', 1000, 'req/s'),
      makeRow(LABELS.limiterOff, 'throughput', 1000, 'req/s'),
    ];
    const out = limiterRows(rows);
    expect(out.find((r) => r.metric === 'p50 added')?.pass).toBe(false);
    expect(out.find((r) => r.metric === 'throughput lost')?.pass).toBe(false);
  });

  it('averages interleaved runs, keeping the worst failed share and judging it again', () => {
    const run = (p50: number, failed: number) => [
      makeRow('auth-get', 'failed requests', failed, '%', correctness('<=', 1)),
      makeRow('auth-get', 'latency p50', p50, 'ms'),
    ];
    const out = averageRuns([run(4, 0), run(6, 2)], 'x');
    expect(out.map((r) => [r.scenario, r.metric, r.measured, r.pass])).toEqual([
      ['x', 'failed requests', 2, false], // worst of 0 % and 2 %, over the 1 % target
      ['x', 'latency p50', 5, null], // (4 + 6) / 2
    ]);
  });

  it('drops the spec targets from baseline rows, which are not the platform', () => {
    const report = {
      rows: [makeRow('ws-fanout', 'latency p99', 150, 'ms', SPEC_TARGETS.wsLatencyP99Ms), makeRow('other', 'latency p99', 150, 'ms', SPEC_TARGETS.wsLatencyP99Ms)],
      scenarios: [{ scenario: 'ws-fanout', status: 'fail', started_at: '', duration_s: 1, settings: {} }],
    } as unknown as Report;
    const out = relabel(report, 'ws-fanout', LABELS.wsBaseline, true);
    expect(out.rows[0]).toMatchObject({ scenario: LABELS.wsBaseline, target: null, pass: null });
    expect(out.rows[1]).toMatchObject({ scenario: 'other', pass: false });
    expect(out.scenarios[0]).toMatchObject({ scenario: LABELS.wsBaseline, status: 'info' });
  });
});
