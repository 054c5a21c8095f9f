/**
 * The sample market's issues: codes, names, sectors, boards, flags, listing
 * dates, size, and the parameters that drive each issue's price path.
 */
import { tickSize } from '../../daemon/kernel/tick-size.js';
import type { Market, StockRecord } from '../../daemon/kernel/records.js';
import { KOSDAQ_BOARDS, NAME_PREFIXES, SECTOR_PROFILES } from './catalog.js';
import type { SectorProfile } from './catalog.js';
import { createRng } from './prng.js';
import type { Rng } from './prng.js';

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
  /** Price the day before the first generated bar. */
  startPrice: number;
  baseVolume: number;
  /** Index of the first trading day with a bar (> 0 for listings inside the window). */
  firstDay: number;
  /** Halted over [haltFrom, haltTo) (both -1 when never halted). */
  haltFrom: number;
  haltTo: number;
  /** Part of the composite index (common shares, not SPACs). */
  inIndex: boolean;
}

const SPAC_BROKERS = [['대신밸런스', 'Daishin Balance'], ['하나', 'Hana'], ['교보', 'Kyobo'], ['엔에이치', 'NH'], ['키움', 'Kiwoom'],
  ['유안타', 'Yuanta'], ['신한', 'Shinhan'], ['케이비', 'KB'], ['한화플러스', 'Hanwha Plus'], ['디비금융', 'DB Financial']] as const;
const SUFFIXES = [['', ''], ['', ''], ['', ''], ['테크', 'Tech'], ['산업', 'Industrial'], ['인터내셔널', 'International'], ['씨앤씨', 'C&C']] as const;

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
const onTick = (p: number): number => Math.max(tickSize(p), Math.round(p / tickSize(p)) * tickSize(p));
const logNormal = (rng: Rng, median: number, sigma: number): number => median * Math.exp(sigma * rng.normal());

function pickProfile(rng: Rng, market: Market): SectorProfile {
  const weight = (p: SectorProfile): number => (market === 'KOSPI' ? p.kospi : p.kosdaq);
  let x = rng.next() * SECTOR_PROFILES.reduce((s, p) => s + weight(p), 0);
  for (const p of SECTOR_PROFILES) { x -= weight(p); if (x < 0) return p; }
  return SECTOR_PROFILES[0] as SectorProfile;
}

function pickBoard(rng: Rng): string {
  let x = rng.next() * KOSDAQ_BOARDS.reduce((s, [, w]) => s + w, 0);
  for (const [board, w] of KOSDAQ_BOARDS) { x -= w; if (x < 0) return board; }
  return '중견기업부';
}

/** Mutable state while issues are created (uniqueness of codes and names). */
interface Registry { codes: Set<string>; names: Set<string>; spacNo: Map<string, number> }

function newCode(rng: Rng, reg: Registry, market: Market, alnum: boolean): string {
  for (;;) {
    const code = alnum
      ? `0${String(rng.int(1000)).padStart(3, '0')}${String.fromCharCode(65 + rng.int(26))}0`
      : `${String(market === 'KOSPI' ? rng.int(40_000) : 10_000 + rng.int(40_000)).padStart(5, '0')}0`;
    if (!reg.codes.has(code)) { reg.codes.add(code); return code; }
  }
}

function newName(rng: Rng, reg: Registry, profile: SectorProfile): [string, string] {
  for (let attempt = 0; ; attempt += 1) {
    const [pk, pe] = rng.pick(NAME_PREFIXES);
    const [ck, ce] = rng.pick(profile.names);
    const [sk, se] = rng.pick(SUFFIXES);
    const ko = `${pk}${ck}${sk}${attempt > 20 ? attempt : ''}`;
    if (reg.names.has(ko)) continue;
    reg.names.add(ko);
    return [ko, `${pe}${pe.endsWith('&') ? '' : ' '}${ce}${se ? ` ${se}` : ''}${attempt > 20 ? ` ${attempt}` : ''}`];
  }
}

