/**
 * Price indicator kernels (see price-kernels.ts, the registry): the chains (MACD, DMI, RSI,
 * ATR), the moving-average crosses, the oscillators, volatility, and volume and events. The
 * oscillators, Bollinger and CMF call their series functions on the same short tail for the
 * daily snapshot and for every bar; the windowed ones read the columns up to the bar (`end`).
 */
import { atrChain, dmiChain, macdChain, nanArray, rsiChain } from './chains.js';
import { breakout, limitFlags, newHigh } from './events.js';
import { closeOn, fill, num, span, tailAt, val, type Bars, type KernelOut, type PriceKernel } from './kernel.js';
import { cci, mfi, psychologicalLine, slowStochastic, williamsR } from './oscillators.js';
import { lastOf, safeDiv, smaInto } from './series.js';
import { recentCrosses } from './trend.js';
import { beta, bollinger, historicalVolatility, maxDrawdown } from './volatility.js';
import { cmf, obvWindow } from './volume.js';

export const macdKernel: PriceKernel = {
  fields: ['ema_12', 'ema_26', 'macd', 'macd_signal', 'macd_histogram'],
  chain: true,
  run(b, start, from, to, out) {
    const c = out.cols;
    const o = { fastEma: c.get('ema_12'), slowEma: c.get('ema_26'), macd: c.get('macd'), signal: c.get('macd_signal'), histogram: c.get('macd_histogram') };
    macdChain(b, { fast: 12, slow: 26, signal: 9 }, start, from, to, o, out.base);
  },
};

export const dmiKernel: PriceKernel = {
  fields: ['adx_14', 'plus_di_14', 'minus_di_14'],
  chain: true,
  run(b, start, from, to, out) {
    const c = out.cols;
    dmiChain(b, start, from, to, { adx: c.get('adx_14'), plusDi: c.get('plus_di_14'), minusDi: c.get('minus_di_14') }, out.base);
  },
};

export const rsiKernel: PriceKernel = {
  fields: ['rsi_14'],
  chain: true,
  run(b, start, from, to, out) {
    const a = out.cols.get('rsi_14');
    if (a) rsiChain(b, 14, start, from, to, a, out.base);
  },
};

export const atrKernel: PriceKernel = {
  fields: ['atr_14', 'atr_percent'],
  chain: true,
  run(b, start, from, to, out) {
    const own = out.cols.get('atr_14');
    const atr = own ?? nanArray(to - from + 1);
    const base = own ? out.base : from;
    atrChain(b, 14, start, from, to, atr, base);
    fill(out, 'atr_percent', from, to, (e) => {
      const r = safeDiv(val(atr[e - base]), closeOn(b, e));
      return r == null ? null : r * 100;
    });
  },
};

/** A cross on day e−4 compares it with day e−5: 5 + 1 days of 60-day averages, over the last 65 closes. */
const CROSS_TAIL = 60 + 5;

export const crossKernel: PriceKernel = {
  fields: ['golden_cross_20_60', 'dead_cross_20_60'],
  chain: false,
  run(b, start, from, to, out) {
    const fast = new Float64Array(CROSS_TAIL);
    const slow = new Float64Array(CROSS_TAIL);
    const golden = out.cols.get('golden_cross_20_60');
    const dead = out.cols.get('dead_cross_20_60');
    for (let e = from; e <= to; e++) {
      const m = Math.min(span(b, start, e), CROSS_TAIL);
      smaInto(b.close, e - m + 1, e, 20, fast);
      smaInto(b.close, e - m + 1, e, 60, slow);
      const flags = recentCrosses(fast, slow, 5, m);
      if (golden) golden[e - out.base] = flags.golden ?? Number.NaN;
      if (dead) dead[e - out.base] = flags.dead ?? Number.NaN;
    }
  },
};

