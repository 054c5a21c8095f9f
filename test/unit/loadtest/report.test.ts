import { describe, expect, it } from 'vitest';
import { formatMeasured, formatReport, formatTarget, runVerdict, scenarioStatus } from '../../../loadtest/report.js';
import { correctness, makeRow, SPEC_TARGETS } from '../../../loadtest/targets.js';
import type { Report, ScenarioSummary } from '../../../loadtest/types.js';

const summary = (scenario: string, status: ScenarioSummary['status'], message?: string): ScenarioSummary => ({
  scenario, status, started_at: '2026-03-09T00:00:00.000Z', duration_s: 1, settings: {}, ...(message ? { message } : {}),
});

describe('scenario and run verdicts', () => {
  const pass = makeRow('a', 'p95', 10, 'ms', SPEC_TARGETS.simpleScreenP95Ms);
  const fail = makeRow('a', 'p95', 300, 'ms', SPEC_TARGETS.simpleScreenP95Ms);
  const info = makeRow('a', 'throughput', 5, 'req/s');
  it('a scenario fails on any failed row, passes on a passed one, else is informational', () => {
    expect(scenarioStatus([pass, fail])).toBe('fail');
    expect(scenarioStatus([pass, info])).toBe('pass');
    expect(scenarioStatus([info])).toBe('info');
    expect(scenarioStatus([pass], new Error('boom'))).toBe('error');
    expect(scenarioStatus([pass], undefined, true)).toBe('aborted');
  });
  it('a run fails when a scenario errored even if every row passed', () => {
    expect(runVerdict([summary('a', 'pass'), summary('b', 'error')], [pass])).toBe(false);
    expect(runVerdict([summary('a', 'pass')], [pass, info])).toBe(true);
    expect(runVerdict([summary('a', 'info')], [info])).toBeNull();
  });
});

describe('formatReport', () => {
  it('renders targets and values with units', () => {
    expect(formatTarget(SPEC_TARGETS.simpleScreenP95Ms, 'ms')).toBe('< 200 ms');
    expect(formatTarget(SPEC_TARGETS.wsConnections, '')).toBe('≥ 10,000');
    expect(formatTarget(correctness('<=', 1), '%')).toBe('≤ 1%');
    expect(formatMeasured(123456.7, 'msg/s')).toBe('123,457 msg/s');
    expect(formatMeasured(3.14159, 'ms')).toBe('3.14 ms');
    expect(formatMeasured(null, 'ms')).toBe('—');
  });

  it('prints an aligned table with PASS/FAIL, numbered notes and scenario errors', () => {
    const report: Report = {
      url: 'http://127.0.0.1:8000', started_at: '2026-03-09T00:00:00.000Z', finished_at: '2026-03-09T00:01:00.000Z', aborted: false, pass: false,
      environment: { node: 'v20', platform: 'linux', cpus: 2, memory_mb: 1024, open_files_limit: 1024 },
      options: {},
      scenarios: [summary('screen-simple', 'fail'), summary('ws-fanout', 'error', 'GET /v1/ws/stats failed')],
      rows: [
        makeRow('screen-simple', 'latency p95', 250.4, 'ms', SPEC_TARGETS.simpleScreenP95Ms),
        makeRow('screen-simple', 'throughput', 812.5, 'req/s'),
        makeRow('ws-fanout', 'connections established', 500, '', SPEC_TARGETS.wsConnections, { notEvaluated: 'small run' }),
      ],
      notes: ['the bench user keeps the default tier'],
    };
    const text = formatReport(report);
    const lines = text.split('\n');
    expect(lines[0]).toBe('Load test of http://127.0.0.1:8000 — 2026-03-09T00:00:00.000Z — FAIL');
    const header = lines[2]!;
    const p95 = lines.find((l) => l.includes('latency p95'))!;
    // Columns line up: each value starts where its header does.
    expect(p95.indexOf('< 200 ms')).toBe(header.indexOf('TARGET'));
    expect(p95.indexOf('250 ms')).toBe(header.indexOf('MEASURED'));
    expect(p95.endsWith('FAIL')).toBe(true);
    expect(lines.find((l) => l.includes('connections established'))).toMatch(/≥ 10,000\s+500\s+\[1\]$/);
    expect(text).toContain('[1] small run');
    expect(text).toContain('ws-fanout: error — GET /v1/ws/stats failed');
    expect(text).toContain('Note: the bench user keeps the default tier');
  });
});
