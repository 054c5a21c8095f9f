/**
 * The recursive ("chain") indicators — EMA/MACD, Wilder's RSI, ATR and DMI/ADX — as one tight
 * loop each over typed columns. Each runs the chain that starts at bar `s` up to bar `to` and
 * writes bars ≥ `from` at index `bar − base` of its outputs (NaN = null). A chain's value
 * depends on where it starts (EMA 26 keeps (25/27)^k of its seed), which is why the as-of series
 * restart it on each bar's own window (kernel.ts) instead of running it once. The series
 * functions (trend.ts macd and directionalMovement, oscillators.ts rsi, volatility.ts atr) run
 * these same loops over a whole input, so there is one implementation of each.
 */

/** The price columns a chain reads, oldest first. */
export interface ChainBars {
  readonly high: ArrayLike<number>;
  readonly low: ArrayLike<number>;
  readonly close: ArrayLike<number>;
}

/** MACD outputs (each may be absent). */
export interface MacdOut {
  fastEma?: Float64Array;
  slowEma?: Float64Array;
  macd?: Float64Array;
  signal?: Float64Array;
  histogram?: Float64Array;
}

/** MACD periods. */
export interface MacdPeriods {
  fast: number;
  slow: number;
  signal: number;
}

/**
 * MACD: EMA(fast) − EMA(slow) of closes, signal = EMA(signal) of that line, each EMA seeded
 * with the simple average of its first `period` values (α = 2 / (period + 1)); the line is
 * null until both averages exist, and a null line restarts the signal's seed.
 */
export function macdChain(b: ChainBars, p: MacdPeriods, s: number, from: number, to: number, out: MacdOut, base = 0): void {
  const c = b.close;
  const af = 2 / (p.fast + 1);
  const as = 2 / (p.slow + 1);
  const ag = 2 / (p.signal + 1);
  // NaN, not null, marks "no value yet": a variable that holds only doubles stays unboxed.
  let pf = Number.NaN;
  let sf = 0;
  let cf = 0;
  let ps = Number.NaN;
  let ss = 0;
  let cs = 0;
  let pg = Number.NaN;
  let sg = 0;
  let cg = 0;
  for (let j = s; j <= to; j++) {
    const v = c[j] as number;
    let f = Number.NaN;
    if (Number.isNaN(pf)) {
      sf += v;
      cf++;
      if (cf === p.fast) f = pf = sf / p.fast;
    } else f = pf = (v - pf) * af + pf;
    let sl = Number.NaN;
    if (Number.isNaN(ps)) {
      ss += v;
      cs++;
      if (cs === p.slow) sl = ps = ss / p.slow;
    } else sl = ps = (v - ps) * as + ps;
    const line = Number.isNaN(f) || Number.isNaN(sl) ? Number.NaN : f - sl;
    let sig = Number.NaN;
    if (Number.isNaN(line)) {
      pg = Number.NaN;
      sg = 0;
      cg = 0;
    } else if (Number.isNaN(pg)) {
      sg += line;
      cg++;
      if (cg === p.signal) sig = pg = sg / p.signal;
    } else sig = pg = (line - pg) * ag + pg;
    if (j < from) continue;
    const k = j - base;
    if (out.fastEma) out.fastEma[k] = f;
    if (out.slowEma) out.slowEma[k] = sl;
    if (out.macd) out.macd[k] = line;
    if (out.signal) out.signal[k] = sig;
    if (out.histogram) out.histogram[k] = Number.isNaN(line) || Number.isNaN(sig) ? Number.NaN : line - sig;
  }
}

/**
 * Relative Strength Index with Wilder smoothing: the first value sits `period` bars after the
 * start (it needs `period` price changes); 100 when the average loss is 0 and the average gain
 * positive; null (NaN) when both are 0.
 */
export function rsiChain(b: ChainBars, period: number, s: number, from: number, to: number, out: Float64Array, base = 0): void {
  const c = b.close;
  let gain = 0;
  let loss = 0;
  for (let j = s + 1; j <= to; j++) {
    const i = j - s;
    const change = (c[j] as number) - (c[j - 1] as number);
    const g = change > 0 ? change : 0;
    const l = change < 0 ? -change : 0;
    if (i < period) {
      gain += g;
      loss += l;
      continue;
    }
    if (i === period) {
      gain = (gain + g) / period;
      loss = (loss + l) / period;
    } else {
      gain = (gain * (period - 1) + g) / period;
      loss = (loss * (period - 1) + l) / period;
    }
    if (j >= from) out[j - base] = loss === 0 ? (gain === 0 ? Number.NaN : 100) : 100 - 100 / (1 + gain / loss);
  }
}

