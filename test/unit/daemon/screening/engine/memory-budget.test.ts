/**
 * One memory budget over several caches: whichever cache fills it, the entry last used longest
 * ago goes first, and work in flight reserves its bytes before they are allocated.
 */
import { describe, expect, it } from 'vitest';
import { createCrossSectionMemo } from '../../../../../daemon/screening/language/cross-section.js';
import { createMemoryBudget, type MemoryBudget, type MemoryHolder } from '../../../../../daemon/screening/engine/memory-budget.js';
import { fixtureSnapshot } from '../fixture.js';

/** A cache of named entries of given sizes, in least-recently-used order, counted against `budget`. */
function fakeCache(budget: MemoryBudget, name: string) {
  const entries = new Map<string, { bytes: number; used: number }>();
  const holder: MemoryHolder = {
    bytes: () => [...entries.values()].reduce((n, e) => n + e.bytes, 0),
    oldest: () => entries.values().next().value?.used,
    dropOldest: () => void entries.delete(entries.keys().next().value as string),
  };
  budget.hold(name, holder);
  return {
    put(key: string, bytes: number) {
      entries.set(key, { bytes, used: budget.stamp() });
      budget.fit();
    },
    touch(key: string) {
      const e = entries.get(key);
      if (!e) return;
      entries.delete(key);
      entries.set(key, { ...e, used: budget.stamp() });
    },
    keys: () => [...entries.keys()],
  };
}

describe('memory budget', () => {
  it('drops the least recently used entry of whichever cache when the sum goes over', () => {
    // Given two caches sharing 100 bytes, a's first entry used again after b's
    const budget = createMemoryBudget(100);
    const a = fakeCache(budget, 'a');
    const b = fakeCache(budget, 'b');
    a.put('a1', 30);
    b.put('b1', 30);
    a.put('a2', 30);
    a.touch('a1');
    // When b adds an entry that does not fit
    b.put('b2', 30);
    // Then b's own older entry went, not a's (a1 was used since)
    expect(b.keys()).toEqual(['b2']);
    expect(a.keys()).toEqual(['a2', 'a1']);
    expect(budget.stats()).toEqual({ limit: 100, used: 90, reserved: 0, holders: { a: 60, b: 30 } });
  });

  it('makes room for a reservation before the work allocates, and counts it until released', () => {
    const budget = createMemoryBudget(100);
    const a = fakeCache(budget, 'a');
    a.put('a1', 40);
    a.put('a2', 40);
    const release = budget.reserve(50);
    expect(a.keys()).toEqual(['a2']);
    expect(budget.stats().used).toBe(90);
    // A new entry while the reservation holds: the older one goes.
    a.put('a3', 40);
    expect(a.keys()).toEqual(['a3']);
    release();
    release();
    expect(budget.stats()).toMatchObject({ used: 40, reserved: 0 });
  });

  it('drops an entry larger than the whole budget at once, and stops when nothing is left to drop', () => {
    const budget = createMemoryBudget(100);
    const a = fakeCache(budget, 'a');
    a.put('small', 10);
    a.put('big', 150);
    expect(a.keys()).toEqual([]);
    const release = budget.reserve(150);
    expect(budget.stats()).toMatchObject({ used: 150, reserved: 150 });
    release();
  });

  it('counts the formula memo against the shared budget: another cache filling it drops the memo\'s oldest column', () => {
    const snap = fixtureSnapshot();
    const column = () => new Float64Array(1000);
    const budget = createMemoryBudget(20_000);
    const memo = createCrossSectionMemo(1_000_000, budget);
    memo.put(snap, 'first', column());
    memo.put(snap, 'second', column());
    const other = fakeCache(budget, 'series');
    other.put('s1', 8_000);
    expect(memo.peek(snap, 'first')).toBeUndefined();
    expect(memo.peek(snap, 'second')).toBeDefined();
    expect(budget.stats().used).toBeLessThanOrEqual(20_000);
  });
});
