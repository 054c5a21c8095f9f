import { describe, it, expect } from 'vitest';
import { isAppError, type AppError } from '../../../../../daemon/errors.js';
import type { PriceEvent } from '../../../../../daemon/kernel/events.js';
import { applyTicks, streamEntryBody, tickBodySchema, ticksOf, type IngestContext, type TickInput } from '../../../../../daemon/market/feed/ingest.js';
import type { FeedStock } from '../../../../../daemon/market/feed/types.js';
import { parseOrThrow } from '../../../../../daemon/validation.js';

const kst = (local: string): number => Date.parse(`${local}+09:00`);
const NOW = kst('2026-03-09T10:00:00');

// 005930: prev close 70,000 → limits 49,000–91,000 (30% = 21,000, a whole number of 100-won ticks).
const STOCKS: Record<string, FeedStock> = {
  '005930': { code: '005930', name: '삼성전자', market: 'KOSPI', sector: 'Semiconductors', prev_close: 70_000 },
  '035720': { code: '035720', name: '카카오', market: 'KOSPI', sector: 'Internet', prev_close: 40_000 },
};

function ctx(current: PriceEvent[] = [], now = NOW): IngestContext {
  return { lookup: (c) => STOCKS[c] ?? null, current: (c) => current.find((q) => q.code === c) ?? null, now };
}