export const oscillatorKernel: PriceKernel = {
  fields: ['stoch_k', 'stoch_d', 'williams_r_14', 'cci_20', 'mfi_14', 'psy_10'],
  chain: false,
  run(b, start, from, to, out) {
    const p = b.plain();
    const t = (x: number[], e: number, k: number): number[] => tailAt(x, b, start, e, k);
    const k = out.cols.get('stoch_k');
    const d = out.cols.get('stoch_d');
    // Slow %D (14,3,3) needs 14 + 2 + 2 bars; the other windows are their period (+1 for a change).
    for (let e = from; e <= to && (k || d); e++) {
      const stoch = slowStochastic(t(p.high, e, 18), t(p.low, e, 18), t(p.close, e, 18), 14, 3, 3);
      if (k) k[e - out.base] = num(lastOf(stoch.k));
      if (d) d[e - out.base] = num(lastOf(stoch.d));
    }
    fill(out, 'williams_r_14', from, to, (e) => lastOf(williamsR(t(p.high, e, 14), t(p.low, e, 14), t(p.close, e, 14), 14)));
    fill(out, 'cci_20', from, to, (e) => lastOf(cci(t(p.high, e, 20), t(p.low, e, 20), t(p.close, e, 20), 20)));
    fill(out, 'mfi_14', from, to, (e) => lastOf(mfi(t(p.high, e, 15), t(p.low, e, 15), t(p.close, e, 15), t(p.volume, e, 15), 14)));
    fill(out, 'psy_10', from, to, (e) => lastOf(psychologicalLine(t(p.close, e, 11), 10)));
  },
};

const BOLLINGER = ['bb_upper', 'bb_lower', 'bb_percent_b', 'bb_bandwidth'] as const;

function bollingerBands(b: Bars, start: number, from: number, to: number, out: KernelOut): void {
  const cols = BOLLINGER.map((f) => out.cols.get(f));
  if (cols.every((a) => !a)) return;
  const p = b.plain();
  for (let e = from; e <= to; e++) {
    const bb = bollinger(tailAt(p.close, b, start, e, 20), 20, 2);
    const values = [lastOf(bb.upper), lastOf(bb.lower), lastOf(bb.percentB), lastOf(bb.bandwidth)];
    cols.forEach((a, i) => {
      if (a) a[e - out.base] = num(values[i] ?? null);
    });
  }
}

export const volatilityKernel: PriceKernel = {
  fields: [...BOLLINGER, 'volatility_20', 'beta_250', 'max_drawdown_1y'],
  chain: false,
  run(b, start, from, to, out) {
    const c = b.close;
    bollingerBands(b, start, from, to, out);
    fill(out, 'volatility_20', from, to, (e) => (span(b, start, e) < 21 ? null : historicalVolatility(c, 20, e + 1)));
    const idx = b.index;
    if (idx && out.cols.has('beta_250')) {
      const scratch = { xs: new Float64Array(250), ys: new Float64Array(250) };
      fill(out, 'beta_250', from, to, (e) => beta(c, idx, 250, 120, e + 1, scratch));
    }
    fill(out, 'max_drawdown_1y', from, to, (e) => (span(b, start, e) < 252 ? null : maxDrawdown(c, 252, e + 1)));
  },
};

export const volumeEventKernel: PriceKernel = {
  fields: ['obv', 'cmf_20', 'breakout_20', 'new_high_52w', 'limit_up', 'limit_down'],
  chain: false,
  run(b, start, from, to, out) {
    const { high, close, volume } = b;
    // Nothing traded on a day the stock is halted: its event flags are 0.
    const today = (flag: number | null): number | null => (flag == null ? null : b.today?.halted ? 0 : flag);
    fill(out, 'obv', from, to, (e) => (span(b, start, e) < 21 ? null : obvWindow(close, volume, 20, e + 1)));
    if (out.cols.has('cmf_20')) {
      const p = b.plain();
      const t = (x: number[], e: number): number[] => tailAt(x, b, start, e, 20);
      fill(out, 'cmf_20', from, to, (e) => lastOf(cmf(t(p.high, e), t(p.low, e), t(p.close, e), t(p.volume, e), 20)));
    }
    fill(out, 'breakout_20', from, to, (e) => today(span(b, start, e) < 21 ? null : breakout(high, close, 20, e + 1)));
    fill(out, 'new_high_52w', from, to, (e) => today(span(b, start, e) < 252 ? null : newHigh(high, 251, e + 1)));
    fill(out, 'limit_up', from, to, (e) => today(span(b, start, e) < 2 ? null : limitFlags(close, e + 1).limitUp));
    fill(out, 'limit_down', from, to, (e) => today(span(b, start, e) < 2 ? null : limitFlags(close, e + 1).limitDown));
  },
};
