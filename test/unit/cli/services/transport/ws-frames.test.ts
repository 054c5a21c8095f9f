import { describe, expect, it } from 'vitest';
import { createSequenceTracker, parseFrame } from '../../../../../cli/services/transport/ws-frames.js';

const frame = (m: object) => parseFrame(JSON.stringify(m));

describe('parseFrame', () => {
  it('unwraps a batch into its inner messages, in order', () => {
    const parsed = frame({ type: 'batch', sequence: 11, batch_size: 2, messages: [{ type: 'price_update', code: 'A', sequence: 12 }, { type: 'alert', code: 'B', sequence: 13 }] });
    expect(parsed.frame.sequence).toBe(11);
    expect(parsed.messages.map((m) => [m.type, m.sequence])).toEqual([['price_update', 12], ['alert', 13]]);
  });

  it('passes a single message through as itself', () => {
    const parsed = frame({ type: 'pong', sequence: 4 });
    expect(parsed.messages).toEqual([{ type: 'pong', sequence: 4 }]);
  });

  it('rejects text that is not a message', () => {
    expect(() => parseFrame('{oops')).toThrow(/not JSON/);
    expect(() => parseFrame('[1,2]')).toThrow(/not a message object/);
    expect(() => parseFrame('{"sequence":1}')).toThrow(/not a message object/);
    expect(() => parseFrame('{"type":"batch","messages":[{"no":"type"}]}')).toThrow(/batch frame/);
  });
});

describe('createSequenceTracker', () => {
  it('accepts frames and inner messages in reading order: batch number first', () => {
    const t = createSequenceTracker();
    expect(t.observe(frame({ type: 'connected', sequence: 1 }))).toEqual([]);
    // batch 2 carrying 3 and 4, then 5
    expect(t.observe(frame({ type: 'batch', sequence: 2, messages: [{ type: 'x', sequence: 3 }, { type: 'x', sequence: 4 }] }))).toEqual([]);
    expect(t.observe(frame({ type: 'x', sequence: 5 }))).toEqual([]);
    expect(t.last()).toBe(5);
  });

  it('reports a gap inside a batch and a number that goes back', () => {
    const t = createSequenceTracker();
    t.observe(frame({ type: 'connected', sequence: 1 }));
    expect(t.observe(frame({ type: 'batch', sequence: 2, messages: [{ type: 'x', sequence: 3 }, { type: 'x', sequence: 6 }] }))).toEqual([{ kind: 'gap', expected: 4, got: 6 }]);
    expect(t.observe(frame({ type: 'x', sequence: 6 }))).toEqual([{ kind: 'repeat', expected: 7, got: 6 }]);
    expect(t.observe(frame({ type: 'x', sequence: 7 }))).toEqual([]);
  });

  it('restarts at `connected` (a new session) but checks `reconnected` against the old numbering', () => {
    const t = createSequenceTracker();
    t.observe(frame({ type: 'connected', sequence: 1 }));
    t.observe(frame({ type: 'x', sequence: 2 }));
    expect(t.observe(frame({ type: 'reconnected', sequence: 3 }))).toEqual([]);
    expect(t.observe(frame({ type: 'reconnected', sequence: 9 }))).toEqual([{ kind: 'gap', expected: 4, got: 9 }]);
    expect(t.observe(frame({ type: 'connected', sequence: 1 }))).toEqual([]);
    expect(t.observe(frame({ type: 'x', sequence: 2 }))).toEqual([]);
  });

  it('ignores messages without a number', () => {
    const t = createSequenceTracker();
    t.observe(frame({ type: 'connected', sequence: 1 }));
    expect(t.observe(frame({ type: 'error', code: 'X' }))).toEqual([]);
    expect(t.observe(frame({ type: 'x', sequence: 2 }))).toEqual([]);
  });
});
