/**
 * The rest of the per-bar price series (see bar-series.ts): MA crosses, the oscillators,
 * Bollinger bands, volatility, beta, drawdown, volume flows and the day's events. Windowed loops
 * replay the daily code's order; the oscillators, Bollinger and CMF call the daily functions on
 * the same tails the daily computation gives them (technical-values.ts), so values are equal.
 */
import { breakout, limitFlags } from '../indicators/events.js';
import { cci, mfi, psychologicalLine, slowStochastic, williamsR } from '../indicators/oscillators.js';
import { lastOf } from '../indicators/series.js';
import { bollinger, historicalVolatility } from '../indicators/volatility.js';
import { cmf } from '../indicators/volume.js';
import { fill, span, type BarContext, type BarGroup, type BarOut } from './bar-series.js';

/** The last min(window, k) values up to bar e, as the daily `tail()` gives them. */
const tail = (x: readonly number[], e: number, k: number): number[] => x.slice(e - Math.min(span(e), k) + 1, e + 1);

/** series.ts sma() (a rolling sum from the tail's first value) of c[t0..e] into `out[0..]`. */
function rollingSma(c: Float64Array, t0: number, e: number, period: number, out: Float64Array): void {
  let sum = 0;
  for (let k = 0; k <= e - t0; k++) {
    sum += c[t0 + k] as number;
    if (k >= period) sum -= c[t0 + k - period] as number;
    out[k] = k >= period - 1 ? sum / period : Number.NaN;
  }
}

const crosses: BarGroup = {
  fields: ['golden_cross_20_60', 'dead_cross_20_60'],
  run(b, out) {
    const n = b.close.length;
    const fast = new Float64Array(65);
    const slow = new Float64Array(65);
    const flags = (e: number): { golden: number; dead: number } | null => {
      const m = Math.min(span(e), 65);
      const t0 = e - m + 1;
      if (m - 5 < 1) return null;
      rollingSma(b.close, t0, e, 20, fast);
      rollingSma(b.close, t0, e, 60, slow);
      let golden = 0;
      let dead = 0;
      for (let t = m - 5; t < m; t++) {
        const f0 = fast[t - 1] as number;
        const s0 = slow[t - 1] as number;
        const f1 = fast[t] as number;
        const s1 = slow[t] as number;
        if (Number.isNaN(f0) || Number.isNaN(s0) || Number.isNaN(f1) || Number.isNaN(s1)) return null;
        if (f0 <= s0 && f1 > s1) golden = 1;
        if (f0 >= s0 && f1 < s1) dead = 1;
      }
      return { golden, dead };
    };
    fill(out, 'golden_cross_20_60', n, (e) => flags(e)?.golden ?? null);
    fill(out, 'dead_cross_20_60', n, (e) => flags(e)?.dead ?? null);
  },
};

const oscillators: BarGroup = {
  fields: ['stoch_k', 'stoch_d', 'williams_r_14', 'cci_20', 'mfi_14', 'psy_10'],
  run(b, out) {
    const n = b.close.length;
    const p = b.plain();
    const stoch = (e: number) => slowStochastic(tail(p.high, e, 18), tail(p.low, e, 18), tail(p.close, e, 18), 14, 3, 3);
    if (out.has('stoch_k')) fill(out, 'stoch_k', n, (e) => lastOf(stoch(e).k));
    if (out.has('stoch_d')) fill(out, 'stoch_d', n, (e) => lastOf(stoch(e).d));
    if (out.has('williams_r_14')) fill(out, 'williams_r_14', n, (e) => lastOf(williamsR(tail(p.high, e, 14), tail(p.low, e, 14), tail(p.close, e, 14), 14)));
    if (out.has('cci_20')) fill(out, 'cci_20', n, (e) => lastOf(cci(tail(p.high, e, 20), tail(p.low, e, 20), tail(p.close, e, 20), 20)));
    if (out.has('mfi_14')) {
      fill(out, 'mfi_14', n, (e) => lastOf(mfi(tail(p.high, e, 15), tail(p.low, e, 15), tail(p.close, e, 15), tail(p.volume, e, 15), 14)));
    }
    if (out.has('psy_10')) fill(out, 'psy_10', n, (e) => lastOf(psychologicalLine(tail(p.close, e, 11), 10)));
  },
};