/** A listing date: inside the window for new listings, else a weekday between `from` and the window start. */
function listingDate(rng: Rng, from: string, before: string): string {
  const lo = Date.parse(`${from}T00:00:00Z`);
  const hi = Date.parse(`${before}T00:00:00Z`) - 60 * 86_400_000;
  const d = new Date(lo + Math.floor(rng.next() * ((hi - lo) / 86_400_000)) * 86_400_000);
  const wd = d.getUTCDay();
  if (wd === 0 || wd === 6) d.setUTCDate(d.getUTCDate() + (wd === 6 ? 2 : 1));
  return d.toISOString().slice(0, 10);
}

/** Context shared by the issue factories. */
interface Ctx { rng: Rng; reg: Registry; tradeDates: readonly string[] }

function baseRecord(code: string, name: [string, string], market: Market, profile: SectorProfile, rng: Rng): StockRecord {
  const industry = rng.pick(profile.industries);
  return {
    code, name: name[0], name_english: name[1], market, sector: profile.sector, industry,
    listing_date: null, shares_outstanding: null, board: null, settle_month: 12,
    is_administrative: false, is_spac: false, is_preferred: false,
  };
}

function modelParams(rng: Rng, market: Market, profile: SectorProfile, days: number): Omit<SampleIssue, 'record' | 'profile' | 'startPrice' | 'baseVolume' | 'firstDay' | 'haltFrom' | 'haltTo' | 'inIndex'> {
  const roll = rng.next();
  // ~14% trend up over their last 60–220 days (golden crosses, 52-week highs,
  // aligned moving averages); ~6% trend down.
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

/** An ordinary issue (common shares), possibly a new listing, administrative or halted. */
function createIssue(ctx: Ctx, market: Market, recent: boolean): SampleIssue {
  const { rng, reg, tradeDates } = ctx;
  const days = tradeDates.length;
  const profile = pickProfile(rng, market);
  const record = baseRecord(newCode(rng, reg, market, recent), newName(rng, reg, profile), market, profile, rng);
  const firstDay = recent ? Math.floor(days * 0.3) + rng.int(Math.max(1, Math.floor(days * 0.7) - 10)) : 0;
  record.listing_date = recent ? (tradeDates[firstDay] ?? null)
    : listingDate(rng, market === 'KOSPI' ? '1975-06-01' : '1996-07-01', tradeDates[0] ?? '2000-01-03');
  const kospi = market === 'KOSPI';
  const price = onTick(clamp(logNormal(rng, kospi ? 15_000 : 5_000, kospi ? 1.1 : 1.0), kospi ? 500 : 300, kospi ? 900_000 : 400_000));
  const cap = clamp(logNormal(rng, kospi ? 3e11 : 9e10, kospi ? 1.5 : 1.1), kospi ? 2e10 : 1e10, kospi ? 8e14 : 2e13);
  const shares = Math.max(1_000_000, Math.round(cap / price / 1000) * 1000);
  record.shares_outstanding = shares;
  if (!kospi) record.board = cap > 2e12 && rng.chance(0.5) ? 'KOSDAQ GLOBAL' : pickBoard(rng);
  record.is_administrative = rng.chance(0.02);
  if (record.is_administrative) record.board = kospi ? null : '관리종목(소속부없음)';
  const halted = record.is_administrative ? rng.chance(0.5) : rng.chance(0.012);
  const haltLen = 3 + rng.int(38);
  const haltFrom = halted ? firstDay + 5 + rng.int(Math.max(1, days - firstDay - haltLen - 10)) : -1;
  return {
    record, profile, ...modelParams(rng, market, profile, days), startPrice: price,
    baseVolume: Math.max(1_000, Math.round(shares * logNormal(rng, kospi ? 0.0025 : 0.008, 0.8))),
    firstDay, haltFrom, haltTo: halted ? Math.min(days, haltFrom + haltLen) : -1, inIndex: true,
  };
}

/** A preferred share class of `common` (code ending in 5, name + 우). */
function createPreferred(ctx: Ctx, common: SampleIssue): SampleIssue {
  const { rng, reg } = ctx;
  const code = `${common.record.code.slice(0, 5)}5`;
  reg.codes.add(code);
  const record: StockRecord = {
    ...common.record, code, name: `${common.record.name}우`, name_english: `${common.record.name_english ?? ''} Pref`,
    is_preferred: true, is_administrative: false, board: null,
    shares_outstanding: Math.max(100_000, Math.round((common.record.shares_outstanding ?? 0) * rng.uniform(0.03, 0.15) / 1000) * 1000),
  };
  return {
    ...common, record, startPrice: onTick(common.startPrice * rng.uniform(0.55, 0.9)), vol: common.vol * 0.8,
    baseVolume: Math.max(500, Math.round(common.baseVolume * 0.05)), haltFrom: -1, haltTo: -1, inIndex: false,
  };
}

/** A KOSDAQ SPAC: flat around 2,000–2,300 won, tiny beta and volatility. */
function createSpac(ctx: Ctx): SampleIssue {
  const { rng, reg, tradeDates } = ctx;
  const profile = SECTOR_PROFILES.find((p) => p.sector === '금융업') as SectorProfile;
  const [bk, be] = rng.pick(SPAC_BROKERS);
  const no = (reg.spacNo.get(bk) ?? 10 + rng.int(10)) + 1;
  reg.spacNo.set(bk, no);
  const record = baseRecord(newCode(rng, reg, 'KOSDAQ', false), [`${bk}제${no}호스팩`, `${be} No.${no} SPAC`], 'KOSDAQ', profile, rng);
  record.industry = '기타 금융업';
  record.board = 'SPAC(소속부없음)';
  record.is_spac = true;
  record.listing_date = listingDate(rng, '2021-01-04', tradeDates[0] ?? '2022-01-03');
  record.shares_outstanding = (5 + rng.int(15)) * 1_000_000;
  return {
    record, profile, beta: 0.05, gamma: 0, vol: 0.004, drift: 0, trendFrom: tradeDates.length, trendDrift: 0,
    startPrice: onTick(rng.uniform(2_000, 2_300)), baseVolume: 20_000 + rng.int(80_000),
    firstDay: 0, haltFrom: -1, haltTo: -1, inIndex: false,
  };
}

/**
 * Builds `count` issues, `kospi` of them on KOSPI (≈6% of KOSPI slots are
 * preferred classes of the issue before them) and the rest on KOSDAQ (≈4% SPACs);
 * ≈2.5% are listings inside the window with alphanumeric codes like 0126Z0.
 */
export function buildUniverse(seed: number | string, count: number, kospi: number, tradeDates: readonly string[]): SampleIssue[] {
  const ctx: Ctx = { rng: createRng(seed, 'universe'), reg: { codes: new Set(), names: new Set(), spacNo: new Map() }, tradeDates };
  const issues: SampleIssue[] = [];
  for (let i = 0; i < count; i += 1) {
    const market: Market = i < kospi ? 'KOSPI' : 'KOSDAQ';
    const prev = issues.at(-1);
    const slotsLeft = (market === 'KOSPI' ? kospi : count) - i;
    if (market === 'KOSPI' && prev && !prev.record.is_preferred && prev.firstDay === 0 && slotsLeft > 0 && ctx.rng.chance(0.065)) {
      issues.push(createPreferred(ctx, prev));
    } else if (market === 'KOSDAQ' && ctx.rng.chance(0.04)) {
      issues.push(createSpac(ctx));
    } else {
      issues.push(createIssue(ctx, market, ctx.rng.chance(0.025)));
    }
  }
  return issues;
}
