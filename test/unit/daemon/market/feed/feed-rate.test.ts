import { describe, expect, it } from 'vitest';
import { stepShare } from '../../../../../daemon/market/feed/feed.js';
import { createSimulator } from '../../../../../daemon/market/feed/simulator.js';
import type { FeedStock } from '../../../../../daemon/market/feed/types.js';

const stocks: FeedStock[] = Array.from({ length: 20 }, (_, i) => ({ code: `2000${String(i).padStart(2, '0')}`, name: `S${i}`, market: 'KOSDAQ', sector: null, prev_close: 10_000 }));
const OPEN = Date.parse('2026-03-09T09:00:00+09:00');

/** Price events per stock per second over `seconds` of steps every `intervalMs` at `rate`. */
function measuredRate(intervalMs: number, rate: number, seconds: number): number {
  const sim = createSimulator({ stocks, seed: 3, share: stepShare(intervalMs, rate), orderBooks: false });
  let n = 0;
  for (let t = 0; t < seconds * 1000; t += intervalMs) n += sim.step(OPEN + t).length;
  return n / stocks.length / seconds;
}

describe('feed_updates_per_stock_per_s', () => {
  it('Given a rate and an interval, when converted, then the share per step is rate × interval', () => {
    expect(stepShare(1000, 1)).toBe(1);
    expect(stepShare(100, 1)).toBeCloseTo(0.1);
    expect(stepShare(1000, 4)).toBe(4);
    expect(stepShare(250, 2)).toBe(0.5);
  });

  it.each([
    [1000, 1],
    [100, 1],
    [100, 5],
    [1000, 4],
    [50, 0.5],
  ])('Given steps every %i ms at %f updates per stock per second, when simulated, then each stock trades at that rate', (intervalMs, rate) => {
    expect(measuredRate(intervalMs, rate, 20)).toBeCloseTo(rate, 1);
  });
});
