/**
 * Maps one stock's daily bars to the price-based indicator ids. Series
 * indicators are computed over the bars; levels compared with "today" (close,
 * distances, ATR %) use the effective close, which for a stock halted today is
 * its last close. Event flags are 0 for a stock halted today (nothing traded).
 */
import type { DailyBar, IndexBar } from '../kernel/records.js';
import { breakout, limitFlags, newHigh } from './events.js';
import { cci, mfi, psychologicalLine, rsi, slowStochastic, williamsR } from './oscillators.js';
import type { IndicatorPatch } from './registry.js';
import {
  DAYS_52W,
  RETURN_WINDOWS,
  momentum,
  periodReturn,
  relativeStrength,
  windowMax,
  windowMin,
  ytdReturn,
} from './returns.js';
import { fromEnd, lastOf, pctChange, safeDiv, sma } from './series.js';
import { directionalMovement, macd, maAlignment, recentCrosses } from './trend.js';
import { atr, beta, bollinger, historicalVolatility, maxDrawdown } from './volatility.js';
import { cmf, meanBeforeLast, obvWindow } from './volume.js';

/** Column arrays of a bar list, oldest first. */
export interface PriceColumns {
  dates: string[];
  opens: number[];
  highs: number[];
  lows: number[];
  closes: number[];
  volumes: number[];
  values: number[];
}

/** Splits bars into column arrays. */
export function toColumns(bars: readonly DailyBar[]): PriceColumns {
  const n = bars.length;
  const cols: PriceColumns = { dates: [], opens: [], highs: [], lows: [], closes: [], volumes: [], values: [] };
  for (let i = 0; i < n; i++) {
    const b = bars[i] as DailyBar;
    cols.dates.push(b.trade_date);
    cols.opens.push(b.open_price);
    cols.highs.push(b.high_price);
    cols.lows.push(b.low_price);
    cols.closes.push(b.close_price);
    cols.volumes.push(b.volume);
    cols.values.push(b.trading_value);
  }
  return cols;
}

/**
 * Index closes aligned with `dates` (both oldest first) by a single merge pass:
 * the index close on the same trading date, or null when the index has none.
 */
export function alignIndexCloses(dates: readonly string[], index: readonly IndexBar[]): (number | null)[] {
  const out: (number | null)[] = new Array<number | null>(dates.length).fill(null);
  let j = 0;
  for (let i = 0; i < dates.length; i++) {
    const d = dates[i] ?? '';
    while (j < index.length && (index[j]?.trade_date ?? '') < d) j++;
    const bar = index[j];
    if (bar != null && bar.trade_date === d && bar.close > 0) out[i] = bar.close;
  }
  return out;
}

/** What the technical pass needs beyond the bars. */
export interface TechnicalContext {
  cols: PriceColumns;
  /** Index closes aligned with cols.dates, or null without index data. */
  indexCloses: (number | null)[] | null;
  asOf: string;
  halted: boolean;
  /** Effective close: the last bar's, or the stock's last close when halted today. */
  close: number | null;
}

/** All price-based indicator values of one stock. */
export function technicalIndicators(ctx: TechnicalContext): IndicatorPatch {
  return {
    ...priceIndicators(ctx),
    ...returnIndicators(ctx),
    ...trendIndicators(ctx),
    ...oscillatorIndicators(ctx),
    ...volatilityIndicators(ctx),
    ...volumeAndEventIndicators(ctx),
  };
}

function priceIndicators({ cols, halted, close }: TechnicalContext): IndicatorPatch {
  const prev = halted ? close : fromEnd(cols.closes, 1);
  const volume = halted ? (close == null ? null : 0) : lastOf(cols.volumes);
  const change = close == null || prev == null ? null : close - prev;
  const avgBefore = halted ? windowMean(cols.volumes, 20) : meanBeforeLast(cols.volumes, 20);
  return {
    close,
    open: halted ? null : lastOf(cols.opens),
    high: halted ? null : lastOf(cols.highs),
    low: halted ? null : lastOf(cols.lows),
    change,
    change_percent: change == null ? null : safeDiv(change * 100, prev),
    volume,
    trading_value: halted ? volume : lastOf(cols.values),
    avg_volume_20: windowMean(cols.volumes, 20),
    avg_trading_value_20: windowMean(cols.values, 20),
    relative_volume: safeDiv(volume, avgBefore),
  };
}

/** Mean of the last `window` values; null with fewer. */
function windowMean(values: readonly number[], window: number): number | null {
  const n = values.length;
  if (n < window) return null;
  let sum = 0;
  for (let i = n - window; i < n; i++) sum += values[i] ?? 0;
  return sum / window;
}

/**
 * The last `length` values. Windowed indicators depend only on their window, so
 * they are computed over just the tail they need instead of the whole history.
 */
function tail<T>(values: readonly T[], length: number): readonly T[] {
  return values.length <= length ? values : values.slice(values.length - length);
}

