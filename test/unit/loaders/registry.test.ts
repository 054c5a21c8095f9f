import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { detectFormat, parseFile } from '../../../loaders/registry.js';
import { krxFile } from './real-data.js';

const head = (rel: string): Buffer => readFileSync(krxFile(rel)).subarray(0, 4096);

describe('detectFormat', () => {
  it('recognises each kind of real KRX file from its first bytes', () => {
    expect(detectFormat('listing/2026-03-20.csv', head('listing/2026-03-20.csv'))).toBe('fdr-listing');
    expect(detectFormat('desc/2026-03-20.csv', head('desc/2026-03-20.csv'))).toBe('fdr-desc');
    expect(detectFormat('index/kospi/2026.csv', head('index/kospi/2026.csv'))).toBe('fdr-index');
    expect(detectFormat('index/kosdaq/2025.csv', head('index/kosdaq/2025.csv'))).toBe('fdr-index');
  });

  it('recognises the other formats from their headers', () => {
    expect(detectFormat('005930.csv', 'Date,Open,High,Low,Close,Volume,Change\n2026-03-20,1,1,1,1,1,0')).toBe('ohlcv');
    expect(detectFormat('x.csv', 'Code,Name,Market,Sector,Industry,ListingDate,Shares,NameEnglish\n')).toBe('listing-csv');
    expect(detectFormat('f.csv', 'code,fiscal_year,fiscal_quarter,revenue,net_profit\n')).toBe('financials-csv');
    expect(detectFormat('005930_2025.json', '{"status":"000","message":"정상","list":[{"rcept_no":"2025')).toBe('dart-json');
    expect(detectFormat('dump.ndjson', '{"kind":"meta","format":"stockscreen-market","version":1}\n{"kind":"stock"')).toBe('ndjson');
    expect(detectFormat('note.csv', 'hello,world\n')).toBeNull();
  });
});

describe('parseFile', () => {
  it('refuses content it cannot recognise', () => {
    expect(() => parseFile('a,b\n1,2\n', 'mystery.csv')).toThrow(/unrecognised file format/);
  });

  it('parses with an explicit format even when detection would fail', () => {
    const result = parseFile('Date,Open,High,Low,Close,Volume\n2026-03-20,100,110,90,105,10\n', 'x/005930.csv', {}, 'ohlcv');
    expect(result.bars).toHaveLength(1);
  });
});