/**
 * Average True Range (Wilder): the first value, `period − 1` bars after the start, is the mean
 * of the first `period` true ranges (the first bar has no previous close, so its TR is
 * high − low); then ATR = (previous × (period − 1) + TR) / period.
 */
export function atrChain(b: ChainBars, period: number, s: number, from: number, to: number, out: Float64Array, base = 0): void {
  const { high: h, low: l, close: c } = b;
  let sum = 0;
  let avg = 0;
  for (let j = s; j <= to; j++) {
    const i = j - s;
    const hj = h[j] as number;
    const lj = l[j] as number;
    const t = i === 0 ? hj - lj : Math.max(hj - lj, Math.abs(hj - (c[j - 1] as number)), Math.abs(lj - (c[j - 1] as number)));
    if (i < period - 1) {
      sum += t;
      continue;
    }
    if (i === period - 1) {
      sum += t;
      avg = sum / period;
    } else avg = (avg * (period - 1) + t) / period;
    if (j >= from) out[j - base] = avg;
  }
}

/** The directional movement period (Wilder's). */
export const DMI_PERIOD = 14;

/** DMI outputs (each may be absent). */
export interface DmiOut {
  plusDi?: Float64Array;
  minusDi?: Float64Array;
  adx?: Float64Array;
}

/**
 * Wilder's directional movement system. TR, +DM and −DM start on the second bar; their Wilder
 * sums (seeded with plain sums of `period` values) first exist `period` bars after the start;
 * ADX, the Wilder average of DX, first exists 2·period − 1 bars after it. A zero true-range
 * sum gives null DIs and a DX of 0. The period is Wilder's 14 written as a literal: with the
 * period passed in, or read from a module constant, V8 ran this loop about twice as slowly
 * (measured), unlike the other chains.
 */
export function dmiChain(b: ChainBars, s: number, from: number, to: number, out: DmiOut, base = 0): void {
  const { high: hs, low: ls, close: cs } = b;
  const P = 14; // DMI_PERIOD
  let tr = 0;
  let plus = 0;
  let minus = 0;
  let dxSum = 0;
  let dxCount = 0;
  let adxPrev = Number.NaN;
  for (let j = s + 1; j <= to; j++) {
    const i = j - s;
    const h = hs[j] as number;
    const l = ls[j] as number;
    const pc = cs[j - 1] as number;
    const t = Math.max(h - l, Math.abs(h - pc), Math.abs(l - pc));
    const up = h - (hs[j - 1] as number);
    const down = (ls[j - 1] as number) - l;
    const p = up > down && up > 0 ? up : 0;
    const m = down > up && down > 0 ? down : 0;
    if (i <= P) {
      tr += t;
      plus += p;
      minus += m;
      if (i < P) continue;
    } else {
      tr += t - tr / P;
      plus += p - plus / P;
      minus += m - minus / P;
    }
    let dx = 0;
    let pdi = Number.NaN;
    let mdi = Number.NaN;
    if (tr > 0) {
      pdi = (100 * plus) / tr;
      mdi = (100 * minus) / tr;
      if (pdi + mdi > 0) dx = (100 * Math.abs(pdi - mdi)) / (pdi + mdi);
    }
    if (Number.isNaN(adxPrev)) {
      dxSum += dx;
      dxCount++;
      if (dxCount === P) adxPrev = dxSum / P;
    } else adxPrev = (adxPrev * (P - 1) + dx) / P;
    if (j < from) continue;
    const k = j - base;
    if (out.plusDi) out.plusDi[k] = pdi;
    if (out.minusDi) out.minusDi[k] = mdi;
    if (out.adx) out.adx[k] = adxPrev;
  }
}

/** A whole-input chain's output as a Series (NaN → null). */
export function seriesOf(values: Float64Array): (number | null)[] {
  return Array.from(values, (v) => (Number.isNaN(v) ? null : v));
}

/** n NaNs. */
export const nanArray = (n: number): Float64Array => new Float64Array(n).fill(Number.NaN);
