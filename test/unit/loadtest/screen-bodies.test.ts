import { describe, expect, it } from 'vitest';
import { complexBodies, simpleBodies, varying } from '../../../loadtest/scenarios/screen-bodies.js';

describe('screening request bodies', () => {
  it('keeps the value fixed when the cache is wanted', () => {
    const v = varying(5, false);
    expect([v(), v(), v()]).toEqual([5, 5, 5]);
  });

  it('moves the value by less than a millionth, differently on every request', () => {
    let i = 0;
    const randoms = [0, 0.5, 0.999];
    const v = varying(5, true, () => randoms[i++]!);
    // 5 + (1 + r) × 1e-7 for r = 0, 0.5, 0.999
    expect(v()).toBeCloseTo(5.0000001, 12);
    expect(v()).toBeCloseTo(5.00000015, 12);
    expect(v()).toBeCloseTo(5.0000001999, 12);
    const real = varying(5, true);
    const values = new Set(Array.from({ length: 10_000 }, real));
    expect(values.size).toBe(10_000);
    for (const x of values) expect(x - 5).toBeLessThan(1e-6);
  });

  it('gives the simple screen one filter and the complex one six ranges, an expression and two sort keys, in both shapes', () => {
    const simple = simpleBodies(false);
    expect(simple.shapeA()).toEqual({ filters: { roe: { min: 5 } }, limit: 50 });
    expect(simple.shapeB()).toEqual({ min_roe: 5, limit: 50 });
    const complex = complexBodies(false);
    const a = complex.shapeA() as { filters: Record<string, unknown>; sort: unknown[]; expression: string };
    expect(Object.keys(a.filters)).toHaveLength(6);
    expect(a.sort).toHaveLength(2);
    const b = complex.shapeB();
    const fieldsB = new Set(Object.keys(b).filter((k) => /^(min|max)_/.test(k)).map((k) => k.replace(/^(min|max)_/, '')));
    expect(fieldsB).toEqual(new Set(Object.keys(a.filters)));
    expect(b.expression).toBe(a.expression);
    expect(b.sort).toBe('roe:desc,market_cap:desc');
  });
});
