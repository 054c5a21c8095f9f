import { describe, it, expect } from 'vitest';
import type { MarketEvent, OrderBookEvent, PriceEvent } from '../../../../../daemon/kernel/events.js';
import { createSimulator } from '../../../../../daemon/market/feed/simulator.js';
import type { FeedStock } from '../../../../../daemon/market/feed/types.js';
import { isOnTick, priceLimits } from '../../../../../daemon/kernel/tick-size.js';

const kst = (local: string): number => Date.parse(`${local}+09:00`);
const OPEN = kst('2026-03-09T09:00:00');

/** Bases chosen at and near tick-band edges and at both ends of the table. */
const STOCKS: FeedStock[] = [
  { code: '000001', name: 'Edge 2k', market: 'KOSPI', sector: 'A', prev_close: 1_999 },
  { code: '000002', name: 'Edge 5k', market: 'KOSDAQ', sector: 'A', prev_close: 4_990 },
  { code: '000003', name: 'Edge 50k', market: 'KOSPI', sector: 'B', prev_close: 49_950 },
  { code: '000004', name: 'Big', market: 'KOSPI', sector: null, prev_close: 500_000 },
  { code: '000005', name: 'Penny', market: 'KOSDAQ', sector: 'C', prev_close: 12 },
];

const prices = (events: MarketEvent[]) => events.filter((e): e is PriceEvent => e.type === 'price');
const books = (events: MarketEvent[]) => events.filter((e): e is OrderBookEvent => e.type === 'orderbook');

function run(seed: number, steps: number, opts: { volatility?: number; stocks?: FeedStock[] } = {}) {
  const sim = createSimulator({ stocks: opts.stocks ?? STOCKS, seed, volatility: opts.volatility });
  const out: MarketEvent[] = [];
  for (let i = 0; i < steps; i++) out.push(...sim.step(OPEN + i * 1000));
  return out;
}

describe('simulator determinism', () => {
  it('replays the same market from the same seed, and another from another seed', () => {
    expect(JSON.stringify(run(7, 200))).toBe(JSON.stringify(run(7, 200)));
    expect(prices(run(8, 200)).map((e) => e.volume)).not.toEqual(prices(run(7, 200)).map((e) => e.volume));
  });
});

describe('a step in slices', () => {
  it('trades the same market as whole steps, a few stocks per slice, and skips a stock that left between two slices', () => {
    // Given two simulators of the same seed, three trades per stock per step
    const whole = createSimulator({ stocks: STOCKS, seed: 11, share: 3 });
    const sliced = createSimulator({ stocks: STOCKS, seed: 11, share: 3 });
    const a: MarketEvent[] = [];
    const b: MarketEvent[] = [];
    const sizes: number[] = [];
    for (let i = 0; i < 50; i++) {
      a.push(...whole.step(OPEN + i * 1000));
      // When one is stepped two trades (a price and a book each) at a time
      for (const slice of sliced.slices(OPEN + i * 1000, 2)) {
        sizes.push(slice.length);
        b.push(...slice);
      }
    }
    // Then both made the same events in the same order, and no slice held more than two trades
    expect(b.length).toBeGreaterThan(1000);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4);
    // And a stock delisted while a step is under way trades no more in that step's later slices
    const steps = sliced.slices(OPEN + 60_000, 1);
    const first = steps.next().value as MarketEvent[];
    sliced.setStocks(STOCKS.filter((s) => s.code !== '000005'));
    const rest = [...steps].flat();
    expect(first.length).toBeGreaterThan(0);
    expect(rest.filter((e) => 'code' in e && e.code === '000005')).toEqual([]);
    expect(new Set(rest.map((e) => ('code' in e ? e.code : ''))).size).toBeGreaterThan(1);
  });
});

