/**
 * The price kernels are the one definition of each price indicator: run for every bar (the
 * as-of series) they give, on each bar, exactly what the daily snapshot gives over the bars up
 * to it, for random bar series; and every price field of the registry has exactly one kernel.
 */
import { describe, expect, it } from 'vitest';
import { computeStockIndicators, type StockSeries } from '../../../../daemon/indicators/compute.js';
import { everyBar, WINDOW, type Bars } from '../../../../daemon/indicators/kernel.js';
import { PRICE_FIELDS, PRICE_KERNELS } from '../../../../daemon/indicators/price-kernels.js';
import { INDICATORS } from '../../../../daemon/indicators/registry.js';
import { barsOf } from '../../../../daemon/indicators/technical-values.js';
import type { DailyBar, IndexBar } from '../../../../daemon/kernel/records.js';
import { createRng } from '../../../../loaders/sample/prng.js';

/**
 * `n` bars of a random walk over dates with gaps (crossing year ends), with the cases the
 * indicators branch on: flat bars (high = low), unchanged closes, ±30% limit days, zero volume.
 */
function randomBars(rnd: () => number, n: number): DailyBar[] {
  let t = Date.parse('2021-10-01T00:00:00Z') + Math.floor(rnd() * 200) * 86_400_000;
  let close = 1_000 + Math.round(rnd() * 90_000);
  const bars: DailyBar[] = [];
  for (let i = 0; i < n; i++) {
    t += (1 + Math.floor(rnd() * 3)) * 86_400_000;
    const u = rnd();
    if (u < 0.03) close = Math.floor(close * 1.3);
    else if (u < 0.06) close = Math.ceil(close * 0.7);
    else if (u > 0.1) close = Math.max(1, Math.round(close * (1 + (rnd() - 0.5) * 0.08)));
    const flat = rnd() < 0.05;
    const high = flat ? close : close + Math.round(rnd() * close * 0.03);
    const low = flat ? close : Math.max(1, close - Math.round(rnd() * close * 0.03));
    const volume = rnd() < 0.05 ? 0 : Math.round(rnd() * 1e6);
    bars.push({
      stock_code: '000001', trade_date: new Date(t).toISOString().slice(0, 10), open_price: low + Math.round((high - low) * rnd()),
      high_price: high, low_price: low, close_price: close, volume, trading_value: volume * close, market_cap: null, shares_outstanding: null,
    });
  }
  return bars;
}

/** An index on the bars' dates, missing on some of them. */
function randomIndex(rnd: () => number, bars: readonly DailyBar[]): IndexBar[] {
  let level = 2_000;
  return bars.flatMap((b) => {
    level *= 1 + (rnd() - 0.5) * 0.03;
    if (rnd() < 0.05) return [];
    return [{ market: 'KOSPI', trade_date: b.trade_date, open: null, high: null, low: null, close: level, volume: null, trading_value: null }];
  });
}

/** The daily snapshot of the bars up to e (the last WINDOW of them), a trading day. */
function dailyAt(bars: readonly DailyBar[], index: IndexBar[] | undefined, e: number): Record<string, number | null> {
  const stock: StockSeries = {
    code: '000001', market: 'KOSPI', bars: bars.slice(Math.max(0, e - WINDOW + 1), e + 1), financials: [],
    shares_outstanding: null, last_close: null, halted: false,
  };
  return computeStockIndicators(stock, index, bars[e]?.trade_date ?? '');
}

describe('price kernels', () => {
  it('give on every bar what the daily snapshot gives on that day, bit for bit (random series)', () => {
    const differences: string[] = [];
    let compared = 0;
    for (let seed = 1; seed <= 40; seed++) {
      // A seeded source, so a failure names a reproducible seed.
      const rng = createRng(seed, 'price-kernels');
      const rnd = (): number => rng.next();
      // Lengths on both sides of the window (300) and of the longest lookbacks (252, 253).
      const n = seed <= 4 ? [1, 2, 15, 253][seed - 1] as number : 1 + Math.floor(rnd() * 420);
      const bars = randomBars(rnd, n);
      const index = seed % 5 === 0 ? undefined : randomIndex(rnd, bars);
      const b: Bars = { ...barsOf(bars, index, { close: null, halted: false, asOf: '' }), window: WINDOW, today: null };
      const cols = new Map(PRICE_FIELDS.map((f) => [f, new Float64Array(n).fill(Number.NaN)]));
      everyBar(PRICE_KERNELS, b, cols);
      // The latest bar, and a few others (each is the latest bar of its own day).
      const days = new Set([n - 1, ...Array.from({ length: 4 }, () => Math.floor(rnd() * n))]);
      for (const e of days) {
        const daily = dailyAt(bars, index, e);
        for (const f of PRICE_FIELDS) {
          const v = cols.get(f)?.[e] as number;
          const series = Number.isNaN(v) ? null : v;
          compared++;
          if (!Object.is(series, daily[f])) differences.push(`seed ${seed}, bar ${e} of ${n}, ${f}: series ${series}, daily ${daily[f]}`);
        }
      }
    }
    expect(differences.slice(0, 10)).toEqual([]);
    expect(compared).toBeGreaterThan(40 * PRICE_FIELDS.length);
  });

  it('write every price field of the registry, each in exactly one kernel', () => {
    const fromStatements = new Set(['market_cap', 'shares_outstanding', 'turnover']);
    const categories = new Set(['price', 'returns', 'trend', 'oscillator', 'volatility', 'volume', 'event']);
    const priceIds = INDICATORS.filter((d) => categories.has(d.category) && !fromStatements.has(d.id)).map((d) => d.id);
    expect([...PRICE_FIELDS].sort()).toEqual([...priceIds].sort());
    expect(new Set(PRICE_FIELDS).size).toBe(PRICE_FIELDS.length);
  });
});
