/**
 * Price paths of the sample market: a market factor per market, a factor per
 * sector, and per issue r = β·m + γ·s + drift (+ trend) + σ·ε, on the KRX tick
 * grid and inside the ±30% daily limits. Also accumulates the cap-weighted
 * sums from which the composite indexes are chain-linked.
 */
import { priceLimits, roundToTick } from '../../daemon/kernel/tick-size.js';
import type { DailyBar, HaltRecord, IndexBar, Market } from '../../daemon/kernel/records.js';
import type { Sector } from '../sectors.js';
import { SECTOR_PROFILES } from './catalog.js';
import { createRng } from './prng.js';
import type { Rng } from './prng.js';
import type { SampleIssue } from './universe.js';

/** Daily factor returns shared by all issues. */
export interface MarketFactors {
  market: Record<Market, Float64Array>;
  sector: Map<Sector, Float64Array>;
}

/** Market and sector factor returns for `days` trading days. */
export function buildFactors(seed: number | string, days: number): MarketFactors {
  const rng = createRng(seed, 'factors');
  const kospi = new Float64Array(days);
  const kosdaq = new Float64Array(days);
  let regime = 0;
  for (let t = 0; t < days; t += 1) {
    // Slowly varying volatility regime (AR(1) in log-vol) gives calm and turbulent stretches.
    regime = 0.97 * regime + 0.08 * rng.normal();
    const m = 0.0003 + 0.0105 * Math.exp(regime) * rng.normal();
    kospi[t] = m;
    kosdaq[t] = -0.0001 + 0.85 * m + 0.007 * rng.normal();
  }
  const sector = new Map<Sector, Float64Array>();
  for (const p of SECTOR_PROFILES) {
    const s = new Float64Array(days);
    const drift = 0.0003 * rng.normal();
    for (let t = 0; t < days; t += 1) s[t] = drift + 0.006 * rng.normal();
    sector.set(p.sector, s);
  }
  return { market: { KOSPI: kospi, KOSDAQ: kosdaq }, sector };
}

/** Per-day sums over index constituents: Σ prev·shares and Σ open/high/low/close·shares, volume, value. */
export interface IndexSums {
  prev: Float64Array; open: Float64Array; high: Float64Array; low: Float64Array; close: Float64Array;
  volume: Float64Array; value: Float64Array;
}

/** Empty sums for `days` days. */
export function createIndexSums(days: number): IndexSums {
  const z = (): Float64Array => new Float64Array(days);
  return { prev: z(), open: z(), high: z(), low: z(), close: z(), volume: z(), value: z() };
}

/** One issue's bars and halts. */
export interface IssueSeries { bars: DailyBar[]; halts: HaltRecord[]; /** Close of the last day (last traded price). */ lastClose: number }

const LIMIT_UP = Math.log(1.3);
const LIMIT_DOWN = Math.log(0.7);

/**
 * One issue's daily log-returns (0 before its first day and while halted), drawn first so that the
 * path can start where it must to end near the issue's real close.
 */
function drawReturns(seed: number | string, issue: SampleIssue, factors: MarketFactors, days: number): Float64Array {
  const rng = createRng(seed, 'returns', issue.record.code);
  const m = factors.market[issue.record.market];
  const s = factors.sector.get(issue.profile.sector) as Float64Array;
  const jumpChance = issue.record.is_spac ? 0 : issue.record.market === 'KOSDAQ' ? 0.003 : 0.0015;
  const out = new Float64Array(days);
  for (let t = issue.firstDay; t < days; t += 1) {
    if (t >= issue.haltFrom && t < issue.haltTo) continue;
    // −σ²/2 keeps the expected simple return at the factor drift, so cap-weighted
    // sums (the indexes) do not grow from idiosyncratic volatility alone.
    const ret = issue.beta * (m[t] as number) + issue.gamma * (s[t] as number) + issue.drift - 0.5 * issue.vol * issue.vol
      + (t >= issue.trendFrom ? issue.trendDrift : 0) + issue.vol * rng.normal() + jump(rng, jumpChance);
    out[t] = Math.min(LIMIT_UP, Math.max(LIMIT_DOWN, ret));
  }
  return out;
}

/**
 * Generates one issue's bars (and halt records), ending near its real close, and adds it to `sums`
 * when it is an index constituent. The first bar's reference price is the end price discounted by
 * the whole path's return; tick rounding and the daily limits move the end a little from it.
 */
