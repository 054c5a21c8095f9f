import { describe, expect, it } from 'vitest';
import { compareStreamIds } from '../../../../daemon/market/bus.js';
import type { MarketEvent } from '../../../../daemon/kernel/events.js';
import { planReplay, type ReplaySource } from '../../../../daemon/ws/replay.js';
import { createSubscriptionSet } from '../../../../daemon/ws/subscriptions.js';

const price = (code: string, p: number): MarketEvent => ({
  type: 'price', code, name: code, market: 'KOSPI', sector: null, price: p, change: 0, change_percent: 0, volume: 0, trading_value: 0, open: 0, high: 0, low: 0, prev_close: 0, ts: 0,
});

/** An in-memory history: entries `${n}-0` for n in [first, last], 'A' on even n, 'B' on odd n. */
function history(first: number, last: number, removed = 0): ReplaySource & { reads: number } {
  const entries: [string, MarketEvent][] = [];
  for (let n = first; n <= last; n++) entries.push([`${n}-0`, price(n % 2 === 0 ? 'A' : 'B', n)]);
  const src = {
    reads: 0,
    async range(after: string, count: number) {
      src.reads++;
      return entries.filter(([id]) => compareStreamIds(id, after) > 0).slice(0, count);
    },
    async firstId() {
      return entries[0]?.[0] ?? null;
    },
    async removedCount() {
      return removed;
    },
  };
  return src;
}

const subsA = createSubscriptionSet({ stock: ['A'] });
const prices = (plan: Awaited<ReturnType<typeof planReplay>>) => plan.messages.map((m) => JSON.parse(`${m.head}}`).price as number);

describe('planReplay', () => {
  it('replays the relevant events in (after, upto], reading in pages', async () => {
    const src = history(1, 30);
    const plan = await planReplay(src, { after: '4-0', upto: '20-0', subs: subsA, userId: null }, { maxMessages: 100, maxScan: 1000, pageSize: 5 });
    // A = even ids: 6, 8, …, 20 → 8 messages
    expect(prices(plan)).toEqual([6, 8, 10, 12, 14, 16, 18, 20]);
    expect(plan).toMatchObject({ missed: 8, truncated: false });
    expect(plan.messages[0]!.streamId).toBe('6-0');
  });

  it('has nothing to replay when upto is not after the position', async () => {
    expect(await planReplay(history(1, 9), { after: '9-0', upto: '9-0', subs: subsA, userId: null }, { maxMessages: 10, maxScan: 10 })).toEqual({ messages: [], missed: 0, estimated: false, truncated: false });
    expect(await planReplay(history(1, 9), { after: null, upto: '9-0', subs: subsA, userId: null }, { maxMessages: 10, maxScan: 10 })).toMatchObject({ truncated: false, missed: 0 });
  });

  it('is truncated when entries after the position were trimmed', async () => {
    // Kept: 10..30. After 7: 8 and 9 are gone. 11 relevant over 10..30 (20 ms), extrapolated to the 23 ms gap: 13 (really 12).
    expect(await planReplay(history(10, 30), { after: '7-0', upto: '30-0', subs: subsA, userId: null }, { maxMessages: 100, maxScan: 1000 })).toEqual({
      messages: [], missed: 13, estimated: true, truncated: true,
    });
    // After 10 (still kept): nothing lost.
    const intact = await planReplay(history(10, 30), { after: '10-0', upto: '14-0', subs: subsA, userId: null }, { maxMessages: 100, maxScan: 1000 });
    expect(prices(intact)).toEqual([12, 14]);
    // After 9-<max seq>, where the next possible id 10-0 is the oldest kept (a position saved just before a queued event).
    const edge = await planReplay(history(10, 30), { after: '9-18446744073709551615', upto: '12-0', subs: subsA, userId: null }, { maxMessages: 100, maxScan: 1000 });
    expect(prices(edge)).toEqual([10, 12]);
  });

  it("treats '0-0' (stream empty when reading began) as intact unless entries were ever removed", async () => {
    const args = { after: '0-0', upto: '4-0', subs: subsA, userId: null };
    expect(prices(await planReplay(history(1, 4, 0), args, { maxMessages: 10, maxScan: 10 }))).toEqual([2, 4]);
    expect(await planReplay(history(3, 4, 2), args, { maxMessages: 10, maxScan: 10 })).toMatchObject({ truncated: true });
  });

  it('is truncated past the message or scan caps', async () => {
    const args = { after: '0-0', upto: '30-0', subs: subsA, userId: null };
    expect(await planReplay(history(1, 30), args, { maxMessages: 3, maxScan: 1000 })).toMatchObject({ messages: [], missed: 4, truncated: true });
    expect(await planReplay(history(1, 30), args, { maxMessages: 100, maxScan: 10 })).toMatchObject({ messages: [], truncated: true });
  });
});

