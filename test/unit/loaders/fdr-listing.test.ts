import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { fdrListingLoader } from '../../../loaders/fdr-listing.js';
import { parseFile } from '../../../loaders/registry.js';
import { KONEX_SKIP_REASON } from '../../../loaders/quote-rows.js';
import { krxFile } from './real-data.js';
import type { LoadResult } from '../../../loaders/types.js';

// Reference values below were read from the CSV files with a text viewer / python csv module.
function load(date: string): LoadResult {
  const path = krxFile(`listing/${date}.csv`);
  return parseFile(readFileSync(path), path);
}

describe('fdr-listing on the real 2026-03-20 file', () => {
  const result = load('2026-03-20');

  it('counts rows, skips KONEX and rejects nothing', () => {
    // 2,880 lines = header + 2,879 issues: 951 KOSPI, 1,766 KOSDAQ, 52 KOSDAQ GLOBAL, 110 KONEX.
    expect(result.format).toBe('fdr-listing');
    expect(result.rows_total).toBe(2_879);
    expect(result.skipped).toEqual([{ reason: KONEX_SKIP_REASON, count: 110 }]);
    expect(result.rejected).toEqual([]);
    expect(result.rows_ok).toBe(2_769);
    // 86 non-KONEX issues have Open = High = Low = Volume = 0 that day.
    expect(result.halts).toHaveLength(86);
    expect(result.bars).toHaveLength(2_769 - 86);
    const perMarket = (m: string): number => result.stocks.filter((s) => s.market === m).length;
    expect(perMarket('KOSPI')).toBe(951);
    expect(perMarket('KOSDAQ')).toBe(1_766 + 52);
  });

  it('keeps Samsung Electronics (005930) numbers exactly as the file gives them', () => {
    const bar = result.bars.find((b) => b.stock_code === '005930');
    expect(bar).toEqual({
      stock_code: '005930', trade_date: '2026-03-20', open_price: 202_000, high_price: 202_500, low_price: 199_000,
      close_price: 199_400, volume: 35_279_762, trading_value: 7_019_725_077_866, market_cap: 1_180_375_801_646_800,
      shares_outstanding: 5_919_637_922,
    });
    expect(result.stocks.find((s) => s.code === '005930')).toMatchObject({ name: '삼성전자', market: 'KOSPI', is_preferred: false });
  });

  it('loads an alphanumeric code (0126Z0 삼성에피스홀딩스)', () => {
    const bar = result.bars.find((b) => b.stock_code === '0126Z0');
    expect(bar).toMatchObject({ open_price: 537_000, high_price: 559_000, low_price: 529_000, close_price: 552_000, volume: 77_816 });
  });

  it('turns a halted issue into a halt record, not a bar (001570 금양)', () => {
    expect(result.bars.some((b) => b.stock_code === '001570')).toBe(false);
    expect(result.halts.find((h) => h.stock_code === '001570')).toEqual({
      stock_code: '001570', trade_date: '2026-03-20', last_close: 9_900, market_cap: 633_275_240_400, shares_outstanding: 63_967_196,
    });
  });

  it('maps KOSDAQ GLOBAL to market KOSDAQ with board KOSDAQ GLOBAL (086520 에코프로)', () => {
    expect(result.stocks.find((s) => s.code === '086520')).toMatchObject({ market: 'KOSDAQ', board: 'KOSDAQ GLOBAL', is_administrative: false });
  });

  it('derives administrative, SPAC and preferred flags', () => {
    const stock = (code: string) => result.stocks.find((s) => s.code === code);
    expect(stock('035890')).toMatchObject({ board: '관리종목(소속부없음)', is_administrative: true }); // 서희건설
    expect(stock('452980')).toMatchObject({ board: 'SPAC(소속부없음)', is_spac: true }); // 신한제11호스팩
    // 대신밸런스제16호스팩 is designated administrative, so Dept no longer says SPAC; the name still does.
    expect(stock('457630')).toMatchObject({ is_spac: true, is_administrative: true });
    expect(stock('005935')?.is_preferred).toBe(true); // 삼성전자우
    expect(stock('00680K')?.is_preferred).toBe(true); // 미래에셋증권2우B
    expect(stock('458650')?.is_preferred).toBe(false); // 성우: ends in 우 but is a common share
    expect(result.stocks.filter((s) => s.is_preferred)).toHaveLength(113);
    // KOSPI rows have a blank Dept: the administrative flag is unknown, so it is left out.
    expect(stock('005930')).not.toHaveProperty('is_administrative');
  });

  it('records each stated designation with the file\'s date, and none for KOSPI\'s blank Dept', () => {
    const designation = (code: string) => result.designations?.find((d) => d.stock_code === code);
    expect(designation('035890')).toEqual({ stock_code: '035890', trade_date: '2026-03-20', is_administrative: true, board: '관리종목(소속부없음)' });
    expect(designation('086520')).toEqual({ stock_code: '086520', trade_date: '2026-03-20', is_administrative: false, board: 'KOSDAQ GLOBAL' });
    expect(designation('005930')).toBeUndefined();
    // One per issue whose flag the file states: exactly the issues given an is_administrative
    expect(result.designations).toHaveLength(result.stocks.filter((s) => s.is_administrative !== undefined).length);
  });
});

