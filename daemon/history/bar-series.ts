/**
 * Per-bar series of the price indicators: for one stock, each field's value on every
 * bar e as the daily computation (indicators/technical-values.ts) gives it over the last WINDOW
 * bars up to e, on a day the stock traded (not halted). Each group replays the daily code's
 * arithmetic in its order over the same bars, so the values are EQUAL, not just close:
 * - windowed sums (SMA, averages, OBV, drawdown, beta...) sum the same window in the same order,
 *   O(bars × window) with small windows; maxima use a loop or the same rolling maximum;
 * - chains (EMA/MACD, RSI, ATR, DMI) run chain-kernels.ts, seeded where the daily window starts;
 * - the rarer oscillators, Bollinger and CMF call the daily functions on the same tails.
 * Values are NaN where the daily computation gives null.
 */
import { DAYS_52W, RETURN_WINDOWS } from '../indicators/returns.js';
import { pctChange, safeDiv } from '../indicators/series.js';
import { maAlignment } from '../indicators/trend.js';
import { WINDOW, atrKernel, dmiKernel, macdKernel, rsiKernel, runChain } from './chain-kernels.js';
import type { OhlcvColumns } from './market-history.js';

/** One stock's bars as the series need them. */
export interface BarContext extends OhlcvColumns {
  /** Trade date of each bar (YYYY-MM-DD). */
  readonly dates: readonly string[];
  /** The market index close on each bar's date (NaN: none); null without index data. */
  readonly index: Float64Array | null;
  /** Plain copies for the groups that call the daily functions (made on first use). */
  plain(): { high: number[]; low: number[]; close: number[]; volume: number[] };
}

/** Wanted outputs: field → per-bar values (filled with NaN). */
export type BarOut = ReadonlyMap<string, Float64Array>;

/** A group of fields computed in one pass. */
export interface BarGroup {
  readonly fields: readonly string[];
  run(b: BarContext, out: BarOut): void;
}

export const num = (v: number | null | undefined): number => (v != null && Number.isFinite(v) ? v : Number.NaN);
export const val = (v: number): number | null => (Number.isNaN(v) ? null : v);
/** Bars in the daily window ending at e. */
export const span = (e: number): number => Math.min(e + 1, WINDOW);

/** windowMean: the mean of the `w` values ending at e, summed from the oldest; NaN with fewer in the window. */
function meanAt(x: Float64Array, e: number, w: number): number {
  if (span(e) < w) return Number.NaN;
  let sum = 0;
  for (let i = e - w + 1; i <= e; i++) sum += x[i] as number;
  return sum / w;
}

/** Call `fn(e)` for every bar and store what it returns for the wanted field. */
export function fill(out: BarOut, field: string, n: number, fn: (e: number) => number | null): void {
  const a = out.get(field);
  if (a) for (let e = 0; e < n; e++) a[e] = num(fn(e));
}

const day: BarGroup = {
  fields: ['close', 'open', 'high', 'low', 'change', 'change_percent', 'volume', 'trading_value'],
  run(b, out) {
    const n = b.close.length;
    const prev = (e: number) => (e >= 1 ? (b.close[e - 1] as number) : null);
    const change = (e: number) => {
      const p = prev(e);
      return p == null ? null : (b.close[e] as number) - p;
    };
    fill(out, 'close', n, (e) => b.close[e] as number);
    fill(out, 'open', n, (e) => b.open[e] as number);
    fill(out, 'high', n, (e) => b.high[e] as number);
    fill(out, 'low', n, (e) => b.low[e] as number);
    fill(out, 'change', n, change);
    fill(out, 'change_percent', n, (e) => {
      const c = change(e);
      return c == null ? null : safeDiv(c * 100, prev(e));
    });
    fill(out, 'volume', n, (e) => b.volume[e] as number);
    fill(out, 'trading_value', n, (e) => b.value[e] as number);
  },
};

const averages: BarGroup = {
  fields: ['avg_volume_20', 'avg_trading_value_20', 'relative_volume', 'sma_5', 'sma_20', 'sma_60', 'sma_120', 'sma_200',
    'dist_sma_20', 'dist_sma_60', 'dist_sma_200', 'disparity_20', 'ma_alignment'],
  run(b, out) {
    const n = b.close.length;
    const c = b.close;
    fill(out, 'avg_volume_20', n, (e) => val(meanAt(b.volume, e, 20)));
    fill(out, 'avg_trading_value_20', n, (e) => val(meanAt(b.value, e, 20)));
    // meanBeforeLast: the 20 volumes before the day's.
    fill(out, 'relative_volume', n, (e) => (span(e) < 21 ? null : safeDiv(b.volume[e], val(meanAt(b.volume, e - 1, 20)))));
    for (const w of [5, 20, 60, 120, 200]) fill(out, `sma_${w}`, n, (e) => val(meanAt(c, e, w)));
    for (const w of [20, 60, 200]) fill(out, `dist_sma_${w}`, n, (e) => pctChange(c[e], val(meanAt(c, e, w))));
    fill(out, 'disparity_20', n, (e) => {
      const d = safeDiv(c[e], val(meanAt(c, e, 20)));
      return d == null ? null : d * 100;
    });
    fill(out, 'ma_alignment', n, (e) => maAlignment([5, 20, 60, 120].map((w) => val(meanAt(c, e, w)))));
  },
};