describe('planReplay order books', () => {
  it('replays only the latest order book of each code but every price', async () => {
    const book = (code: string, bid: number): MarketEvent => ({ type: 'orderbook', code, market: 'KOSPI', sector: null, bids: [{ price: bid, quantity: 1 }], asks: [], ts: 0 });
    const entries: [string, MarketEvent][] = [
      ['1-0', book('A', 10)], ['2-0', price('A', 100)], ['3-0', book('B', 20)], ['4-0', book('A', 11)], ['5-0', price('A', 101)], ['6-0', book('B', 21)],
    ];
    const src: ReplaySource = {
      range: async (after, count) => entries.filter(([id]) => compareStreamIds(id, after) > 0).slice(0, count),
      firstId: async () => '1-0',
    };
    const subs = createSubscriptionSet({ stock: ['A', 'B'] });
    const plan = await planReplay(src, { after: '0-0', upto: '6-0', subs, userId: null }, { maxMessages: 100, maxScan: 100 });
    expect(plan.messages.map((m) => m.streamId)).toEqual(['2-0', '4-0', '5-0', '6-0']);
    // All six were missed; four are worth sending.
    expect(plan.missed).toBe(6);
  });
});

describe('planReplay caps', () => {
  it('Given a gap over the message cap, when planned, then it is truncated with the count extrapolated over the gap and labelled estimated', async () => {
    // A at 2, 4, 6, 8 exceeds 3 at id 8: 4 relevant in 7 ms, the gap is 29 ms → 17 (really 15).
    const plan = await planReplay(history(1, 30), { after: '1-0', upto: '30-0', subs: subsA, userId: null }, { maxMessages: 3, maxScan: 1000 });
    expect(plan).toEqual({ messages: [], missed: 17, estimated: true, truncated: true });
  });

  it('Given many order books of one code, when planned, then they count once against the cap (only the latest is replayed)', async () => {
    const entries: [string, MarketEvent][] = [];
    for (let n = 1; n <= 50; n++) entries.push([`${n}-0`, { type: 'orderbook', code: 'A', market: 'KOSPI', sector: null, bids: [{ price: n, quantity: 1 }], asks: [], ts: 0 }]);
    entries.push(['51-0', price('A', 1)]);
    const src: ReplaySource = { range: async (after, count) => entries.filter(([id]) => compareStreamIds(id, after) > 0).slice(0, count), firstId: async () => '1-0' };
    const plan = await planReplay(src, { after: '0-0', upto: '51-0', subs: subsA, userId: null }, { maxMessages: 2, maxScan: 1000 });
    expect(plan).toMatchObject({ missed: 51, estimated: false, truncated: false });
    expect(plan.messages.map((m) => m.streamId)).toEqual(['50-0', '51-0']);
  });

  it('Given alerts replayed from their records, when planned with alerts: false, then alert events are neither counted nor replayed', async () => {
    const alert: MarketEvent = { type: 'alert', user_id: 'u1', alert_id: 'a1', code: 'A', alert_type: 'price_above', threshold: 1, current_price: 2, message: 'm', ts: 0 };
    const entries: [string, MarketEvent][] = [['1-0', alert], ['2-0', price('A', 2)]];
    const src: ReplaySource = { range: async (after, count) => entries.filter(([id]) => compareStreamIds(id, after) > 0).slice(0, count), firstId: async () => '1-0' };
    const args = { after: '0-0', upto: '2-0', subs: subsA, userId: 'u1' };
    expect((await planReplay(src, args, { maxMessages: 10, maxScan: 10 })).missed).toBe(2);
    const plan = await planReplay(src, { ...args, alerts: false }, { maxMessages: 10, maxScan: 10 });
    expect(plan.missed).toBe(1);
    expect(plan.messages.map((m) => m.type)).toEqual(['price_update']);
  });
});