/** volatility.ts beta(closes, indexCloses, 250, 120) over the window ending at e. */
function betaAt(c: Float64Array, idx: Float64Array, e: number, xs: Float64Array, ys: Float64Array): number | null {
  const s = e - span(e) + 1;
  let k = 0;
  for (let g = s + Math.max(1, span(e) - 250); g <= e; g++) {
    const c0 = c[g - 1] as number;
    const c1 = c[g] as number;
    const m0 = idx[g - 1] as number;
    const m1 = idx[g] as number;
    if (Number.isNaN(m0) || Number.isNaN(m1) || c0 <= 0 || m0 <= 0) continue;
    ys[k] = c1 / c0 - 1;
    xs[k++] = m1 / m0 - 1;
  }
  if (k < 120) return null;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < k; i++) {
    mx += xs[i] as number;
    my += ys[i] as number;
  }
  mx /= k;
  my /= k;
  let cov = 0;
  let varX = 0;
  for (let i = 0; i < k; i++) {
    const dx = (xs[i] as number) - mx;
    cov += dx * ((ys[i] as number) - my);
    varX += dx * dx;
  }
  return varX === 0 ? null : cov / varX;
}

/** volatility.ts maxDrawdown(closes, 252). */
function drawdownAt(c: Float64Array, e: number): number | null {
  if (span(e) < 252) return null;
  let peak = -Infinity;
  let worst = 0;
  for (let i = e - 251; i <= e; i++) {
    const v = c[i] as number;
    if (v > peak) peak = v;
    else if (peak > 0) worst = Math.min(worst, (v / peak - 1) * 100);
  }
  return worst;
}

const volatility: BarGroup = {
  fields: ['bb_upper', 'bb_lower', 'bb_percent_b', 'bb_bandwidth', 'volatility_20', 'beta_250', 'max_drawdown_1y'],
  run(b, out) {
    const n = b.close.length;
    const p = b.plain();
    if (['bb_upper', 'bb_lower', 'bb_percent_b', 'bb_bandwidth'].some((f) => out.has(f))) {
      const bands = Array.from({ length: n }, (_, e) => bollinger(tail(p.close, e, 20), 20, 2));
      fill(out, 'bb_upper', n, (e) => lastOf(bands[e]?.upper ?? []));
      fill(out, 'bb_lower', n, (e) => lastOf(bands[e]?.lower ?? []));
      fill(out, 'bb_percent_b', n, (e) => lastOf(bands[e]?.percentB ?? []));
      fill(out, 'bb_bandwidth', n, (e) => lastOf(bands[e]?.bandwidth ?? []));
    }
    if (out.has('volatility_20')) fill(out, 'volatility_20', n, (e) => historicalVolatility(tail(p.close, e, 21), 20));
    const idx = b.index;
    if (idx && out.has('beta_250')) {
      const xs = new Float64Array(250);
      const ys = new Float64Array(250);
      fill(out, 'beta_250', n, (e) => betaAt(b.close, idx, e, xs, ys));
    }
    fill(out, 'max_drawdown_1y', n, (e) => drawdownAt(b.close, e));
  },
};

/** volume.ts obvWindow(closes, volumes, 20). */
function obvAt(c: Float64Array, v: Float64Array, e: number): number | null {
  if (span(e) < 21) return null;
  let total = 0;
  for (let i = e - 19; i <= e; i++) {
    const now = c[i] as number;
    const before = c[i - 1] as number;
    if (now > before) total += v[i] as number;
    else if (now < before) total -= v[i] as number;
  }
  return total;
}

/** events.ts newHigh(highs, 251): the day's high at or above the 251 before it. */
function newHighAt(h: Float64Array, e: number): number | null {
  if (span(e) < 252) return null;
  let hh = -Infinity;
  for (let i = e - 251; i < e; i++) hh = Math.max(hh, h[i] as number);
  return (h[e] as number) >= hh ? 1 : 0;
}

const volumeEvents: BarGroup = {
  fields: ['obv', 'cmf_20', 'breakout_20', 'new_high_52w', 'limit_up', 'limit_down'],
  run(b: BarContext, out: BarOut) {
    const n = b.close.length;
    fill(out, 'obv', n, (e) => obvAt(b.close, b.volume, e));
    if (out.has('cmf_20')) {
      const p = b.plain();
      fill(out, 'cmf_20', n, (e) => lastOf(cmf(tail(p.high, e, 20), tail(p.low, e, 20), tail(p.close, e, 20), tail(p.volume, e, 20), 20)));
    }
    if (out.has('breakout_20')) {
      const p = b.plain();
      fill(out, 'breakout_20', n, (e) => breakout(tail(p.high, e, 21), tail(p.close, e, 21), 20));
    }
    fill(out, 'new_high_52w', n, (e) => newHighAt(b.high, e));
    const limits = (e: number) => limitFlags(e >= 1 ? [b.close[e - 1] as number, b.close[e] as number] : [b.close[e] as number]);
    if (out.has('limit_up')) fill(out, 'limit_up', n, (e) => limits(e).limitUp);
    if (out.has('limit_down')) fill(out, 'limit_down', n, (e) => limits(e).limitDown);
  },
};

export { crosses, oscillators, volatility, volumeEvents };
