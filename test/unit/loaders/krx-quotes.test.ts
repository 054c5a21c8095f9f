import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { detectFormat, parseFile } from '../../../loaders/registry.js';
import { decodeText } from '../../../loaders/text.js';
import { fixture } from './real-data.js';

// The fixture was written by Python's cp949 codec (an encoder independent of
// iconv-lite) from real 2026-03-20 rows; the KONEX row is invented.
const path = fixture('data_4512_20260320.csv');
const bytes = readFileSync(path);

describe('krx-quotes (KRX website export, EUC-KR)', () => {
  it('detects the format from the undecoded CP949 bytes', () => {
    expect(decodeText(bytes).encoding).toBe('cp949');
    // 112 bytes: the header line and part of the first row, cut inside a multi-byte character.
    expect(detectFormat(path, bytes.subarray(0, 112))).toBe('krx-quotes');
  });

  it('parses rows with Korean headers and takes the date from the file name', () => {
    const result = parseFile(bytes, path);
    expect(result.format).toBe('krx-quotes');
    expect(result.rows_total).toBe(6);
    expect(result.skipped).toEqual([{ reason: 'KONEX issue (market not covered)', count: 1 }]);
    expect(result.bars.find((b) => b.stock_code === '005930')).toEqual({
      stock_code: '005930', trade_date: '2026-03-20', open_price: 202_000, high_price: 202_500, low_price: 199_000,
      close_price: 199_400, volume: 35_279_762, trading_value: 7_019_725_077_866, market_cap: 1_180_375_801_646_800,
      shares_outstanding: 5_919_637_922,
    });
    expect(result.stocks.find((s) => s.code === '005930')?.name).toBe('삼성전자');
  });

  it('handles GLOBAL board, halts, administrative issues and thousands separators', () => {
    const result = parseFile(bytes, path);
    expect(result.stocks.find((s) => s.code === '086520')).toMatchObject({ name: '에코프로', market: 'KOSDAQ', board: 'KOSDAQ GLOBAL' });
    expect(result.halts.map((h) => h.stock_code).sort()).toEqual(['001570', '035890']);
    expect(result.stocks.find((s) => s.code === '035890')?.is_administrative).toBe(true);
    expect(result.bars.find((b) => b.stock_code === '00680K')).toMatchObject({ close_price: 21_600, volume: 981_246, trading_value: 20_920_430_075 });
  });

  it('reads the same content in UTF-8 without a BOM, as a re-saved KRX export is', () => {
    // Given the fixture re-encoded as plain UTF-8 (no byte-order mark)
    const utf8 = Buffer.from(decodeText(bytes).text, 'utf8');
    expect([...utf8.subarray(0, 3)]).not.toEqual([0xef, 0xbb, 0xbf]);
    // When it is detected from its first bytes and parsed
    expect(decodeText(utf8).encoding).toBe('utf-8');
    expect(detectFormat('data_4512_20260320.csv', utf8.subarray(0, 112))).toBe('krx-quotes');
    const result = parseFile(utf8, 'data_4512_20260320.csv');
    // Then it reads exactly like the EUC-KR original: Korean names, numbers, halts and skipped KONEX rows
    const original = parseFile(bytes, path);
    expect(result.format).toBe('krx-quotes');
    expect(result.bars).toEqual(original.bars);
    expect(result.halts).toEqual(original.halts);
    expect(result.stocks).toEqual(original.stocks);
    expect(result.stocks.find((s) => s.code === '005930')?.name).toBe('삼성전자');
    expect(result.skipped).toEqual([{ reason: 'KONEX issue (market not covered)', count: 1 }]);
  });

  it('reads the same content in UTF-8 with a BOM', () => {
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(decodeText(bytes).text, 'utf8')]);
    const result = parseFile(utf8, 'quotes-2026-03-20.csv');
    expect(result.format).toBe('krx-quotes');
    expect(result.bars).toHaveLength(3);
  });
});
