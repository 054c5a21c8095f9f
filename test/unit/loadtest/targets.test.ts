import { describe, expect, it } from 'vitest';
import { correctness, evaluate, makeRow, scaleJudgement, SPEC_TARGETS } from '../../../loadtest/targets.js';

describe('evaluate (PASS/FAIL)', () => {
  it('carries the spec targets of "Other limits and targets"', () => {
    expect(SPEC_TARGETS.simpleScreenP95Ms).toMatchObject({ op: '<', value: 200 });
    expect(SPEC_TARGETS.complexScreenP99Ms).toMatchObject({ op: '<', value: 500 });
    expect(SPEC_TARGETS.wsConnections).toMatchObject({ op: '>=', value: 10_000 });
    expect(SPEC_TARGETS.wsLatencyP99Ms).toMatchObject({ op: '<', value: 100 });
    expect(SPEC_TARGETS.wsMessagesPerSecond).toMatchObject({ op: '>=', value: 100_000 });
    expect(SPEC_TARGETS.wsKbPerConnection).toMatchObject({ op: '<', value: 100 });
  });

  it('passes strictly below an upper bound and fails at it', () => {
    const p95 = SPEC_TARGETS.simpleScreenP95Ms;
    expect(evaluate(199.9, p95)).toBe(true);
    expect(evaluate(200, p95)).toBe(false); // "under 200 ms": 200 is not under
    expect(evaluate(350, p95)).toBe(false);
  });

  it('passes at a lower bound (≥) and on equality targets only when equal', () => {
    expect(evaluate(10_000, SPEC_TARGETS.wsConnections)).toBe(true);
    expect(evaluate(9_999, SPEC_TARGETS.wsConnections)).toBe(false);
    expect(evaluate(0, correctness('==', 0))).toBe(true);
    expect(evaluate(1, correctness('==', 0))).toBe(false);
    expect(evaluate(1, correctness('<=', 1))).toBe(true);
    expect(evaluate(1.01, correctness('<=', 1))).toBe(false);
  });

  it('fails a fast figure from an invalid run, and a missing figure', () => {
    // A 10 ms p95 from a run with too many errors is not a pass.
    expect(evaluate(10, SPEC_TARGETS.simpleScreenP95Ms, { valid: false })).toBe(false);
    expect(evaluate(null, SPEC_TARGETS.simpleScreenP95Ms)).toBe(false);
  });

  it('judges nothing without a target or when the run could not test it', () => {
    expect(evaluate(123, null)).toBeNull();
    expect(evaluate(500, SPEC_TARGETS.wsConnections, { notEvaluated: 'small run' })).toBeNull();
  });

  it('makes rows with the verdict and the reasons', () => {
    const row = makeRow('screen-simple', 'latency p95', 12, 'ms', SPEC_TARGETS.simpleScreenP95Ms, { valid: false });
    expect(row).toEqual({
      scenario: 'screen-simple', metric: 'latency p95', target: SPEC_TARGETS.simpleScreenP95Ms, measured: 12, unit: 'ms', pass: false,
      note: expect.stringMatching(/run FAILED/),
    });
    expect(makeRow('x', 'throughput', 5, 'req/s')).toEqual({ scenario: 'x', metric: 'throughput', target: null, measured: 5, unit: 'req/s', pass: null });
  });
});

describe('scaleJudgement (targets a small run cannot reach)', () => {
  const t = SPEC_TARGETS.wsMessagesPerSecond;
  it('passes whatever was offered once the target is reached', () => {
    expect(evaluate(120_000, t, scaleJudgement(120_000, t, 50_000, 'messages/s'))).toBe(true);
  });
  it('does not judge a shortfall when the run offered less than the target', () => {
    const j = scaleJudgement(40_000, t, 45_000, 'messages/s');
    expect(evaluate(40_000, t, j)).toBeNull();
    expect(j.notEvaluated).toMatch(/offered 45,000 messages\/s, below the target/);
  });
  it('fails a shortfall when enough was offered', () => {
    expect(evaluate(60_000, t, scaleJudgement(60_000, t, 150_000, 'messages/s'))).toBe(false);
  });
  it('does not judge when the offered load is unknown', () => {
    expect(evaluate(60_000, t, scaleJudgement(60_000, t, null, 'messages/s'))).toBeNull();
  });
});
