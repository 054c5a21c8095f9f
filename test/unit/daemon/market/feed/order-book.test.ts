import { describe, it, expect } from 'vitest';
import { buildOrderBook, tickDown, tickUp } from '../../../../../daemon/market/feed/order-book.js';
import { isOnTick, priceLimits } from '../../../../../daemon/kernel/tick-size.js';

const qty = () => 7;

describe('tickUp / tickDown', () => {
  it('steps across band edges with the tick of the band the next price is in', () => {
    // Below 2,000 the tick is 1 won, from 2,000 it is 5; from 50,000 it is 100, below 50.
    expect(tickDown(2_000)).toBe(1_999);
    expect(tickDown(2_005)).toBe(2_000);
    expect(tickUp(1_999)).toBe(2_000);
    expect(tickUp(2_000)).toBe(2_005);
    expect(tickDown(50_000)).toBe(49_950);
    expect(tickUp(49_950)).toBe(50_000);
    expect(tickUp(500_000)).toBe(501_000);
    expect(tickDown(1)).toBe(0);
  });
});

describe('buildOrderBook', () => {
  // prev close 70,000: width floor(21,000 / 100) × 100 = 21,000 → limits 49,000 – 91,000
  const limits = priceLimits(70_000);

  it('puts the trade at the best bid after a seller-initiated trade, 10 levels each side', () => {
    const book = buildOrderBook(71_500, { limits, quantity: qty, lastSide: 'bid' });
    expect(book.bids.map((l) => l.price)).toEqual([71_500, 71_400, 71_300, 71_200, 71_100, 71_000, 70_900, 70_800, 70_700, 70_600]);
    expect(book.asks.map((l) => l.price)).toEqual([71_600, 71_700, 71_800, 71_900, 72_000, 72_100, 72_200, 72_300, 72_400, 72_500]);
    expect(book.bids.every((l) => l.quantity === 7)).toBe(true);
  });

  it('puts the trade at the best ask after a buyer-initiated trade', () => {
    const book = buildOrderBook(71_500, { limits, quantity: qty, lastSide: 'ask' });
    expect(book.asks[0]!.price).toBe(71_500);
    expect(book.bids[0]!.price).toBe(71_400);
  });

  it('uses the grid of each level across the 2,000-won band edge', () => {
    // prev close 2,000: width floor(600 / 5) × 5 = 600 → limits 1,400 – 2,600
    const book = buildOrderBook(2_000, { limits: priceLimits(2_000), quantity: qty, lastSide: 'bid' });
    expect(book.bids.map((l) => l.price)).toEqual([2_000, 1_999, 1_998, 1_997, 1_996, 1_995, 1_994, 1_993, 1_992, 1_991]);
    expect(book.asks.map((l) => l.price)).toEqual([2_005, 2_010, 2_015, 2_020, 2_025, 2_030, 2_035, 2_040, 2_045, 2_050]);
  });

  it('has no asks at the upper limit and no bids at the lower limit', () => {
    const up = buildOrderBook(91_000, { limits, quantity: qty });
    expect(up.asks).toEqual([]);
    expect(up.bids.map((l) => l.price).slice(0, 3)).toEqual([91_000, 90_900, 90_800]);
    const down = buildOrderBook(49_000, { limits, quantity: qty });
    expect(down.bids).toEqual([]);
    // 49,000 is in the 50-won band
    expect(down.asks.map((l) => l.price).slice(0, 3)).toEqual([49_000, 49_050, 49_100]);
  });

  it('stops at the limit when fewer than 10 levels fit', () => {
    const book = buildOrderBook(90_800, { limits, quantity: qty, lastSide: 'bid' });
    expect(book.asks.map((l) => l.price)).toEqual([90_900, 91_000]);
  });

  it('keeps every level on the grid, inside the limits, and every bid below every ask', () => {
    const lim = priceLimits(4_990); // a base near the 5,000 edge
    const problems: string[] = [];
    for (let p = lim.lower; p <= lim.upper; p = tickUp(p)) {
      for (const lastSide of ['bid', 'ask'] as const) {
        const { bids, asks } = buildOrderBook(p, { limits: lim, quantity: qty, lastSide });
        const prices = [...bids, ...asks].map((l) => l.price);
        if (!prices.every(isOnTick)) problems.push(`${p}/${lastSide}: off grid`);
        if (!prices.every((x) => x >= lim.lower && x <= lim.upper)) problems.push(`${p}/${lastSide}: outside limits`);
        if (bids.length && asks.length && bids[0]!.price >= asks[0]!.price) problems.push(`${p}/${lastSide}: crossed`);
        if (bids.some((l, i) => i > 0 && l.price >= bids[i - 1]!.price)) problems.push(`${p}/${lastSide}: bids not descending`);
        if (asks.some((l, i) => i > 0 && l.price <= asks[i - 1]!.price)) problems.push(`${p}/${lastSide}: asks not ascending`);
        if (bids.length + asks.length < 10) problems.push(`${p}/${lastSide}: too few levels`);
      }
    }
    expect(problems).toEqual([]);
  });
});
