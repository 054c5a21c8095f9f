import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { fdrIndexLoader } from '../../../loaders/fdr-index.js';
import { krxFile } from './real-data.js';

const text = (rel: string): string => readFileSync(krxFile(rel), 'utf8').replace(/^\uFEFF/, '');

describe('fdr-index on the real index files', () => {
  it('reads the KOSPI 2026 series with the market from the folder name', () => {
    const path = krxFile('index/kospi/2026.csv');
    const result = fdrIndexLoader.parse(text('index/kospi/2026.csv'), path, {});
    expect(result.rows_total).toBe(52);
    expect(result.rejected).toEqual([]);
    expect(result.index.at(-1)).toEqual({
      market: 'KOSPI', trade_date: '2026-03-20', open: 5_813.35, high: 5_833.68, low: 5_764.64, close: 5_781.2,
      volume: 1_490_805_229, trading_value: 34_025_853_798_776,
    });
  });

  it('reads KOSDAQ 2025 (242 trading days) and its first day', () => {
    const result = fdrIndexLoader.parse(text('index/kosdaq/2025.csv'), krxFile('index/kosdaq/2025.csv'), {});
    expect(result.index).toHaveLength(242);
    expect(result.index[0]).toMatchObject({ market: 'KOSDAQ', trade_date: '2025-01-02', close: 686.63, open: 678.98 });
  });

  it('needs a market from the option or the path', () => {
    const body = text('index/kospi/2026.csv');
    expect(() => fdrIndexLoader.parse(body, '/tmp/2026.csv', {})).toThrow(/no market/);
    expect(fdrIndexLoader.parse(body, '/tmp/2026.csv', { market: 'KOSDAQ' }).index[0]?.market).toBe('KOSDAQ');
  });

  it('rejects a row dated on a holiday', () => {
    const body = 'Date,Close,UpDown,Comp,Change,Open,High,Low,Volume,Amount,MarCap\n2026-03-02,100,1,1,0.01,99,101,98,1,1,1\n';
    expect(() => fdrIndexLoader.parse(body, 'kospi/x.csv', {})).toThrow(/1 of 1 rows invalid/);
    const lenient = fdrIndexLoader.parse(body, 'kospi/x.csv', { maxBadRatio: 1 });
    expect(lenient.rejected[0]?.reason).toBe('2026-03-02 is not a KRX trading day');
  });
});
