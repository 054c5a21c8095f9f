import { readFileSync } from 'node:fs';
import { beforeAll, describe, it, expect } from 'vitest';
import { isTradingDay } from '../../../daemon/kernel/krx-calendar.js';
import { isOnTick, priceLimits } from '../../../daemon/kernel/tick-size.js';
import { OPTIONAL_FINANCIAL_FIELDS, STOCK_CODE_PATTERN } from '../../../daemon/kernel/records.js';
import type { FinancialQuarter, IndexBar, StockRecord } from '../../../daemon/kernel/records.js';
import { createSampleMarket, generateSampleMarket } from '../../../loaders/sample-market.js';
import type { SampleMarketChunk, SampleMarketOptions } from '../../../loaders/sample-market.js';
import { ndjsonLoader, serializeNdjson } from '../../../loaders/ndjson.js';
import { sectorForIndustry } from '../../../loaders/sectors.js';
import { fdrListingLoader } from '../../../loaders/fdr-listing.js';
import { listedUniverse } from '../../../loaders/sample/universe.js';
import { krxFile } from '../../helpers/krx-fixtures.js';
import { checkBar } from '../../../loaders/validate.js';

function collect(options: SampleMarketOptions): SampleMarketChunk {
  const all: SampleMarketChunk = { stocks: [], bars: [], halts: [], financials: [], index: [] };
  for (const c of generateSampleMarket(options)) {
    for (const k of ['stocks', 'bars', 'halts', 'financials', 'index'] as const) (all[k] as unknown[]).push(...c[k]);
  }
  return all;
}

describe('sample market determinism', () => {
  const small = { stocks: 120, days: 120, endDate: '2025-06-30' };

  it('gives identical data for the same seed, whatever the chunk size', () => {
    const a = collect({ ...small, seed: 7, chunkStocks: 100 });
    const b = collect({ ...small, seed: 7, chunkStocks: 7 });
    expect(b).toEqual(a);
    expect(a.bars.length).toBeGreaterThan(100 * 100);
  });

  it('gives different prices and statements for a different seed, over the same listed issues', () => {
    const a = collect({ ...small, seed: 7 });
    const b = collect({ ...small, seed: 8 });
    expect(b.stocks).toEqual(a.stocks);
    expect(b.bars.map((x) => x.close_price)).not.toEqual(a.bars.map((x) => x.close_price));
    expect(b.financials.map((f) => f.revenue)).not.toEqual(a.financials.map((f) => f.revenue));
  });

  it('gives an issue the same data whichever subset of the market is generated', () => {
    // The index differs (its constituents do); an issue's own bars and statements do not.
    const few = collect({ ...small, seed: 7, stocks: 20 });
    const many = collect({ ...small, seed: 7, stocks: 120 });
    const codes = new Set(few.stocks.map((s) => s.code));
    expect([...codes].every((c) => many.stocks.some((s) => s.code === c))).toBe(true);
    expect(many.bars.filter((b) => codes.has(b.stock_code))).toEqual(few.bars);
    expect(many.financials.filter((f) => codes.has(f.stock_code))).toEqual(few.financials);
  });

  it('round-trips through the NDJSON format', () => {
    const market = collect({ ...small, stocks: 30, seed: 3 });
    const back = ndjsonLoader.parse(serializeNdjson(market), 'sample.ndjson', {});
    expect(back.rejected).toEqual([]);
    expect({ stocks: back.stocks, bars: back.bars, halts: back.halts, financials: back.financials, index: back.index }).toEqual(market);
  });

  it('refuses invalid options', () => {
    expect(() => createSampleMarket({ stocks: 0 })).toThrow(/invalid sample market options/);
    expect(() => createSampleMarket({ stocks: 5_000 })).toThrow(/invalid sample market options/);
    expect(() => createSampleMarket({ endDate: '2026-13-01' })).toThrow(/invalid sample market options/);
  });
});