describe('fdr-listing trade dates', () => {
  it('takes the date from the file name, so each day gets its own bars', () => {
    const bar = load('2026-03-09').bars.find((b) => b.stock_code === '005930');
    expect(bar).toMatchObject({ trade_date: '2026-03-09', close_price: 173_500, volume: 43_066_020 });
  });

  it('lets an option override the date and refuses a non-trading day', () => {
    const text = readFileSync(krxFile('listing/2026-03-20.csv'), 'utf8');
    expect(fdrListingLoader.parse(text, 'quotes.csv', { tradeDate: '2026-03-19' }).bars[0]?.trade_date).toBe('2026-03-19');
    expect(() => fdrListingLoader.parse(text, 'quotes.csv', {})).toThrow(/no trade date/);
    expect(() => fdrListingLoader.parse(text, 'listing/2026-03-21.csv', {})).toThrow(/not a KRX trading day/);
  });
});

describe('fdr-listing validation', () => {
  const header = ',Code,ISU_CD,Name,Market,Dept,Close,ChangeCode,Changes,ChagesRatio,Open,High,Low,Volume,Amount,Marcap,Stocks,MarketId';
  const good = (i: number): string => `${i},${String(100000 + i * 10).padStart(6, '0')},X,종목${i},KOSPI,,1000,1,0,0,1000,1010,990,100,100000,1,1,STK`;

  it('reports a bad row with its line and reason and keeps the rest', () => {
    const rows = Array.from({ length: 40 }, (_, i) => good(i));
    rows[5] = '5,123,X,짧은코드,KOSPI,,1000,1,0,0,1000,1010,990,100,100000,1,1,STK';
    const result = fdrListingLoader.parse([header, ...rows].join('\n'), 'listing/2026-03-20.csv', {});
    expect(result.rejected).toEqual([{ file: 'listing/2026-03-20.csv', line: 7, reason: 'invalid stock code "123"' }]);
    expect(result.bars).toHaveLength(39);
  });

  it('rejects high below close and an unknown market', () => {
    const rows = Array.from({ length: 60 }, (_, i) => good(i));
    rows[0] = '0,000010,X,A,KOSPI,,1000,1,0,0,1000,999,990,100,100000,1,1,STK';
    rows[1] = '1,000020,X,B,NASDAQ,,1000,1,0,0,1000,1010,990,100,100000,1,1,STK';
    const result = fdrListingLoader.parse([header, ...rows].join('\n'), 'listing/2026-03-20.csv', {});
    expect(result.rejected.map((r) => r.reason)).toEqual(['high 999 below max(open 1000, close 1000)', 'unknown market "NASDAQ"']);
  });

  it('refuses the whole file when more than 5% of rows are bad', () => {
    // 20 rows with 2 bad = 10% > 5%.
    const rows = Array.from({ length: 20 }, (_, i) => good(i));
    rows[0] = '0,000010,X,A,KOSPI,,-5,1,0,0,1000,1010,990,100,100000,1,1,STK';
    rows[1] = '1,BAD,X,B,KOSPI,,1000,1,0,0,1000,1010,990,100,100000,1,1,STK';
    const run = () => fdrListingLoader.parse([header, ...rows].join('\n'), 'listing/2026-03-20.csv', {});
    expect(run).toThrow(/2 of 20 rows invalid/);
    try { run(); } catch (e) {
      expect(e).toMatchObject({ code: 'INVALID_REQUEST', details: { rows_rejected: 2, first_reasons: [{ line: 2 }, { line: 3 }] } });
    }
  });
});
