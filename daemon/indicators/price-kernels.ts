/**
 * The registry of price indicators: every price field of the indicator registry is written by
 * exactly one kernel here (tested), and both the daily snapshot (technical-values.ts) and the
 * as-of series (history/field-series.ts) run these kernels, so an indicator is defined once.
 * This file holds the day's bar, the averages and the returns; price-kernels-more.ts the
 * chains, oscillators, volatility, volume and events. Levels compared with "today" (close,
 * distances, returns, ATR %) use `closeOn`, the effective close of a stock halted today.
 */
import { closeOn, fill, num, span, val, type Bars, type PriceKernel } from './kernel.js';
import { atrKernel, crossKernel, dmiKernel, macdKernel, oscillatorKernel, rsiKernel, volatilityKernel, volumeEventKernel } from './price-kernels-more.js';
import { DAYS_52W, RETURN_WINDOWS, lastDateBefore, momentum, periodReturn, relativeStrength, windowMax, windowMin, yearStart } from './returns.js';
import { pctChange, safeDiv, windowMean } from './series.js';
import { maAlignment } from './trend.js';
import { meanBeforeLast } from './volume.js';

const DAY_FIELDS = ['close', 'open', 'high', 'low', 'change', 'change_percent', 'volume', 'trading_value',
  'avg_volume_20', 'avg_trading_value_20', 'relative_volume'] as const;

const dayKernel: PriceKernel = {
  fields: DAY_FIELDS,
  chain: false,
  // One loop writing every wanted field of a bar: these are read by most screens, on every bar.
  run(b, start, from, to, out) {
    const halted = b.today?.halted ?? false;
    const [close, open, high, low, change, changePct, volume, value, avgVolume, avgValue, relVolume] = DAY_FIELDS.map((f) => out.cols.get(f));
    const mean = (x: Float64Array, e: number, w: number): number | null => (span(b, start, e) < w ? null : windowMean(x, w, e + 1));
    for (let e = from; e <= to; e++) {
      const k = e - out.base;
      const c = closeOn(b, e);
      const prev = halted ? c : e > start ? val(b.close[e - 1]) : null;
      const vol = halted ? (c == null ? null : 0) : val(b.volume[e]);
      const ch = c == null || prev == null ? null : c - prev;
      if (close) close[k] = num(c);
      if (open) open[k] = halted ? Number.NaN : num(b.open[e]);
      if (high) high[k] = halted ? Number.NaN : num(b.high[e]);
      if (low) low[k] = halted ? Number.NaN : num(b.low[e]);
      if (change) change[k] = num(ch);
      if (changePct) changePct[k] = num(ch == null ? null : safeDiv(ch * 100, prev));
      if (volume) volume[k] = num(vol);
      if (value) value[k] = num(halted ? vol : val(b.value[e]));
      if (avgVolume) avgVolume[k] = num(mean(b.volume, e, 20));
      if (avgValue) avgValue[k] = num(mean(b.value, e, 20));
      // Halted today, the last 20 bars all precede today; otherwise the 20 before the day's own.
      if (relVolume) {
        const before = halted ? mean(b.volume, e, 20) : span(b, start, e) < 21 ? null : meanBeforeLast(b.volume, 20, e + 1);
        relVolume[k] = num(safeDiv(vol, before));
      }
    }
  },
};

const SMA_PERIODS = [5, 20, 60, 120, 200] as const;

const averageKernel: PriceKernel = {
  fields: ['sma_5', 'sma_20', 'sma_60', 'sma_120', 'sma_200', 'dist_sma_20', 'dist_sma_60', 'dist_sma_200', 'disparity_20', 'ma_alignment'],
  chain: false,
  run(b, start, from, to, out) {
    const sma = (e: number, w: number): number | null => (span(b, start, e) < w ? null : windowMean(b.close, w, e + 1));
    for (const w of SMA_PERIODS) fill(out, `sma_${w}`, from, to, (e) => sma(e, w));
    for (const w of [20, 60, 200]) fill(out, `dist_sma_${w}`, from, to, (e) => pctChange(closeOn(b, e), sma(e, w)));
    fill(out, 'disparity_20', from, to, (e) => {
      const d = safeDiv(closeOn(b, e), sma(e, 20));
      return d == null ? null : d * 100;
    });
    fill(out, 'ma_alignment', from, to, (e) => maAlignment([sma(e, 5), sma(e, 20), sma(e, 60), sma(e, 120)]));
  },
};

/** For each bar from..to, the last bar of the window dated before the year of "today" (−1: none). */
function yearBases(b: Bars, start: number, from: number, to: number): Int32Array {
  const out = new Int32Array(to - from + 1).fill(-1);
  let j = start - 1;
  for (let e = from; e <= to; e++) {
    j = lastDateBefore(b.dates, yearStart(b.today?.asOf ?? b.dates[e] ?? ''), j, e + 1);
    if (j >= e - span(b, start, e) + 1) out[e - from] = j;
  }
  return out;
}

const returnKernel: PriceKernel = {
  fields: ['return_1w', 'return_1m', 'return_3m', 'return_6m', 'return_12m', 'return_ytd', 'momentum_12_1',
    'high_52w', 'low_52w', 'dist_52w_high', 'dist_52w_low', 'rs_3m', 'rs_12m'],
  chain: false,
  run(b, start, from, to, out) {
    const c = b.close;
    const enough = (e: number, bars: number): boolean => span(b, start, e) >= bars;
    for (const [id, d] of Object.entries(RETURN_WINDOWS)) {
      fill(out, id, from, to, (e) => (enough(e, d + 1) ? periodReturn(c, d, closeOn(b, e) ?? undefined, e + 1) : null));
    }
    if (out.cols.has('return_ytd')) {
      const base = yearBases(b, start, from, to);
      fill(out, 'return_ytd', from, to, (e) => {
        const j = base[e - from] as number;
        return j >= 0 ? pctChange(closeOn(b, e), c[j]) : null;
      });
    }
    fill(out, 'momentum_12_1', from, to, (e) => (enough(e, 253) ? momentum(c, 252, 21, e + 1) : null));
    const high = (e: number): number | null => (enough(e, DAYS_52W) ? windowMax(b.high, DAYS_52W, e + 1) : null);
    const low = (e: number): number | null => (enough(e, DAYS_52W) ? windowMin(b.low, DAYS_52W, e + 1) : null);
    fill(out, 'high_52w', from, to, high);
    fill(out, 'low_52w', from, to, low);
    fill(out, 'dist_52w_high', from, to, (e) => pctChange(closeOn(b, e), high(e)));
    fill(out, 'dist_52w_low', from, to, (e) => pctChange(closeOn(b, e), low(e)));
    const idx = b.index;
    const rs = (e: number, d: number): number | null => (idx && enough(e, d + 1) ? relativeStrength(c, idx, d, e + 1) : null);
    fill(out, 'rs_3m', from, to, (e) => rs(e, RETURN_WINDOWS.return_3m));
    fill(out, 'rs_12m', from, to, (e) => rs(e, RETURN_WINDOWS.return_12m));
  },
};

/** Every price indicator kernel; a new price indicator is one more kernel (or field of one) here. */
export const PRICE_KERNELS: readonly PriceKernel[] = [
  dayKernel, averageKernel, returnKernel, macdKernel, dmiKernel, rsiKernel, atrKernel, crossKernel,
  oscillatorKernel, volatilityKernel, volumeEventKernel,
];

/** Every field the price kernels write. */
export const PRICE_FIELDS: readonly string[] = PRICE_KERNELS.flatMap((k) => k.fields);
