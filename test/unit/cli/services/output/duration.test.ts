import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../../../../cli/services/output/duration.js';

describe('parseDuration', () => {
  it('reads a number with a unit as milliseconds', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('10s')).toBe(10_000);
    expect(parseDuration('10m')).toBe(600_000); // 10 × 60 × 1000
    expect(parseDuration('2h')).toBe(7_200_000); // 2 × 3600 × 1000
    expect(parseDuration('1.5s')).toBe(1500);
  });

  it('adds up compound durations and reads a bare number as seconds', () => {
    expect(parseDuration('1m30s')).toBe(90_000); // 60,000 + 30,000
    expect(parseDuration('1h2m3s')).toBe(3_723_000); // 3,600,000 + 120,000 + 3,000
    expect(parseDuration('30')).toBe(30_000);
    expect(parseDuration(' 2s ')).toBe(2000);
  });

  it('rejects anything else, naming the accepted forms', () => {
    for (const bad of ['', 'abc', '10x', '-1s', '1s2', 's', '1 s', '10sec']) {
      expect(() => parseDuration(bad), bad).toThrow(/not a duration \(use e\.g\. 500ms, 10s/);
    }
  });
});

describe('formatDuration', () => {
  it('uses the largest fitting units', () => {
    expect(formatDuration(250)).toBe('250ms');
    expect(formatDuration(1500)).toBe('1.5s');
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(3_600_000)).toBe('1h');
    expect(formatDuration(59_999)).toBe('60s');
  });
});
