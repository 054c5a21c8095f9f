import { describe, expect, it } from 'vitest';
import { Histogram } from '../../../loadtest/histogram.js';

describe('Histogram', () => {
  it('gives exact percentiles for small integers (below 128 every value has its own bucket)', () => {
    // Given the values 1..100 once each
    const h = new Histogram();
    for (let v = 1; v <= 100; v++) h.record(v);
    // Then the p-th percentile is the ceil(p% × 100)-th smallest value: p50 → 50th = 50, p95 → 95, p99 → 99
    expect(h.percentile(50)).toBe(50);
    expect(h.percentile(95)).toBe(95);
    expect(h.percentile(99)).toBe(99);
    expect(h.percentile(100)).toBe(100);
    // mean of 1..100 = 5050 / 100
    expect(h.mean()).toBe(50.5);
    expect(h.summary()).toMatchObject({ count: 100, min: 1, max: 100 });
  });

  it('stays within 1/128 of the true value for large values', () => {
    // Given latencies 1..10,000 ms recorded in microseconds
    const h = new Histogram();
    for (let ms = 1; ms <= 10_000; ms++) h.record(ms * 1000);
    // True p95 = 9,500 ms, p99 = 9,900 ms, p50 = 5,000 ms (ceil(p% × 10,000)-th value)
    for (const [p, truth] of [[50, 5_000_000], [95, 9_500_000], [99, 9_900_000]] as const) {
      const got = h.percentile(p)!;
      expect(got).toBeGreaterThanOrEqual(truth); // highest equivalent value: never understates
      expect((got - truth) / truth).toBeLessThan(1 / 128);
    }
    expect(h.summary(1000).max).toBe(10_000);
  });

  it('puts neighbouring values in the right buckets around powers of two', () => {
    // 256 and 257 share a bucket of width 2 (values 256..511 have 128 buckets of 2); 258 is the next one
    expect(Histogram.indexOf(256)).toBe(Histogram.indexOf(257));
    expect(Histogram.indexOf(258)).toBe(Histogram.indexOf(256) + 1);
    expect(Histogram.highestOf(Histogram.indexOf(256))).toBe(257);
    // the largest value lands in the last bucket
    expect(Histogram.indexOf(2 ** 32 - 1)).toBe(new Histogram().counts.length - 1);
  });

  it('back-fills samples a stalled server prevented (coordinated omission)', () => {
    // Given one response of 100 ms where one was expected every 10 ms
    const h = new Histogram();
    h.recordCorrected(100, 10);
    // Then the requests that would have been sent meanwhile are counted with 90, 80, … 10 ms
    expect(h.total).toBe(10);
    expect(h.percentile(50)).toBe(50);
    expect(h.max).toBe(100);
  });

  it('merges and survives serialisation (what worker threads send)', () => {
    const a = new Histogram();
    const b = new Histogram();
    for (let v = 1; v <= 50; v++) a.record(v);
    for (let v = 51; v <= 100; v++) b.record(v);
    const merged = Histogram.fromJSON(JSON.parse(JSON.stringify(a.toJSON())));
    merged.merge(b.toJSON());
    expect(merged.total).toBe(100);
    expect(merged.percentile(50)).toBe(50);
    expect(merged.min).toBe(1);
    expect(merged.max).toBe(100);
  });

  it('reports nothing for an empty histogram and clamps negative values to 0', () => {
    const h = new Histogram();
    expect(h.summary()).toEqual({ count: 0, min: null, mean: null, p50: null, p95: null, p99: null, max: null });
    h.record(-5);
    expect(h.percentile(50)).toBe(0);
  });
});