function rejected(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

const quote = (over: Partial<PriceEvent>): PriceEvent => ({
  type: 'price', code: '005930', name: '삼성전자', market: 'KOSPI', sector: 'Semiconductors', price: 71_500, change: 1_500, change_percent: 2.14,
  volume: 1_000, trading_value: 71_500_000, open: 71_500, high: 71_500, low: 71_500, prev_close: 70_000, ts: kst('2026-03-09T09:30:00'), ...over,
});

describe('applyTicks: accepted ticks', () => {
  it('turns the first tick of the day into a price event with open/high/low at the price', () => {
    const [e] = applyTicks([{ code: '005930', price: 71_500, volume: 1_000 }], ctx());
    // change 71,500 − 70,000 = 1,500; 1,500 / 70,000 = 2.142…% → 2.14; value 1,000 × 71,500
    expect(e).toEqual({
      type: 'price', code: '005930', name: '삼성전자', market: 'KOSPI', sector: 'Semiconductors', price: 71_500, change: 1_500, change_percent: 2.14,
      volume: 1_000, trading_value: 71_500_000, open: 71_500, high: 71_500, low: 71_500, prev_close: 70_000, ts: NOW,
    });
  });

  it('continues the day from the live quote: value grows by the new shares × price', () => {
    const [e] = applyTicks([{ code: '005930', price: 71_000, volume: 1_500 }], ctx([quote({})])) as PriceEvent[];
    // 71,500,000 + (1,500 − 1,000) × 71,000 = 71,500,000 + 35,500,000
    expect(e).toMatchObject({ volume: 1_500, trading_value: 107_000_000, open: 71_500, high: 71_500, low: 71_000, change: 1_000 });
  });

  it('applies a batch in order, each tick building on the previous one of the same stock', () => {
    const events = applyTicks(
      [{ code: '005930', price: 72_000, volume: 10 }, { code: '035720', price: 40_050, volume: 5 }, { code: '005930', price: 69_900, volume: 30 }],
      ctx(),
    ) as PriceEvent[];
    expect(events.map((e) => `${e.code}@${e.price}`)).toEqual(['005930@72000', '035720@40050', '005930@69900']);
    // 10 × 72,000 + 20 × 69,900 = 720,000 + 1,398,000
    expect(events[2]).toMatchObject({ open: 72_000, high: 72_000, low: 69_900, trading_value: 2_118_000, change: -100, change_percent: -0.14 });
  });

  it('accepts both limit prices exactly, and a tick with an order book emits an orderbook event', () => {
    expect(() => applyTicks([{ code: '005930', price: 91_000, volume: 1 }], ctx())).not.toThrow();
    expect(() => applyTicks([{ code: '005930', price: 49_000, volume: 1 }], ctx())).not.toThrow();
    const events = applyTicks(
      [{ code: '005930', price: 71_500, volume: 1, bids: [{ price: 71_500, quantity: 10 }, { price: 71_400, quantity: 3 }], asks: [{ price: 71_600, quantity: 7 }] }],
      ctx(),
    );
    expect(events.map((e) => e.type)).toEqual(['price', 'orderbook']);
    expect(events[1]).toMatchObject({ code: '005930', bids: [{ price: 71_500, quantity: 10 }, { price: 71_400, quantity: 3 }], asks: [{ price: 71_600, quantity: 7 }], ts: NOW });
  });

  it('starts a new Korea-time day from the loaded close: lower volume is fine, open resets', () => {
    const yesterday = quote({ ts: kst('2026-03-06T15:30:00'), volume: 9_000_000, prev_close: 65_000 });
    const [e] = applyTicks([{ code: '005930', price: 70_100, volume: 100 }], ctx([yesterday])) as PriceEvent[];
    expect(e).toMatchObject({ prev_close: 70_000, open: 70_100, volume: 100, trading_value: 7_010_000, change: 100 });
  });

  it('uses an explicit ts (ms or ISO 8601) as the event time', () => {
    const [a] = applyTicks([{ code: '005930', price: 71_500, volume: 1, ts: NOW - 5_000 }], ctx());
    const [b] = applyTicks([{ code: '005930', price: 71_500, volume: 1, ts: '2026-03-09T00:59:00Z' }], ctx());
    expect(a!.ts).toBe(NOW - 5_000);
    expect(b!.ts).toBe(kst('2026-03-09T09:59:00'));
  });
});

describe('applyTicks: every rejection is a 400 naming the field', () => {
  it('unknown stock code', () => {
    const err = rejected(() => applyTicks([{ code: '123456', price: 1_000, volume: 1 }], ctx()));
    expect(err.status).toBe(400);
    expect(err.details).toEqual({ code: 'unknown stock code 123456' });
  });

  it('a price off the tick grid (71,550 where the tick is 100)', () => {
    const err = rejected(() => applyTicks([{ code: '005930', price: 71_550, volume: 1 }], ctx()));
    expect(err.details.price).toMatch(/not on the KRX tick grid.*71,500 and 71,600/);
  });

  it('a price beyond the ±30% limit, on the grid (91,100 > 91,000)', () => {
    const err = rejected(() => applyTicks([{ code: '005930', price: 91_100, volume: 1 }], ctx()));
    expect(err.details.price).toMatch(/outside the daily limit 49,000–91,000/);
    expect(rejected(() => applyTicks([{ code: '005930', price: 48_950, volume: 1 }], ctx())).details).toHaveProperty('price');
  });

  it('a day volume below the last accepted one', () => {
    const err = rejected(() => applyTicks([{ code: '005930', price: 71_500, volume: 999 }], ctx([quote({})])));
    expect(err.details.volume).toMatch(/must not decrease.*1,000/);
  });

  it('a ts in the future or older than the last accepted tick', () => {
    const future = rejected(() => applyTicks([{ code: '005930', price: 71_500, volume: 1, ts: NOW + 61_000 }], ctx()));
    expect(future.details.ts).toMatch(/future/);
    const old = rejected(() => applyTicks([{ code: '005930', price: 71_500, volume: 2_000, ts: kst('2026-03-09T09:00:00') }], ctx([quote({})])));
    expect(old.details.ts).toMatch(/older than the last accepted tick/);
  });

  it('order-book levels off the grid, out of order, or crossed', () => {
    const err = rejected(() =>
      applyTicks(
        [{ code: '005930', price: 71_500, volume: 1, bids: [{ price: 71_500, quantity: 1 }, { price: 71_450, quantity: 1 }, { price: 71_500, quantity: 1 }], asks: [{ price: 71_400, quantity: 1 }] }],
        ctx(),
      ),
    );
    expect(Object.keys(err.details).sort()).toEqual(['asks[0].price', 'bids[1].price', 'bids[2].price']);
    expect(err.details['bids[2].price']).toMatch(/descending/);
    expect(err.details['asks[0].price']).toMatch(/above the best bid/);
  });

  it('a batch is all or nothing and names each bad tick by index', () => {
    const ticks: TickInput[] = [
      { code: '005930', price: 71_500, volume: 1 },
      { code: '005930', price: 71_600, volume: 2 },
      { code: '005930', price: 71_650, volume: 3 },
      { code: '999999', price: 1_000, volume: 1 },
    ];
    const err = rejected(() => applyTicks(ticks, ctx()));
    expect(err.details).toEqual({ 'ticks[2].price': expect.stringMatching(/tick grid/), 'ticks[3].code': 'unknown stock code 999999' });
    expect(err.message).toMatch(/nothing was applied/);
  });
});

describe('tick body schema and stream entries', () => {
  it('lists schema problems by tick index, and takes a single tick or a batch', () => {
    const body = { ticks: [{ code: '005930', price: 71_500, volume: 1 }, { code: '5930', price: -1, volume: 1.5 }] };
    const err = rejected(() => parseOrThrow(tickBodySchema, body));
    expect(Object.keys(err.details).sort()).toEqual(['ticks[1].code', 'ticks[1].price', 'ticks[1].volume']);
    expect(ticksOf(parseOrThrow(tickBodySchema, { code: '005930', price: 1, volume: 0 }))).toEqual({ ticks: [{ code: '005930', price: 1, volume: 0 }], batch: false });
    expect(ticksOf(parseOrThrow(tickBodySchema, { ticks: [body.ticks[0]] }))).toEqual({ ticks: [body.ticks[0]], batch: true });
  });

  it('requires code, price and volume of a single tick, and refuses tick fields next to ticks', () => {
    expect(rejected(() => parseOrThrow(tickBodySchema, { code: '005930' })).details).toEqual({ price: 'Required', volume: 'Required' });
    const mixed = rejected(() => parseOrThrow(tickBodySchema, { ticks: [{ code: '005930', price: 1, volume: 0 }], price: 5 }));
    expect(mixed.details).toEqual({ price: 'not allowed together with ticks' });
    expect(rejected(() => parseOrThrow(tickBodySchema, { code: '005930', price: 1, volume: 0, extra: 1 })).details).toEqual({ extra: 'unknown field' });
  });

  it('caps a batch at 1,000 ticks', () => {
    const ticks = Array.from({ length: 1_001 }, () => ({ code: '005930', price: 71_500, volume: 1 }));
    expect(Object.keys(rejected(() => parseOrThrow(tickBodySchema, { ticks })).details)).toEqual(['ticks']);
  });

  it('reads flat stream fields and a JSON `tick` field', () => {
    expect(streamEntryBody(['code', '005930', 'price', '71500', 'volume', '12', 'ts', '1773014400000'])).toEqual({ code: '005930', price: 71_500, volume: 12, ts: 1_773_014_400_000 });
    expect(streamEntryBody(['tick', '{"ticks":[{"code":"005930","price":71500,"volume":1}]}'])).toEqual({ ticks: [{ code: '005930', price: 71_500, volume: 1 }] });
    expect(() => streamEntryBody(['tick', '{oops'])).toThrow(SyntaxError);
  });
});