describe('simulator invariants over a long, very volatile run', () => {
  // 50× volatility so prices travel to the daily limits and across band edges.
  const events = run(42, 3_000, { volatility: 50 });
  const byCode = new Map<string, PriceEvent[]>();
  for (const e of prices(events)) byCode.set(e.code, [...(byCode.get(e.code) ?? []), e]);

  it('updates every stock once per step at share 1, with an order book each', () => {
    for (const s of STOCKS) expect(byCode.get(s.code)).toHaveLength(3_000);
    expect(books(events)).toHaveLength(5 * 3_000);
  });

  it('keeps every price on the tick grid and within ±30% of the previous close', () => {
    const problems: string[] = [];
    for (const s of STOCKS) {
      const { upper, lower } = priceLimits(s.prev_close);
      for (const e of byCode.get(s.code)!) {
        if (!isOnTick(e.price)) problems.push(`${s.code} off grid ${e.price}`);
        if (e.price > upper || e.price < lower) problems.push(`${s.code} ${e.price} outside ${lower}-${upper}`);
      }
    }
    expect(problems).toEqual([]);
    // The run must actually reach a limit, or the check above proves little.
    const hitLimit = STOCKS.some((s) => byCode.get(s.code)!.some((e) => e.price === priceLimits(s.prev_close).upper || e.price === priceLimits(s.prev_close).lower));
    expect(hitLimit).toBe(true);
  });

  it('accumulates volume and trading value, and tracks open/high/low against the tick stream', () => {
    const problems: string[] = [];
    for (const s of STOCKS) {
      const list = byCode.get(s.code)!;
      let hi = -Infinity;
      let lo = Infinity;
      let prevVolume = 0;
      let value = 0;
      for (const e of list) {
        hi = Math.max(hi, e.price);
        lo = Math.min(lo, e.price);
        // Each trade adds (its quantity) × (its price) to the day's value.
        value += (e.volume - prevVolume) * e.price;
        if (e.volume <= prevVolume) problems.push(`${s.code} volume ${e.volume} after ${prevVolume}`);
        if (e.high !== hi || e.low !== lo) problems.push(`${s.code} high/low ${e.high}/${e.low} vs ${hi}/${lo}`);
        if (e.open !== list[0]!.price) problems.push(`${s.code} open ${e.open}`);
        if (e.trading_value !== value) problems.push(`${s.code} value ${e.trading_value} vs ${value}`);
        if (e.prev_close !== s.prev_close || e.change !== e.price - s.prev_close) problems.push(`${s.code} change ${e.change}`);
        if (Math.abs(e.change_percent - (e.change / s.prev_close) * 100) > 0.005) problems.push(`${s.code} change% ${e.change_percent}`);
        prevVolume = e.volume;
      }
    }
    expect(problems).toEqual([]);
  });

  it('publishes books whose levels are on the grid, inside the limits, with bids below asks', () => {
    const problems: string[] = [];
    for (const b of books(events)) {
      const { upper, lower } = priceLimits(STOCKS.find((s) => s.code === b.code)!.prev_close);
      const levels = [...b.bids, ...b.asks];
      if (levels.some((l) => !isOnTick(l.price) || l.price > upper || l.price < lower)) problems.push(`${b.code} level off grid/limits`);
      if (levels.some((l) => !Number.isInteger(l.quantity) || l.quantity <= 0)) problems.push(`${b.code} bad quantity`);
      if (b.bids[0] && b.asks[0] && b.bids[0].price >= b.asks[0].price) problems.push(`${b.code} crossed`);
    }
    expect(problems).toEqual([]);
  });
});

