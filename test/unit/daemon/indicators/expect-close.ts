/** Assertion helpers for numeric series compared with published tables. */
import { expect } from 'vitest';

/** Asserts |actual − expected| ≤ tol, with a message naming the position. */
export function expectNear(actual: number | null | undefined, expected: number, tol: number, label = ''): void {
  expect(actual, `${label} expected ${expected}, got ${String(actual)}`).not.toBeNull();
  expect(actual, label).toBeTypeOf('number');
  expect(Math.abs((actual as number) - expected), `${label} expected ${expected}, got ${String(actual)}`).toBeLessThanOrEqual(tol);
}

/** Asserts series[start + k] ≈ expected[k] for every k, and that every value before `start` is null. */
export function expectSeries(
  series: readonly (number | null)[],
  expected: readonly number[],
  start: number,
  tol: number,
): void {
  for (let i = 0; i < start; i++) expect(series[i], `index ${i} should be null`).toBeNull();
  expected.forEach((e, k) => expectNear(series[start + k], e, tol, `index ${start + k}`));
}
