/**
 * The KRX Open API mapping: a daily-trades answer (every value a string) gives exactly the
 * records the fdr-listing loader gives for the same day's file; the composite index row is
 * picked by name; rows of another date and non-string values are rejected with their reason;
 * a saved answer is detected and loaded as a file.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KRX_TRADE_COLUMNS, parseKrxBaseInfo, parseKrxIndex, parseKrxTrades } from '../../../loaders/krx-openapi.js';
import { detectFormat, parseFile } from '../../../loaders/registry.js';
import { krxFile } from '../../helpers/krx-fixtures.js';

const DAY = '2026-03-20';
const listing = parseFile(readFileSync(krxFile(`listing/${DAY}.csv`)), `${DAY}.csv`);

/** The day's file as the API's rows (the portal table both come from), KONEX left out as the API's stk/ksq services do. */
function apiRows(): Record<string, string>[] {
  const text = readFileSync(krxFile(`listing/${DAY}.csv`), 'utf8').replace(/^\uFEFF/, '');
  const [head, ...lines] = text.trimEnd().split('\n');
  const cols = head!.split(',');
  const at = (name: string) => cols.indexOf(name);
  return lines.map((l) => l.split(',')).filter((f) => f[at('Market')] !== 'KONEX').map((f) => ({
    BAS_DD: '20260320', ISU_CD: f[at('Code')]!, ISU_NM: f[at('Name')]!, MKT_NM: f[at('Market')]!, SECT_TP_NM: f[at('Dept')]!,
    TDD_CLSPRC: f[at('Close')]!, CMPPREVDD_PRC: f[at('Changes')]!, FLUC_RT: f[at('ChagesRatio')]!, TDD_OPNPRC: f[at('Open')]!,
    TDD_HGPRC: f[at('High')]!, TDD_LWPRC: f[at('Low')]!, ACC_TRDVOL: f[at('Volume')]!, ACC_TRDVAL: f[at('Amount')]!, MKTCAP: f[at('Marcap')]!, LIST_SHRS: f[at('Stocks')]!,
  }));
}

describe('KRX Open API daily trades', () => {
  it('maps to the same bars, halts, stock updates and designations as the fdr-listing loader', () => {
    const rows = apiRows();
    expect(rows.every((r) => Object.keys(KRX_TRADE_COLUMNS).every((k) => typeof r[KRX_TRADE_COLUMNS[k as keyof typeof KRX_TRADE_COLUMNS]] === 'string'))).toBe(true);
    const api = parseKrxTrades({ OutBlock_1: rows }, 'krx', DAY);
    expect(api.rejected).toEqual([]);
    expect(api.bars).toEqual(listing.bars);
    expect(api.halts).toEqual(listing.halts);
    expect(api.stocks).toEqual(listing.stocks);
    expect(api.designations).toEqual(listing.designations);
  });

  it('rejects a row of another date and a value that is not a string, with their reasons', () => {
    const [a, b, ...rest] = apiRows();
    const result = parseKrxTrades({ OutBlock_1: [{ ...a, BAS_DD: '20260319' }, { ...b, TDD_CLSPRC: 199400 }, ...rest] }, 'krx', DAY);
    expect(result.rejected.map((r) => [r.line, r.reason])).toEqual([[1, 'BAS_DD "20260319" is not 20260320'], [2, 'TDD_CLSPRC is not a string']]);
  });

  it('refuses a body that is not an answer', () => {
    expect(() => parseKrxTrades({ respCode: '401' }, 'krx', DAY)).toThrow(/no OutBlock_1/);
  });

  it('is detected and loaded as a saved file, its date from BAS_DD', () => {
    const text = JSON.stringify({ OutBlock_1: apiRows() });
    expect(detectFormat('answer.json', text.slice(0, 8192))).toBe('krx-openapi');
    const loaded = parseFile(text, 'answer.json');
    expect(loaded.format).toBe('krx-openapi');
    expect(loaded.bars).toEqual(listing.bars);
  });
});

describe('KRX Open API index and base info', () => {
  const row = (name: string, close: string) => ({ BAS_DD: '20260320', IDX_CLSS: 'KOSPI', IDX_NM: name, CLSPRC_IDX: close, CMPPREVDD_IDX: '-1.00', FLUC_RT: '-0.02', OPNPRC_IDX: '5,813.35', HGPRC_IDX: '5833.68', LWPRC_IDX: '5764.64', ACC_TRDVOL: '1490805229', ACC_TRDVAL: '34025853798776', MKTCAP: '1' });

  it('takes the composite row by its name, not the first row of the family', () => {
    const bar = parseKrxIndex({ OutBlock_1: [row('코스피 200', '800.10'), row('코스피', '5781.20')] }, 'idx', 'KOSPI', DAY);
    expect(bar).toEqual({ market: 'KOSPI', trade_date: DAY, open: 5813.35, high: 5833.68, low: 5764.64, close: 5781.2, volume: 1490805229, trading_value: 34025853798776 });
    expect(() => parseKrxIndex({ OutBlock_1: [row('코스피 200', '800.10')] }, 'idx', 'KOSPI', DAY)).toThrow(/no 코스피/);
  });

  it('keeps listing dates and English names of KOSPI/KOSDAQ issues only', () => {
    const updates = parseKrxBaseInfo({ OutBlock_1: [
      { ISU_SRT_CD: '005930', LIST_DD: '19750611', ISU_ENG_NM: 'SamsungElectronics', MKT_TP_NM: 'KOSPI' },
      { ISU_SRT_CD: '123456', LIST_DD: '20200101', ISU_ENG_NM: 'Konex Co', MKT_TP_NM: 'KONEX' },
      { ISU_SRT_CD: '035720', LIST_DD: '', ISU_ENG_NM: '', MKT_TP_NM: 'KOSPI' },
    ] }, 'base');
    expect(updates).toEqual([{ code: '005930', listing_date: '1975-06-11', name_english: 'SamsungElectronics' }]);
  });
});
