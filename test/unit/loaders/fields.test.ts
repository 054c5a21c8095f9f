import { describe, it, expect } from 'vitest';
import { codeFromFileName, dateFromFileName, mapMarket, marketFromPath, normalizeDate, parseNumber } from '../../../loaders/fields.js';

describe('cell parsing', () => {
  it('reads numbers with or without thousands separators; blank and dash are null', () => {
    expect(parseNumber('1,180,375,801,646,800')).toBe(1_180_375_801_646_800);
    expect(parseNumber(' -0.55 ')).toBe(-0.55);
    expect(parseNumber('')).toBeNull();
    expect(parseNumber('-')).toBeNull();
    expect(parseNumber('12a')).toBeNaN();
  });

  it('normalises the date spellings found in market files', () => {
    expect(normalizeDate('2026-03-20')).toBe('2026-03-20');
    expect(normalizeDate('20260320')).toBe('2026-03-20');
    expect(normalizeDate('2026/03/20')).toBe('2026-03-20');
    expect(normalizeDate('2026-03-20 00:00:00')).toBe('2026-03-20');
    expect(normalizeDate('2026-02-30')).toBeNull();
    expect(normalizeDate('March 20')).toBeNull();
  });

  it('maps market names, KOSDAQ GLOBAL to KOSDAQ and KONEX to the skip marker', () => {
    expect(mapMarket('KOSPI')).toEqual({ market: 'KOSPI', global: false });
    expect(mapMarket('KOSDAQ GLOBAL')).toEqual({ market: 'KOSDAQ', global: true });
    expect(mapMarket('KSQ')).toEqual({ market: 'KOSDAQ', global: false });
    expect(mapMarket('KONEX')).toBe('KONEX');
    expect(mapMarket('NYSE')).toBeNull();
  });
});

describe('file-name inference', () => {
  it('finds a trade date written either way', () => {
    expect(dateFromFileName('/x/listing/2026-03-09.csv')).toBe('2026-03-09');
    expect(dateFromFileName('data_4512_20260320.csv')).toBe('2026-03-20');
    expect(dateFromFileName('index/kospi/2026.csv')).toBeNull();
  });

  it('finds a 6-character code, including alphanumeric ones', () => {
    expect(codeFromFileName('/h/005930.csv')).toBe('005930');
    expect(codeFromFileName('0126Z0_daily.csv')).toBe('0126Z0');
    expect(codeFromFileName('005930_20260320.csv')).toBe('005930');
    expect(codeFromFileName('prices.csv')).toBeNull();
  });

  it('finds the market from a folder or file name', () => {
    expect(marketFromPath('/d/index/kospi/2026.csv')).toBe('KOSPI');
    expect(marketFromPath('/d/kosdaq_2025.csv')).toBe('KOSDAQ');
    expect(marketFromPath('/d/index/2025.csv')).toBeNull();
  });
});