function returnIndicators({ cols, indexCloses, asOf, close }: TechnicalContext): IndicatorPatch {
  const c = cols.closes;
  const high52 = windowMax(cols.highs, DAYS_52W);
  const low52 = windowMin(cols.lows, DAYS_52W);
  const current = close ?? undefined;
  return {
    return_1w: periodReturn(c, RETURN_WINDOWS.return_1w, current),
    return_1m: periodReturn(c, RETURN_WINDOWS.return_1m, current),
    return_3m: periodReturn(c, RETURN_WINDOWS.return_3m, current),
    return_6m: periodReturn(c, RETURN_WINDOWS.return_6m, current),
    return_12m: periodReturn(c, RETURN_WINDOWS.return_12m, current),
    return_ytd: ytdReturn(cols.dates, c, asOf, close),
    momentum_12_1: momentum(c, 252, 21),
    high_52w: high52,
    low_52w: low52,
    dist_52w_high: pctChange(close, high52),
    dist_52w_low: pctChange(close, low52),
    rs_3m: indexCloses ? relativeStrength(c, indexCloses, RETURN_WINDOWS.return_3m) : null,
    rs_12m: indexCloses ? relativeStrength(c, indexCloses, RETURN_WINDOWS.return_12m) : null,
  };
}

function trendIndicators({ cols, close }: TechnicalContext): IndicatorPatch {
  const c = cols.closes;
  const sma5 = windowMean(c, 5);
  const sma20 = windowMean(c, 20);
  const sma60 = windowMean(c, 60);
  const sma120 = windowMean(c, 120);
  const sma200 = windowMean(c, 200);
  // A cross on day n−5 compares it with day n−6: 5 + 1 days of 60-day averages.
  const recent = tail(c, 60 + 5);
  const crosses = recentCrosses(sma(recent, 20), sma(recent, 60), 5);
  const m = macd(c, 12, 26, 9);
  const dmi = directionalMovement(cols.highs, cols.lows, c, 14);
  const disparity = safeDiv(close, sma20);
  return {
    sma_5: sma5,
    sma_20: sma20,
    sma_60: sma60,
    sma_120: sma120,
    sma_200: sma200,
    ema_12: lastOf(m.fastEma),
    ema_26: lastOf(m.slowEma),
    dist_sma_20: pctChange(close, sma20),
    dist_sma_60: pctChange(close, sma60),
    dist_sma_200: pctChange(close, sma200),
    disparity_20: disparity == null ? null : disparity * 100,
    ma_alignment: maAlignment([sma5, sma20, sma60, sma120]),
    golden_cross_20_60: crosses.golden,
    dead_cross_20_60: crosses.dead,
    macd: lastOf(m.macd),
    macd_signal: lastOf(m.signal),
    macd_histogram: lastOf(m.histogram),
    adx_14: lastOf(dmi.adx),
    plus_di_14: lastOf(dmi.plusDi),
    minus_di_14: lastOf(dmi.minusDi),
  };
}

function oscillatorIndicators({ cols }: TechnicalContext): IndicatorPatch {
  const { highs, lows, closes, volumes } = cols;
  // Slow %D (14,3,3) needs 14 + 2 + 2 bars; the other windows are their period (+1 for a change).
  const s = (values: readonly number[], k: number): readonly number[] => tail(values, k);
  const stoch = slowStochastic(s(highs, 18), s(lows, 18), s(closes, 18), 14, 3, 3);
  return {
    rsi_14: lastOf(rsi(closes, 14)),
    stoch_k: lastOf(stoch.k),
    stoch_d: lastOf(stoch.d),
    williams_r_14: lastOf(williamsR(s(highs, 14), s(lows, 14), s(closes, 14), 14)),
    cci_20: lastOf(cci(s(highs, 20), s(lows, 20), s(closes, 20), 20)),
    mfi_14: lastOf(mfi(s(highs, 15), s(lows, 15), s(closes, 15), s(volumes, 15), 14)),
    psy_10: lastOf(psychologicalLine(s(closes, 11), 10)),
  };
}

function volatilityIndicators({ cols, indexCloses, close }: TechnicalContext): IndicatorPatch {
  const { highs, lows, closes } = cols;
  const atr14 = lastOf(atr(highs, lows, closes, 14));
  const bb = bollinger(tail(closes, 20), 20, 2);
  const atrRatio = safeDiv(atr14, close);
  return {
    atr_14: atr14,
    atr_percent: atrRatio == null ? null : atrRatio * 100,
    bb_upper: lastOf(bb.upper),
    bb_lower: lastOf(bb.lower),
    bb_percent_b: lastOf(bb.percentB),
    bb_bandwidth: lastOf(bb.bandwidth),
    volatility_20: historicalVolatility(closes, 20),
    beta_250: indexCloses ? beta(closes, indexCloses, 250, 120) : null,
    max_drawdown_1y: maxDrawdown(closes, 252),
  };
}

function volumeAndEventIndicators({ cols, halted }: TechnicalContext): IndicatorPatch {
  const { highs, lows, closes, volumes } = cols;
  const limits = limitFlags(closes);
  const today = (flag: number | null): number | null => (flag == null ? null : halted ? 0 : flag);
  return {
    obv: obvWindow(closes, volumes, 20),
    cmf_20: lastOf(cmf(tail(highs, 20), tail(lows, 20), tail(closes, 20), tail(volumes, 20), 20)),
    breakout_20: today(breakout(highs, closes, 20)),
    new_high_52w: today(newHigh(highs, 251)),
    limit_up: today(limits.limitUp),
    limit_down: today(limits.limitDown),
  };
}
