/** The recent events a replay reads from memory: exactly the stream's entries after an id, or "not here". */
import { describe, expect, it } from 'vitest';
import { compareStreamIds } from '../../../../daemon/market/bus.js';
import { createRecentEvents } from '../../../../daemon/market/recent-events.js';
import type { MarketEvent } from '../../../../daemon/kernel/events.js';

const event = (n: number) => ({ type: 'price', code: '005930', price: n }) as unknown as MarketEvent;

describe('recent events', () => {
  it('answers only for ids it covers, with the events after them in order', () => {
    // Given a loop that started after 10-0 and pushed 10-1 … 10-5, keeping 3
    const recent = createRecentEvents(3, compareStreamIds);
    expect(recent.after('10-0', 10)).toBeNull();
    recent.reset('10-0');
    for (let i = 1; i <= 5; i++) recent.push(`10-${i}`, event(i));
    // Then what is older than the kept window is not answered here (the stream answers it)
    expect(recent.after('10-0', 10)).toBeNull();
    expect(recent.after('10-1', 10)).toBeNull();
    // Then covered ids get exactly the later events, at most `count`
    expect(recent.after('10-2', 10)!.map(([id]) => id)).toEqual(['10-3', '10-4', '10-5']);
    expect(recent.after('10-3', 1)!.map(([id]) => id)).toEqual(['10-4']);
    expect(recent.after('10-5', 10)).toEqual([]);
    expect(recent.after('11-0', 10)).toEqual([]);
  });
});
