/**
 * The recursive ("chain") indicators of the daily computation — EMA/MACD, Wilder's RSI, ATR and
 * DMI/ADX — over typed columns, for as-of series. The daily computation reads the last
 * WINDOW bars and seeds each chain at the first of them, so a chain's value on bar e depends on
 * where its window starts: a chain run once over the whole history differs from it by up to
 * ~1e-9 relative (EMA 26: (25/27)^274). To give EQUAL values these kernels replay the same
 * arithmetic, in the same order, as indicators/trend.ts, oscillators.ts and volatility.ts do:
 * one pass for the bars whose window starts at the first bar (e < WINDOW), then one window
 * per later bar — O(bars × WINDOW) for these few fields, a tight loop without allocation.
 *
 * Each kernel runs the window that starts at bar `s` up to bar `to` and writes bars ≥ `from`
 * into its outputs (NaN = null). The equivalence test (test/unit/daemon/history) checks them.
 */

/** Trading days the daily computation reads (indicators over the last 300 bars). */
export const WINDOW = 300;

/** Price columns of one stock, oldest first. */
export interface Bars {
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
}

/** A chain kernel: the window starting at `s`, bars `from`..`to` written. */
type Kernel<O> = (b: Bars, s: number, from: number, to: number, out: O) => void;

/** Runs `kernel` for every bar as the daily computation windows it. */
export function runChain<O>(b: Bars, kernel: Kernel<O>, out: O): void {
  const last = b.close.length - 1;
  if (last < 0) return;
  kernel(b, 0, 0, Math.min(last, WINDOW - 1), out);
  for (let e = WINDOW; e <= last; e++) kernel(b, e - WINDOW + 1, e, e, out);
}

/** Outputs of the MACD kernel (each may be absent). */
export interface MacdOut {
  ema12?: Float64Array;
  ema26?: Float64Array;
  macd?: Float64Array;
  signal?: Float64Array;
  histogram?: Float64Array;
}

/** trend.ts macd(closes, 12, 26, 9) with series.ts ema() (SMA seed, α = 2 / (period + 1)). */
export const macdKernel: Kernel<MacdOut> = (b, s, from, to, out) => {
  const c = b.close;
  const af = 2 / (12 + 1);
  const as = 2 / (26 + 1);
  const ag = 2 / (9 + 1);
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
      if (cf === 12) f = pf = sf / 12;
    } else f = pf = (v - pf) * af + pf;
    let sl = Number.NaN;
    if (Number.isNaN(ps)) {
      ss += v;
      cs++;
      if (cs === 26) sl = ps = ss / 26;
    } else sl = ps = (v - ps) * as + ps;
    // ema(line, 9): the line is null (NaN) until both averages exist; a null resets the seed.
    const line = Number.isNaN(f) || Number.isNaN(sl) ? Number.NaN : f - sl;
    let sig = Number.NaN;
    if (Number.isNaN(line)) {
      pg = Number.NaN;
      sg = 0;
      cg = 0;
    } else if (Number.isNaN(pg)) {
      sg += line;
      cg++;
      if (cg === 9) sig = pg = sg / 9;
    } else sig = pg = (line - pg) * ag + pg;
    if (j < from) continue;
    if (out.ema12) out.ema12[j] = f;
    if (out.ema26) out.ema26[j] = sl;
    if (out.macd) out.macd[j] = line;
    if (out.signal) out.signal[j] = sig;
    if (out.histogram) out.histogram[j] = Number.isNaN(line) || Number.isNaN(sig) ? Number.NaN : line - sig;
  }
};

/** oscillators.ts rsi(closes, 14). */
export const rsiKernel: Kernel<Float64Array> = (b, s, from, to, out) => {
  const c = b.close;
  const P = 14;
  let gain = 0;
  let loss = 0;
  for (let j = s + 1; j <= to; j++) {
    const i = j - s;
    const change = (c[j] as number) - (c[j - 1] as number);
    const g = change > 0 ? change : 0;
    const l = change < 0 ? -change : 0;
    if (i < P) {
      gain += g;
      loss += l;
      continue;
    }
    if (i === P) {
      gain = (gain + g) / P;
      loss = (loss + l) / P;
    } else {
      gain = (gain * (P - 1) + g) / P;
      loss = (loss * (P - 1) + l) / P;
    }
    if (j >= from) out[j] = loss === 0 ? (gain === 0 ? Number.NaN : 100) : 100 - 100 / (1 + gain / loss);
  }
};

/** volatility.ts atr(highs, lows, closes, 14): Wilder's average of the window's true ranges. */
export const atrKernel: Kernel<Float64Array> = (b, s, from, to, out) => {
  const { high: h, low: l, close: c } = b;
  const P = 14;
  let sum = 0;
  let avg = 0;
  for (let j = s; j <= to; j++) {
    const i = j - s;
    const hj = h[j] as number;
    const lj = l[j] as number;
    // The window's first bar has no previous close inside the window.
    const t = i === 0 ? hj - lj : Math.max(hj - lj, Math.abs(hj - (c[j - 1] as number)), Math.abs(lj - (c[j - 1] as number)));
    if (i < P - 1) {
      sum += t;
      continue;
    }
    if (i === P - 1) {
      sum += t;
      avg = sum / P;
    } else avg = (avg * (P - 1) + t) / P;
    if (j >= from) out[j] = avg;
  }
};

/** Outputs of the DMI kernel. */
export interface DmiOut {
  plusDi?: Float64Array;
  minusDi?: Float64Array;
  adx?: Float64Array;
}

/** trend.ts directionalMovement(highs, lows, closes, 14). */
export const dmiKernel: Kernel<DmiOut> = (b, s, from, to, out) => {
  const { high: hs, low: ls, close: cs } = b;
  const P = 14;
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
    if (out.plusDi) out.plusDi[j] = pdi;
    if (out.minusDi) out.minusDi[j] = mdi;
    if (out.adx) out.adx[j] = adxPrev;
  }
};
