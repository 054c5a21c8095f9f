import { describe, expect, it } from 'vitest';
import { encodeFrame, FRAME_HEADER_ROOM } from '../../../../daemon/ws/frame-encoder.js';
import { createOutbox, type Outbox, type OutboxOptions, type OutboxSink } from '../../../../daemon/ws/batching.js';
import { serverMessages, type OutMessage } from '../../../../daemon/ws/protocol.js';

const T = Date.parse('2025-03-04T01:00:00.000Z');

interface FakeSink extends OutboxSink {
  sent: string[];
  buffered: number;
  scheduled: number;
  overflows: string[];
}

function sink(): FakeSink {
  const s: FakeSink = {
    sent: [], buffered: 0, scheduled: 0, overflows: [],
    sendFrame: (chunk, first, batch) => void s.sent.push(encodeFrame(chunk, first, batch, T).subarray(FRAME_HEADER_ROOM).toString('utf8')),
    bufferedAmount: () => s.buffered,
    schedule: () => void s.scheduled++,
    onSent: () => undefined,
    onOverflow: (reason) => void s.overflows.push(reason),
  };
  return s;
}

const OPTIONS: OutboxOptions = { batching: true, highWaterBytes: 10_000, maxBehindFlushes: 2, maxQueue: 100, maxBatchSize: 500, maxFrameBytes: 64 * 1024 };

function price(code: string, p: number, id = '1-0'): OutMessage {
  return serverMessages.priceUpdate({ type: 'price', code, name: code, market: 'KOSPI', sector: null, price: p, change: 0, change_percent: 0, volume: 0, trading_value: 0, open: 0, high: 0, low: 0, prev_close: 0, ts: T }, id);
}

const parsed = (s: FakeSink) => s.sent.map((t) => JSON.parse(t) as { type: string; sequence: number; messages?: { sequence: number; price?: number }[] });

function make(options: Partial<OutboxOptions> = {}): { s: FakeSink; box: Outbox } {
  const s = sink();
  return { s, box: createOutbox(s, { ...OPTIONS, ...options }) };
}

describe('outbox', () => {
  it('sends a single queued message unwrapped and several as one batch, frame numbered first', () => {
    const { s, box } = make();
    box.push(price('A', 1));
    box.flush();
    box.push(price('A', 2));
    box.push(price('B', 3));
    box.push(price('C', 4));
    box.flush();
    const [single, batch] = parsed(s);
    expect(single).toMatchObject({ type: 'price_update', sequence: 1 });
    expect(batch).toMatchObject({ type: 'batch', sequence: 2, batch_size: 3 });
    expect(batch!.messages!.map((m) => [m.sequence, m.price])).toEqual([[3, 2], [4, 3], [5, 4]]);
    expect(box.sequence).toBe(5);
  });

  it('sends immediately, one frame per message, when batching is off', () => {
    const { s, box } = make({ batching: false });
    box.push(price('A', 1));
    box.push(price('B', 2));
    expect(parsed(s).map((m) => [m.type, m.sequence])).toEqual([['price_update', 1], ['price_update', 2]]);
  });

  it('splits a large flush into frames of at most maxBatchSize messages', () => {
    const { s, box } = make({ maxBatchSize: 2 });
    for (let i = 0; i < 5; i++) box.push(price('A', i));
    box.flush();
    // 5 messages → frames of 2, 2, 1: batch(1){2,3}, batch(4){5,6}, single 7
    expect(parsed(s).map((f) => f.sequence)).toEqual([1, 4, 7]);
  });

  it('puts no more than the free buffer space into the socket and keeps the rest queued', () => {
    const { s, box } = make({ batching: false, highWaterBytes: 2000 });
    box.pause();
    for (let i = 0; i < 20; i++) box.push(price('A', i));
    s.buffered = 1500;
    box.resume();
    box.flush();
    // 500 bytes are free: what went out fits in them, give or take the last message.
    const bytes = s.sent.reduce((n, t) => n + t.length, 0);
    expect(s.sent.length).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(500 + s.sent[0]!.length);
    expect(s.sent.length + box.size()).toBe(20);
    expect(box.size()).toBeGreaterThan(10);
  });

  it('coalesces a slow consumer to the latest message per key, keeping others, then overflows', () => {
    const { s, box } = make();
    box.push(price('A', 1));
    box.push(serverMessages.pong(T));
    box.push(price('B', 1));
    box.push(price('A', 2));
    s.buffered = 20_000; // above the 10 000-byte threshold
    box.flush(); // behind 1: coalesced
    expect(box.size()).toBe(3);
    box.push(price('B', 2));
    box.push(price('A', 3));
    expect(box.size()).toBe(3);
    box.flush(); // behind 2
    expect(s.overflows).toEqual([]);
    box.flush(); // behind 3 > maxBehindFlushes 2
    expect(s.overflows).toEqual(['slow consumer']);

    // Had it caught up, the latest values go out in the original order of first appearance.
    const { s: s2, box: box2 } = make();
    for (const m of [price('A', 1), serverMessages.pong(T), price('B', 1), price('A', 2)]) box2.push(m);
    s2.buffered = 20_000;
    box2.flush();
    s2.buffered = 0;
    box2.flush();
    expect(parsed(s2)[0]!.messages!.map((m) => [m.sequence, m.price])).toEqual([[2, 2], [3, undefined], [4, 1]]);
  });

  it('reports an overflow when the queue passes maxQueue even after coalescing', () => {
    const { s, box } = make({ maxQueue: 3 });
    for (let i = 0; i < 4; i++) box.push(serverMessages.pong(T));
    expect(s.overflows).toEqual(['queue limit']);
  });

  it('holds messages while paused and puts unshifted ones first', () => {
    const { s, box } = make();
    box.pause();
    box.push(price('A', 1, '9-0'));
    box.flush();
    expect(s.sent).toEqual([]);
    box.unshift([serverMessages.pong(T), price('B', 1, '7-3')]);
    expect(box.oldestQueuedStreamId()).toBe('7-3');
    box.resume();
    box.flush();
    expect(parsed(s)[0]!.messages!.map((m) => m.price)).toEqual([undefined, 1, 1]);
  });
});
