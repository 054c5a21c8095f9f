/** The recent events a replay reads from memory: exactly the stream's entries after an id, or "not here". */
import { describe, expect, it } from 'vitest';
import { compareStreamIds } from '../../../../daemon/market/bus.js';
import { createRecentEvents } from '../../../../daemon/market/recent-events.js';

const event = (n: number) => Buffer.from(JSON.stringify({ type: 'price', code: '005930', price: n }));

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

  it('replays the events as they were published (kept as bytes), decoding each once however many replays read it, and leaves out an undecodable one', () => {
    // Given entries kept as the stream gave them, one of them not JSON
    const recent = createRecentEvents(10, compareStreamIds);
    recent.reset('20-0');
    recent.push('20-1', event(1));
    recent.push('20-2', Buffer.from('{not json'));
    recent.push('20-3', event(3));
    // When two restores replay the same stretch
    const first = recent.after('20-0', 10)!;
    const second = recent.after('20-0', 10)!;
    // Then both get the decoded events in order, without the undecodable entry
    expect(first).toEqual([['20-1', { type: 'price', code: '005930', price: 1 }], ['20-3', { type: 'price', code: '005930', price: 3 }]]);
    // And the second got the very objects the first decoded (decoded once)
    expect(second[0]![1]).toBe(first[0]![1]);
    expect(second[1]![1]).toBe(first[1]![1]);
  });
});
