/**
 * The daily snapshot's price indicators: one stock's bars as typed columns, every price kernel
 * (price-kernels.ts) run for the latest bar. Levels compared with "today" use the effective
 * close, which for a stock halted today is its last close; event flags are 0 for a stock halted
 * today (nothing traded).
 */
import type { DailyBar, IndexBar } from '../kernel/records.js';
import { latestBar, type Bars, type PlainColumns, type Today } from './kernel.js';
import { PRICE_KERNELS } from './price-kernels.js';
import type { IndicatorPatch } from './registry.js';

/**
 * Index closes aligned with `dates` (both oldest first) by a single merge pass:
 * the index close on the same trading date, or NaN when the index has none (or ≤ 0).
 */
export function alignIndexCloses(dates: readonly string[], index: readonly IndexBar[]): Float64Array {
  const out = new Float64Array(dates.length).fill(Number.NaN);
  let j = 0;
  for (let i = 0; i < dates.length; i++) {
    const d = dates[i] ?? '';
    while (j < index.length && (index[j]?.trade_date ?? '') < d) j++;
    const bar = index[j];
    if (bar != null && bar.trade_date === d && bar.close > 0) out[i] = bar.close;
  }
  return out;
}

/** `bars` as the kernels read them, with the whole list as the window (the caller bounds it). */
export function barsOf(bars: readonly DailyBar[], index: readonly IndexBar[] | undefined, today: Today): Bars {
  const n = bars.length;
  // One buffer for the six columns: this runs for every stock of a market.
  const buffer = new Float64Array(6 * n);
  const [open, high, low, close, volume, value] = [0, 1, 2, 3, 4, 5].map((k) => buffer.subarray(k * n, (k + 1) * n)) as [
    Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array,
  ];
  const dates: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const b = bars[i] as DailyBar;
    dates[i] = b.trade_date;
    open[i] = b.open_price;
    high[i] = b.high_price;
    low[i] = b.low_price;
    close[i] = b.close_price;
    volume[i] = b.volume;
    value[i] = b.trading_value;
  }
  let plain: PlainColumns | undefined;
  return {
    dates, open, high, low, close, volume, value,
    index: index && index.length > 0 ? alignIndexCloses(dates, index) : null,
    window: Number.POSITIVE_INFINITY,
    today,
    plain: () => (plain ??= {
      high: bars.map((b) => b.high_price), low: bars.map((b) => b.low_price),
      close: bars.map((b) => b.close_price), volume: bars.map((b) => b.volume),
    }),
  };
}

/** All price-based indicator values of one stock on its latest bar. */
export function technicalIndicators(bars: readonly DailyBar[], index: readonly IndexBar[] | undefined, today: Today): IndicatorPatch {
  return latestBar(PRICE_KERNELS, barsOf(bars, index, today));
}
