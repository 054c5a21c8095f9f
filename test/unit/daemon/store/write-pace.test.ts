/** A write pace sizes the next piece from the time the last one took, within its bounds and at most 2× per step. */
import { describe, expect, it } from 'vitest';
import { createWritePace } from '../../../../daemon/store/write-pace.js';

describe('write pace', () => {
  it('moves towards the rows that fit the target time, at most doubling or halving per piece', () => {
    const pace = createWritePace({ initial: 1000, min: 100, max: 100_000, targetMs: 50 });
    expect(pace.size()).toBe(1000);
    // A piece of 1,000 rows took 10 ms: 5,000 would fit, the next is twice as large
    pace.took(1000, 10);
    expect(pace.size()).toBe(2000);
    // 2,000 rows took 40 ms: 2,500 fit
    pace.took(2000, 40);
    expect(pace.size()).toBe(2500);
    // A piece slowed down tenfold: the next is half as large, not a tenth
    pace.took(2500, 500);
    expect(pace.size()).toBe(1250);
  });

  it('stays within its bounds and ignores a piece with no rows', () => {
    const pace = createWritePace({ initial: 150, min: 100, max: 200, targetMs: 50 });
    pace.took(150, 1000);
    expect(pace.size()).toBe(100);
    pace.took(0, 1000);
    expect(pace.size()).toBe(100);
    for (let i = 0; i < 5; i++) pace.took(pace.size(), 1);
    expect(pace.size()).toBe(200);
  });
});