describe('simulator scheduling and days', () => {
  const ten: FeedStock[] = Array.from({ length: 10 }, (_, i) => ({ code: `00010${i}`, name: `S${i}`, market: 'KOSPI', sector: null, prev_close: 10_000 }));

  it('with share 0.25 updates 10 stocks as 2, 3, 2, 3 — each exactly once over four steps', () => {
    const sim = createSimulator({ stocks: ten, seed: 1, share: 0.25, orderBooks: false });
    const steps = [0, 1, 2, 3].map((i) => prices(sim.step(OPEN + i * 250)).map((e) => e.code));
    expect(steps.map((s) => s.length)).toEqual([2, 3, 2, 3]);
    expect(steps.flat().sort()).toEqual(ten.map((s) => s.code));
  });

  it('Given a share above 1, when stepped, then each stock trades that many times per step, spread over the elapsed time', () => {
    // 10 stocks at 2.5 updates per stock per step: 25 trades per step, in 3 rounds of the round robin.
    const sim = createSimulator({ stocks: ten, seed: 1, share: 2.5, orderBooks: false });
    sim.step(OPEN); // the first step has no elapsed time: its trades all carry OPEN
    const events = prices(sim.step(OPEN + 1000));
    expect(events).toHaveLength(25);
    const perCode = new Map<string, number[]>();
    for (const e of events) perCode.set(e.code, [...(perCode.get(e.code) ?? []), e.ts]);
    expect([...perCode.values()].map((ts) => ts.length).sort()).toEqual([2, 2, 2, 2, 2, 3, 3, 3, 3, 3]);
    // Rounds at 1/3, 2/3 and 3/3 of the second since the previous step; each stock's times increase.
    expect([...new Set(events.map((e) => e.ts))].sort()).toEqual([OPEN + 333, OPEN + 667, OPEN + 1000]);
    for (const ts of perCode.values()) expect(ts).toEqual([...ts].sort((a, b) => a - b));
    // Over 4 steps (10 s of 2.5/step): exactly 100 trades, each stock 10 times.
    const more = [2, 3, 4, 5].flatMap((i) => prices(sim.step(OPEN + i * 1000)));
    expect(more).toHaveLength(100);
    expect(new Set(ten.map((s) => more.filter((e) => e.code === s.code).length))).toEqual(new Set([10]));
  });

  it('skips halted stocks', () => {
    const sim = createSimulator({ stocks: [{ ...ten[0]!, halted: true }, ten[1]!], seed: 1 });
    expect(prices(sim.step(OPEN)).map((e) => e.code)).toEqual([ten[1]!.code]);
  });

  it('rolls over at the next Korea-time day: last price becomes the base, day totals restart', () => {
    const sim = createSimulator({ stocks: [ten[0]!], seed: 3, orderBooks: false, volatility: 20 });
    let last: PriceEvent | undefined;
    for (let i = 0; i < 500; i++) last = prices(sim.step(OPEN + i * 1000))[0];
    const next = prices(sim.step(kst('2026-03-10T09:00:00')))[0]!;
    expect(next.prev_close).toBe(last!.price);
    expect(next.open).toBe(next.price);
    expect(next.volume).toBeLessThan(last!.volume);
    expect(next.trading_value).toBe(next.volume * next.price);
  });

  it('takes a freshly loaded close as the next base when its date covers the last day traded', () => {
    const sim = createSimulator({ stocks: [ten[0]!], seed: 3, orderBooks: false });
    sim.step(OPEN);
    sim.setStocks([{ ...ten[0]!, prev_close: 12_340, close_date: '2026-03-09' }]);
    expect(prices(sim.step(kst('2026-03-10T09:00:00')))[0]!.prev_close).toBe(12_340);
  });

  it('adopts a newer quote of today (restart, new leader, ingested tick) and ignores one of another day', () => {
    const sim = createSimulator({ stocks: [ten[0]!], seed: 5, orderBooks: false });
    sim.step(OPEN);
    const quote: PriceEvent = {
      type: 'price', code: ten[0]!.code, name: 'S0', market: 'KOSPI', sector: null, price: 11_000, change: 1_000, change_percent: 10,
      volume: 5_000_000, trading_value: 55_000_000_000, open: 10_000, high: 11_000, low: 9_900, prev_close: 10_000, ts: OPEN + 500,
    };
    expect(sim.sync([{ ...quote, ts: kst('2026-03-06T15:00:00') }], OPEN + 1000)).toBe(0);
    expect(sim.sync([quote], OPEN + 1000)).toBe(1);
    const e = prices(sim.step(OPEN + 1000))[0]!;
    expect(e.volume).toBeGreaterThan(5_000_000);
    expect(e.low).toBe(9_900);
    expect(e.high).toBeGreaterThanOrEqual(11_000);
    // One second later the price is still within a few 10-won ticks of the adopted 11,000.
    expect(Math.abs(e.price - 11_000)).toBeLessThanOrEqual(50);
  });
});