/** The last bar index before the year of bar e starts, for every bar (-1: none). */
function lastBeforeYear(dates: readonly string[]): Int32Array {
  const out = new Int32Array(dates.length).fill(-1);
  let j = -1;
  for (let e = 0; e < dates.length; e++) {
    const start = `${(dates[e] ?? '').slice(0, 4)}-01-01`;
    while (j + 1 < e && (dates[j + 1] ?? '') < start) j++;
    out[e] = j >= 0 && (dates[j] ?? '') < start ? j : -1;
  }
  return out;
}

const returns: BarGroup = {
  fields: ['return_1w', 'return_1m', 'return_3m', 'return_6m', 'return_12m', 'return_ytd', 'momentum_12_1',
    'high_52w', 'low_52w', 'dist_52w_high', 'dist_52w_low', 'rs_3m', 'rs_12m'],
  run(b, out) {
    const n = b.close.length;
    const c = b.close;
    const ret = (e: number, d: number) => (span(e) < d + 1 ? null : pctChange(c[e], c[e - d]));
    for (const [id, d] of Object.entries(RETURN_WINDOWS)) fill(out, id, n, (e) => ret(e, d));
    const ytd = out.has('return_ytd') ? lastBeforeYear(b.dates) : null;
    fill(out, 'return_ytd', n, (e) => {
      const j = ytd?.[e] ?? -1;
      return j >= 0 && j >= e - WINDOW + 1 ? pctChange(c[e], c[j]) : null;
    });
    fill(out, 'momentum_12_1', n, (e) => (span(e) < 253 ? null : pctChange(c[e - 21], c[e - 252])));
    const extreme = (x: Float64Array, e: number, sign: 1 | -1): number | null => {
      if (span(e) < DAYS_52W) return null;
      let best = sign * -Infinity;
      for (let i = e - DAYS_52W + 1; i <= e; i++) best = sign === 1 ? Math.max(best, x[i] as number) : Math.min(best, x[i] as number);
      return best;
    };
    fill(out, 'high_52w', n, (e) => extreme(b.high, e, 1));
    fill(out, 'low_52w', n, (e) => extreme(b.low, e, -1));
    fill(out, 'dist_52w_high', n, (e) => pctChange(c[e], extreme(b.high, e, 1)));
    fill(out, 'dist_52w_low', n, (e) => pctChange(c[e], extreme(b.low, e, -1)));
    const idx = b.index;
    const rs = (e: number, d: number) => {
      if (!idx || span(e) < d + 1) return null;
      const stock = pctChange(c[e], c[e - d]);
      const market = pctChange(val(idx[e] as number), val(idx[e - d] as number));
      return stock == null || market == null ? null : stock - market;
    };
    fill(out, 'rs_3m', n, (e) => rs(e, RETURN_WINDOWS.return_3m));
    fill(out, 'rs_12m', n, (e) => rs(e, RETURN_WINDOWS.return_12m));
  },
};

const macdGroup: BarGroup = {
  fields: ['ema_12', 'ema_26', 'macd', 'macd_signal', 'macd_histogram'],
  run(b, out) {
    runChain(b, macdKernel, { ema12: out.get('ema_12'), ema26: out.get('ema_26'), macd: out.get('macd'), signal: out.get('macd_signal'), histogram: out.get('macd_histogram') });
  },
};

const dmiGroup: BarGroup = {
  fields: ['adx_14', 'plus_di_14', 'minus_di_14'],
  run(b, out) {
    runChain(b, dmiKernel, { adx: out.get('adx_14'), plusDi: out.get('plus_di_14'), minusDi: out.get('minus_di_14') });
  },
};

const rsiGroup: BarGroup = {
  fields: ['rsi_14'],
  run(b, out) {
    const a = out.get('rsi_14');
    if (a) runChain(b, rsiKernel, a);
  },
};

const atrGroup: BarGroup = {
  fields: ['atr_14', 'atr_percent'],
  run(b, out) {
    const atr = new Float64Array(b.close.length).fill(Number.NaN);
    runChain(b, atrKernel, atr);
    out.get('atr_14')?.set(atr);
    fill(out, 'atr_percent', atr.length, (e) => {
      const r = safeDiv(val(atr[e] as number), b.close[e]);
      return r == null ? null : r * 100;
    });
  },
};

export { day, averages, returns, macdGroup, dmiGroup, rsiGroup, atrGroup };
