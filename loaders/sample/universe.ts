/**
 * The sample market's issues: the real KOSPI/KOSDAQ listing (universe-data.ts: codes, names,
 * English names, markets, boards, industries, listing dates, shares outstanding, designations)
 * with, per issue, the hidden parameters that drive its generated price path and statements.
 * Every parameter is drawn from a stream seeded by (seed, code), so an issue behaves the same
 * whichever subset of the market is generated.
 */
import { tickSize } from '../../daemon/kernel/tick-size.js';
import type { Market, StockRecord } from '../../daemon/kernel/records.js';
import { sectorForIndustry } from '../sectors.js';
import { SECTOR_PROFILES } from './catalog.js';
import type { SectorProfile } from './catalog.js';
import { createRng } from './prng.js';
import type { Rng } from './prng.js';
import { UNIVERSE_DATE, UNIVERSE_INDUSTRIES, UNIVERSE_ROWS } from './universe-data.js';

/** One listed issue as KRX listed it, with its close on the listing's day. */
export interface ListedIssue {
  record: StockRecord;
  /** Close (last price when halted) on UNIVERSE_DATE: the level its generated prices end near. */
  close: number;
  /** Halted on UNIVERSE_DATE. */
  halted: boolean;
}

/** One generated issue plus its hidden model parameters. */
export interface SampleIssue {
  record: StockRecord;
  profile: SectorProfile;
  /** Sensitivity to the market and sector factors, idiosyncratic daily volatility. */
  beta: number;
  gamma: number;
  vol: number;
  /** Daily drift, and an extra drift over [trendFrom, days) (trending issues). */
  drift: number;
  trendFrom: number;
  trendDrift: number;
  /** Price the path ends near (the issue's real close on the listing's day). */
  endPrice: number;
  baseVolume: number;
  /** Index of the first trading day with a bar (> 0 for listings inside the window). */
  firstDay: number;
  /** Halted over [haltFrom, haltTo) (both -1 when never halted). */
  haltFrom: number;
  haltTo: number;
  /** Part of the composite index (common shares, not SPACs). */
  inIndex: boolean;
}

let listed: readonly ListedIssue[] | undefined;

/** The listed universe, largest market capitalisation first (parsed once, on first use). */
export function listedUniverse(): readonly ListedIssue[] {
  listed ??= UNIVERSE_ROWS.split('\n').filter((line) => line !== '').map(parseRow);
  return listed;
}

function parseRow(line: string): ListedIssue {
  const [code = '', name = '', english = '', m = '', board = '', industryAt = '', listing = '', settle = '', shares = '', close = '', flags = ''] = line.split('|');
  const market: Market = m === 'P' ? 'KOSPI' : 'KOSDAQ';
  const industry = industryAt === '' ? null : (UNIVERSE_INDUSTRIES[Number(industryAt)] ?? null);
  return {
    record: {
      code, name, name_english: english || null, market, sector: sectorForIndustry(industry, market), industry,
      listing_date: listing || null, shares_outstanding: shares === '' ? null : Number(shares), board: board || null,
      settle_month: settle === '' ? null : Number(settle),
      is_administrative: flags.includes('A'), is_spac: flags.includes('S'), is_preferred: !code.endsWith('0'),
    },
    close: Number(close),
    halted: flags.includes('H'),
  };
}

/**
 * The `count` largest issues listed by `endDate`, KOSPI and KOSDAQ in the universe's proportion
 * (so a small market still has both), in the universe's order.
 */
export function selectBySize(issues: readonly ListedIssue[], count: number, endDate: string): ListedIssue[] {
  const known = issues.filter((i) => (i.record.listing_date ?? '') <= endDate);
  if (count >= known.length) return [...known];
  const kospiAll = known.filter((i) => i.record.market === 'KOSPI').length;
  const kospi = Math.min(kospiAll, Math.max(count - (known.length - kospiAll), Math.round((count * kospiAll) / known.length)));
  const taken = { KOSPI: 0, KOSDAQ: 0 };
  const limit = { KOSPI: kospi, KOSDAQ: count - kospi };
  return known.filter((i) => {
    const m = i.record.market;
    if (taken[m] >= limit[m]) return false;
    taken[m] += 1;
    return true;
  });
}

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
const onTick = (p: number): number => Math.max(tickSize(p), Math.round(p / tickSize(p)) * tickSize(p));
const logNormal = (rng: Rng, median: number, sigma: number): number => median * Math.exp(sigma * rng.normal());