export function generateIssueSeries(seed: number | string, issue: SampleIssue, factors: MarketFactors,
  tradeDates: readonly string[], sums: IndexSums): IssueSeries {
  const returns = drawReturns(seed, issue, factors, tradeDates.length);
  const rng = createRng(seed, 'prices', issue.record.code);
  const code = issue.record.code;
  const shares = issue.record.shares_outstanding ?? 0;
  const m = factors.market[issue.record.market];
  const bars: DailyBar[] = [];
  const halts: HaltRecord[] = [];
  let prev = roundToTick(Math.max(1, issue.endPrice * Math.exp(-returns.reduce((a, b) => a + b, 0))));
  for (let t = issue.firstDay; t < tradeDates.length; t += 1) {
    const date = tradeDates[t] as string;
    if (t >= issue.haltFrom && t < issue.haltTo) {
      halts.push({ stock_code: code, trade_date: date, last_close: prev, market_cap: prev * shares, shares_outstanding: shares });
      continue;
    }
    const mt = m[t] as number;
    const ret = returns[t] as number;
    const { upper, lower } = priceLimits(prev);
    const fit = (x: number): number => Math.min(upper, Math.max(lower, roundToTick(x)));
    const close = fit(prev * Math.exp(ret));
    const open = fit(prev * Math.exp(0.3 * issue.beta * mt + 0.35 * issue.vol * rng.normal()));
    const high = Math.min(upper, roundToTick(Math.max(open, close) * Math.exp(0.6 * issue.vol * Math.abs(rng.normal())), 'up'));
    const low = Math.max(lower, roundToTick(Math.min(open, close) * Math.exp(-0.6 * issue.vol * Math.abs(rng.normal())), 'down'));
    const activity = Math.exp(0.45 * rng.normal()) * (1 + 12 * Math.abs(ret)) * (t >= issue.trendFrom && issue.trendDrift > 0 ? 1.3 : 1);
    const volume = Math.max(1, Math.round(issue.baseVolume * activity));
    // trading_value ≈ volume × typical price (H+L+C)/3, as an exchange's VWAP-based value would be.
    const value = Math.round((volume * (high + low + close)) / 3);
    bars.push({
      stock_code: code, trade_date: date, open_price: open, high_price: high, low_price: low, close_price: close,
      volume, trading_value: value, market_cap: close * shares, shares_outstanding: shares,
    });
    if (issue.inIndex) addToSums(sums, t, prev, open, high, low, close, shares, volume, value);
    prev = close;
  }
  return { bars, halts, lastClose: prev };
}

/** A rare news shock (a log-return of ±0.08–0.45), else 0. */
function jump(rng: Rng, chance: number): number {
  if (!rng.chance(chance)) return 0;
  // Log-returns: down shocks reach further so that both limits (+30% ≈ +0.26, −30% ≈ −0.36) get hit.
  return rng.chance(0.55) ? rng.uniform(0.08, 0.35) : -rng.uniform(0.08, 0.45);
}

function addToSums(sums: IndexSums, t: number, prev: number, open: number, high: number, low: number, close: number,
  shares: number, volume: number, value: number): void {
  sums.prev[t] = (sums.prev[t] as number) + prev * shares;
  sums.open[t] = (sums.open[t] as number) + open * shares;
  sums.high[t] = (sums.high[t] as number) + high * shares;
  sums.low[t] = (sums.low[t] as number) + low * shares;
  sums.close[t] = (sums.close[t] as number) + close * shares;
  sums.volume[t] = (sums.volume[t] as number) + volume;
  sums.value[t] = (sums.value[t] as number) + value;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** The level before the first day that makes the chain-linked index close at `endLevel` on the last day. */
export function indexBase(endLevel: number, sums: IndexSums, days: number): number {
  let growth = 1;
  for (let t = 0; t < days; t += 1) {
    const prev = sums.prev[t] as number;
    if (prev > 0) growth *= (sums.close[t] as number) / prev;
  }
  return endLevel / growth;
}

/**
 * Chain-links a composite index from the constituents' sums: each day's level
 * is the previous close × Σ price·shares / Σ previous close·shares (the same
 * link for open, high and low), so listings and halts do not move the index.
 */
export function buildIndexSeries(market: Market, base: number, sums: IndexSums, tradeDates: readonly string[]): IndexBar[] {
  const out: IndexBar[] = [];
  let level = base;
  tradeDates.forEach((date, t) => {
    const prev = sums.prev[t] as number;
    const link = (x: Float64Array): number => (prev > 0 ? (x[t] as number) / prev : 1);
    const bar: IndexBar = {
      market, trade_date: date, open: round2(level * link(sums.open)), high: round2(level * link(sums.high)),
      low: round2(level * link(sums.low)), close: round2(level * link(sums.close)),
      volume: Math.round(sums.volume[t] as number), trading_value: Math.round(sums.value[t] as number),
    };
    level *= link(sums.close);
    out.push(bar);
  });
  return out;
}