/** What the full default market is checked for, gathered in one pass over its chunks. */
interface Scan {
  stocks: StockRecord[];
  tradeDates: readonly string[];
  bars: number;
  halts: number;
  problems: string[];
  /** code → close per trade-date index (NaN when no bar). */
  closes: Map<string, Float64Array>;
  /** code → last known price (bar close or halt last close) per trade-date index. */
  known: Map<string, Float64Array>;
  financials: FinancialQuarter[];
  index: IndexBar[];
}

function scanDefaultMarket(): Scan {
  const market = createSampleMarket({ seed: 2026 });
  const dayIndex = new Map(market.tradeDates.map((d, i) => [d, i]));
  const shares = new Map(market.stocks.map((s) => [s.code, s.shares_outstanding ?? 0]));
  const scan: Scan = { stocks: [...market.stocks], tradeDates: market.tradeDates, bars: 0, halts: 0, problems: [], closes: new Map(), known: new Map(), financials: [], index: [] };
  const series = (map: Map<string, Float64Array>, code: string): Float64Array => {
    let a = map.get(code);
    if (!a) { a = new Float64Array(market.tradeDates.length).fill(Number.NaN); map.set(code, a); }
    return a;
  };
  const problem = (text: string): void => { if (scan.problems.length < 20) scan.problems.push(text); };
  for (const chunk of market.chunks()) {
    for (const h of chunk.halts) { scan.halts += 1; series(scan.known, h.stock_code)[dayIndex.get(h.trade_date) ?? -1] = h.last_close; }
    for (const b of chunk.bars) {
      scan.bars += 1;
      const t = dayIndex.get(b.trade_date) ?? -1;
      series(scan.closes, b.stock_code)[t] = b.close_price;
      const known = series(scan.known, b.stock_code);
      known[t] = b.close_price;
      const reason = checkBar(b);
      if (reason) problem(`${b.stock_code} ${b.trade_date}: ${reason}`);
      if (![b.open_price, b.high_price, b.low_price, b.close_price].every(isOnTick)) problem(`${b.stock_code} ${b.trade_date}: off the tick grid`);
      const prev = known[t - 1];
      if (prev !== undefined && !Number.isNaN(prev)) {
        const { upper, lower } = priceLimits(prev);
        if (b.high_price > upper || b.low_price < lower) problem(`${b.stock_code} ${b.trade_date}: outside ±30% of ${prev}`);
      }
      if (b.trading_value < b.volume * b.low_price || b.trading_value > b.volume * b.high_price) problem(`${b.stock_code}: value not within volume × [low, high]`);
      if (b.market_cap !== b.close_price * (shares.get(b.stock_code) ?? 0)) problem(`${b.stock_code}: market cap ≠ close × shares`);
    }
    scan.financials.push(...chunk.financials);
    scan.index.push(...chunk.index);
  }
  return scan;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const sma = (a: Float64Array, end: number, n: number): number => {
  let s = 0;
  for (let i = end - n + 1; i <= end; i += 1) s += a[i] as number;
  return s / n;
};
function returns(a: Float64Array): number[] {
  const out: number[] = [];
  for (let i = 1; i < a.length; i += 1) out.push(Math.log((a[i] as number) / (a[i - 1] as number)));
  return out;
}
function correlation(x: number[], y: number[]): number {
  const mx = mean(x); const my = mean(y);
  let sxy = 0; let sxx = 0; let syy = 0;
  x.forEach((xi, i) => { const dx = xi - mx; const dy = (y[i] as number) - my; sxy += dx * dy; sxx += dx * dx; syy += dy * dy; });
  return sxy / Math.sqrt(sxx * syy);
}

describe('the default sample market (seed 2026)', () => {
  let scan: Scan;
  beforeAll(() => { scan = scanDefaultMarket(); }, 120_000);

  it('is the real listed universe of 2026-03-20: every KOSPI and KOSDAQ issue, as KRX lists it', () => {
    // Given the real listing file of that day, read by the product's own loader
    const real = fdrListingLoader.parse(readFileSync(krxFile('listing/2026-03-20.csv'), 'utf8'), '2026-03-20.csv', {});
    const realByCode = new Map(real.stocks.map((s) => [s.code, s]));
    // Then the sample market has the same issues, names, markets and shares outstanding
    expect(scan.stocks).toHaveLength(real.stocks.length);
    expect(new Set(scan.stocks.map((s) => s.code))).toEqual(new Set(realByCode.keys()));
    for (const s of scan.stocks) {
      const r = realByCode.get(s.code)!;
      expect([s.code, s.name, s.market, s.shares_outstanding, s.is_spac, s.is_preferred]).toEqual([r.code, r.name, r.market, r.shares_outstanding, r.is_spac, r.is_preferred]);
    }
    expect(scan.stocks.every((s) => STOCK_CODE_PATTERN.test(s.code))).toBe(true);
    expect(scan.stocks.some((s) => /[A-Z]/.test(s.code))).toBe(true); // new-style codes like 0126Z0
    // And every issue has an English name; 005930 is 삼성전자 as everywhere
    expect(scan.stocks.every((s) => typeof s.name_english === 'string' && /^[\x20-\x7e]+$/.test(s.name_english))).toBe(true);
    expect(scan.stocks.find((s) => s.code === '005930')).toMatchObject({ name: '삼성전자', name_english: 'Samsung Electronics', market: 'KOSPI', sector: '전기전자' });
    expect(scan.stocks.find((s) => s.code === '005935')).toMatchObject({ name: '삼성전자우', name_english: 'Samsung Electronics Pref', is_preferred: true });
    expect(scan.stocks.find((s) => s.code === '000660')).toMatchObject({ name: 'SK하이닉스', name_english: 'SK hynix' });
  });

  it('ends each issue near its real close of 2026-03-20 (삼성전자 near its real level)', () => {
    const last = scan.tradeDates.length - 1;
    const real = new Map(listedUniverse().map((i) => [i.record.code, i.close]));
    const samsung = scan.known.get('005930')![last]!;
    expect(Math.abs(samsung / real.get('005930')! - 1)).toBeLessThan(0.05);
    const off = [...scan.known].filter(([code, a]) => Math.abs(Math.log((a[last] as number) / real.get(code)!)) > 0.1).map(([code]) => code);
    expect(off.length / scan.known.size).toBeLessThan(0.01);
    // And the composite indexes end at the real composite closes
    expect(scan.index.filter((i) => i.trade_date === '2026-03-20').map((i) => [i.market, i.close])).toEqual([['KOSPI', 5781.2], ['KOSDAQ', 1161.52]]);
  });

  it('keeps --stocks N meaningful: the N largest issues, both markets in proportion', () => {
    const market = createSampleMarket({ seed: 2026, stocks: 30 });
    expect(market.stocks.slice(0, 2).map((s) => s.code)).toEqual(['005930', '000660']);
    const kospi = market.stocks.filter((s) => s.market === 'KOSPI');
    expect(kospi.length).toBeGreaterThan(5);
    expect(market.stocks.length - kospi.length).toBeGreaterThan(10);
    // every KOSDAQ issue chosen is larger than every KOSDAQ issue left out
    const cap = (s: StockRecord) => (listedUniverse().find((i) => i.record.code === s.code)!.close) * (s.shares_outstanding ?? 0);
    const chosen = new Set(market.stocks.map((s) => s.code));
    const smallestChosen = Math.min(...market.stocks.filter((s) => s.market === 'KOSDAQ').map(cap));
    const largestLeft = Math.max(...scan.stocks.filter((s) => s.market === 'KOSDAQ' && !chosen.has(s.code)).map(cap));
    expect(smallestChosen).toBeGreaterThanOrEqual(largestLeft);
  });

  it('spans 500 KRX trading days ending 2026-03-20 with ≈1.33M bars (issues listed inside the window start on their listing day)', () => {
    expect(scan.tradeDates).toHaveLength(500);
    expect(scan.tradeDates.at(-1)).toBe('2026-03-20');
    expect(scan.tradeDates.every(isTradingDay)).toBe(true);
    expect(scan.bars + scan.halts).toBeGreaterThan(1_300_000);
    expect(scan.bars + scan.halts).toBeLessThanOrEqual(1_340_000);
    const episFirst = [...scan.known.get('0126Z0')!].findIndex((x) => !Number.isNaN(x));
    expect(scan.tradeDates[episFirst]).toBe('2025-11-24');
    expect(scan.halts).toBeGreaterThan(0);
  });

  it('produces only valid bars: tick grid, daily limits, high/low, value ≈ volume × price', () => {
    expect(scan.problems).toEqual([]);
  });

  it('assigns sectors consistent with the KSIC industry names', () => {
    expect(scan.stocks.every((s) => sectorForIndustry(s.industry, s.market) === s.sector)).toBe(true);
    const sectorsOf = (m: string) => new Set(scan.stocks.filter((s) => s.market === m).map((s) => s.sector));
    for (const s of ['전기전자', '화학', '은행', '보험', '증권']) expect(sectorsOf('KOSPI').has(s as never)).toBe(true);
    for (const s of ['반도체', '바이오', '소프트웨어', '제약']) expect(sectorsOf('KOSDAQ').has(s as never)).toBe(true);
  });

  it('has eight complete quarters for every common issue', () => {
    const common = scan.stocks.filter((s) => !s.is_preferred);
    expect(scan.financials).toHaveLength(common.length * 8);
    const fields = ['revenue', 'operating_profit', 'net_profit', 'total_assets', 'equity', ...OPTIONAL_FINANCIAL_FIELDS] as const;
    expect(scan.financials.every((f) => fields.every((k) => typeof f[k] === 'number' && Number.isFinite(f[k])))).toBe(true);
    expect(scan.financials.every((f) => f.total_assets === (f.total_liabilities ?? 0) + (f.equity ?? 0))).toBe(true);
    expect(scan.financials.every((f) => (f.gross_profit ?? 0) >= (f.operating_profit ?? 0))).toBe(true);
    const first = scan.financials.filter((f) => f.stock_code === common[0]?.code).map((f) => `${f.fiscal_year}Q${f.fiscal_quarter}`);
    expect(first).toEqual(['2024Q1', '2024Q2', '2024Q3', '2024Q4', '2025Q1', '2025Q2', '2025Q3', '2025Q4']);
  });

  it('includes loss-makers, turnarounds and dividend payers', () => {
    const byCode = new Map<string, FinancialQuarter[]>();
    for (const f of scan.financials) byCode.set(f.stock_code, [...(byCode.get(f.stock_code) ?? []), f]);
    const net = (qs: FinancialQuarter[]) => qs.map((q) => q.net_profit ?? 0);
    const all = [...byCode.values()];
    const lossMakers = all.filter((qs) => net(qs).every((n) => n < 0)).length;
    // Turnaround: each of the latest four quarters profitable, each of the year before loss-making.
    const turnarounds = all.filter((qs) => net(qs).slice(0, 4).every((n) => n < 0) && net(qs).slice(4).every((n) => n > 0)).length;
    const payers = all.filter((qs) => qs.some((q) => (q.dividends_per_share ?? 0) > 0)).length;
    expect(lossMakers / all.length).toBeGreaterThan(0.05);
    expect(lossMakers / all.length).toBeLessThan(0.4);
    expect(turnarounds / all.length).toBeGreaterThan(0.02);
    expect(payers / all.length).toBeGreaterThan(0.2);
  });

  it('has trending issues: 52-week highs, aligned moving averages and golden crosses', () => {
    const last = scan.tradeDates.length - 1;
    const full = [...scan.closes.values()].filter((a) => a.every((x) => !Number.isNaN(x)));
    const at52wHigh = full.filter((a) => (a[last] as number) >= Math.max(...a.subarray(last - 249))).length;
    const aligned = full.filter((a) => sma(a, last, 5) > sma(a, last, 20) && sma(a, last, 20) > sma(a, last, 60) && sma(a, last, 60) > sma(a, last, 120)).length;
    const crossed = full.filter((a) => sma(a, last, 5) > sma(a, last, 20) && sma(a, last - 10, 5) < sma(a, last - 10, 20)).length;
    expect(full.length).toBeGreaterThan(2_000);
    expect(at52wHigh / full.length).toBeGreaterThan(0.02);
    expect(aligned / full.length).toBeGreaterThan(0.05);
    expect(crossed).toBeGreaterThan(50);
  });

  it('makes same-sector issues move together more than issues of different sectors', () => {
    const pick = (sector: string) => scan.stocks.filter((s) => s.market === 'KOSPI' && s.sector === sector && !s.is_preferred)
      .map((s) => scan.closes.get(s.code)).filter((a): a is Float64Array => !!a && a.every((x) => !Number.isNaN(x))).slice(0, 12).map(returns);
    const a = pick('은행'); const b = pick('화학');
    const within = a.flatMap((x, i) => a.slice(i + 1).map((y) => correlation(x, y)));
    const across = a.flatMap((x) => b.map((y) => correlation(x, y)));
    expect(mean(within)).toBeGreaterThan(mean(across));
    expect(mean(across)).toBeGreaterThan(0.05); // the shared market factor
  });

  it('gives KOSPI issues plausible betas against the KOSPI index', () => {
    const kospi = scan.index.filter((i) => i.market === 'KOSPI');
    const m = returns(Float64Array.from(kospi.map((i) => i.close)));
    const mm = mean(m);
    const varM = mean(m.map((x) => (x - mm) ** 2));
    const betas = scan.stocks.filter((s) => s.market === 'KOSPI' && !s.is_preferred).map((s) => scan.closes.get(s.code))
      .filter((a): a is Float64Array => !!a && a.every((x) => !Number.isNaN(x))).map((a) => {
        const r = returns(a); const mr = mean(r);
        return mean(r.map((x, i) => (x - mr) * ((m[i] as number) - mm))) / varM;
      }).sort((x, y) => x - y);
    const median = betas[Math.floor(betas.length / 2)] as number;
    expect(median).toBeGreaterThan(0.6);
    expect(median).toBeLessThan(1.4);
  });

  it('chain-links each index from its constituents (common shares, no SPACs)', () => {
    const kospi = scan.index.filter((i) => i.market === 'KOSPI');
    expect(kospi).toHaveLength(500);
    expect(scan.index.filter((i) => i.market === 'KOSDAQ')).toHaveLength(500);
    const members = scan.stocks.filter((s) => s.market === 'KOSPI' && !s.is_preferred && !s.is_spac);
    for (const t of [1, 137, 250, 499]) {
      let now = 0; let before = 0;
      for (const s of members) {
        const close = scan.closes.get(s.code)?.[t];
        const prev = scan.known.get(s.code)?.[t - 1];
        if (close === undefined || prev === undefined || Number.isNaN(close) || Number.isNaN(prev)) continue;
        now += close * (s.shares_outstanding ?? 0);
        before += prev * (s.shares_outstanding ?? 0);
      }
      const ratio = (kospi[t]?.close ?? 0) / (kospi[t - 1]?.close ?? 1);
      expect(ratio).toBeCloseTo(now / before, 4);
      const bar = kospi[t] as IndexBar;
      expect(bar.high).toBeGreaterThanOrEqual(Math.max(bar.open ?? 0, bar.close));
      expect(bar.low).toBeLessThanOrEqual(Math.min(bar.open ?? 0, bar.close));
    }
  });
});