function profileOf(record: StockRecord): SectorProfile {
  return SECTOR_PROFILES.find((p) => p.sector === record.sector) ?? (SECTOR_PROFILES.find((p) => p.sector === '서비스업') as SectorProfile);
}

/** Model parameters of an ordinary issue: ~14% trend up over their last 60–220 days, ~6% down. */
function modelParams(rng: Rng, market: Market, profile: SectorProfile, days: number): Pick<SampleIssue, 'beta' | 'gamma' | 'vol' | 'drift' | 'trendFrom' | 'trendDrift'> {
  const roll = rng.next();
  const trendFrom = roll < 0.2 ? days - 60 - rng.int(Math.max(1, Math.min(160, days - 60))) : days;
  const trendDrift = roll < 0.14 ? rng.uniform(0.002, 0.005) : roll < 0.2 ? -rng.uniform(0.0015, 0.004) : 0;
  return {
    beta: clamp(profile.beta * Math.exp(0.25 * rng.normal()), 0.2, 2.2),
    gamma: rng.uniform(0.5, 1.2),
    vol: clamp(profile.vol * Math.exp(0.3 * rng.normal()) * (market === 'KOSDAQ' ? 1.15 : 1), 0.006, 0.06),
    drift: 0.0002 * rng.normal(),
    trendFrom: Math.max(0, trendFrom),
    trendDrift,
  };
}

/** Index of the first trading day on or after `date` (0 when before the window). */
function firstDayOf(date: string | null, tradeDates: readonly string[]): number {
  if (!date || date <= (tradeDates[0] ?? '')) return 0;
  const i = tradeDates.findIndex((d) => d >= date);
  return i < 0 ? tradeDates.length : i;
}

/** The model of one listed issue, drawn from the stream of (seed, code). */
function issueOf(seed: number | string, listedIssue: ListedIssue, tradeDates: readonly string[], atListingDay: boolean): SampleIssue {
  const record = { ...listedIssue.record };
  const rng = createRng(seed, 'issue', record.code);
  const days = tradeDates.length;
  const profile = profileOf(record);
  const firstDay = firstDayOf(record.listing_date, tradeDates);
  const shares = record.shares_outstanding ?? 1_000_000;
  const kospi = record.market === 'KOSPI';
  const endPrice = onTick(listedIssue.close > 0 ? listedIssue.close : 1_000);
  if (record.is_spac) {
    // SPACs hold cash in trust: flat around their issue price, tiny beta and volatility.
    return {
      record, profile, beta: 0.05, gamma: 0, vol: 0.004, drift: 0, trendFrom: days, trendDrift: 0, endPrice,
      baseVolume: 20_000 + rng.int(80_000), firstDay, haltFrom: -1, haltTo: -1, inIndex: false,
    };
  }
  const params = modelParams(rng, record.market, profile, days);
  // Halted on the listing's day: the halt runs to the end of the window (when it ends that day).
  const haltLen = 3 + rng.int(38);
  const haltedAtEnd = listedIssue.halted && atListingDay;
  const halted = haltedAtEnd || (record.is_administrative ? rng.chance(0.5) : rng.chance(0.012));
  const haltFrom = !halted ? -1 : haltedAtEnd ? Math.max(firstDay + 1, days - haltLen)
    : firstDay + 5 + rng.int(Math.max(1, days - firstDay - haltLen - 10));
  const turnover = record.is_preferred ? 0.0008 : kospi ? 0.0025 : 0.008;
  return {
    record, profile, ...params, endPrice,
    vol: record.is_preferred ? params.vol * 0.8 : params.vol,
    baseVolume: Math.max(500, Math.round(shares * logNormal(rng, turnover, 0.8))),
    firstDay, haltFrom, haltTo: halted ? Math.min(days, haltFrom + haltLen) : -1,
    inIndex: !record.is_preferred,
  };
}

/**
 * The `count` largest issues of the listed universe (see selectBySize) as of the window's last
 * day, each with its model; issues listed inside the window start trading on their listing day.
 */
export function buildUniverse(seed: number | string, count: number, tradeDates: readonly string[]): SampleIssue[] {
  const endDate = tradeDates.at(-1) ?? UNIVERSE_DATE;
  return selectBySize(listedUniverse(), count, endDate).map((i) => issueOf(seed, i, tradeDates, endDate === UNIVERSE_DATE));
}
