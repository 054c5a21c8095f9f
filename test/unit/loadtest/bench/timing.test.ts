import { describe, expect, it } from 'vitest';
import { createStepClock, formatDuration, timingRows } from '../../../../loadtest/bench/timing.js';

describe('bench wall time', () => {
  it('times each step, also one that throws, and the whole run', async () => {
    // Given a clock reading 0, 1000, 31000 ms… as the steps run
    const readings = [0, 1000, 31_000, 31_000, 32_500, 40_000];
    const clock = createStepClock(() => readings.shift()!);
    await clock.step('market load', async () => 'loaded');
    await expect(clock.step('engine timing', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    // Then each step's seconds and the total since the clock was made are kept
    expect(clock.timing()).toEqual({ total_s: 40, steps: [{ step: 'market load', seconds: 30 }, { step: 'engine timing', seconds: 1.5 }] });
  });

  it('judges the total against 10 minutes on the full plan only', () => {
    const full = timingRows({ total_s: 540, steps: [{ step: 'REST scenarios', seconds: 120 }] }, 'full', 2);
    expect(full.map((r) => [r.metric, r.measured, r.pass])).toEqual([['REST scenarios', 120, null], ['total', 540, true]]);
    expect(full[1]!.target).toMatchObject({ op: '<', value: 600, source: 'issue' });
    expect(timingRows({ total_s: 660, steps: [] }, 'full', 2)[0]!.pass).toBe(false);
    const quick = timingRows({ total_s: 70, steps: [] }, 'quick', 2)[0]!;
    expect(quick).toMatchObject({ pass: null, note: expect.stringMatching(/quick plan/) });
    expect(timingRows({ total_s: 300, steps: [] }, 'full', 8)[0]!.note).toMatch(/8 cores/);
  });

  it('formats durations for people', () => {
    expect(formatDuration(48.4)).toBe('48 s');
    expect(formatDuration(432)).toBe('7 min 12 s');
  });
});
