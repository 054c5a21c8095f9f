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
  const col = (pick: (b: DailyBar) => number): Float64Array => {
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = pick(bars[i] as DailyBar);
    return a;
  };
  const dates = bars.map((b) => b.trade_date);
  const high = col((b) => b.high_price);
  const low = col((b) => b.low_price);
  const close = col((b) => b.close_price);
  const volume = col((b) => b.volume);
  let plain: PlainColumns | undefined;
  return {
    dates, open: col((b) => b.open_price), high, low, close, volume, value: col((b) => b.trading_value),
    index: index && index.length > 0 ? alignIndexCloses(dates, index) : null,
    window: Number.POSITIVE_INFINITY,
    today,
    plain: () => (plain ??= { high: Array.from(high), low: Array.from(low), close: Array.from(close), volume: Array.from(volume) }),
  };
}

/** All price-based indicator values of one stock on its latest bar. */
export function technicalIndicators(bars: readonly DailyBar[], index: readonly IndexBar[] | undefined, today: Today): IndicatorPatch {
  return latestBar(PRICE_KERNELS, barsOf(bars, index, today));
}
