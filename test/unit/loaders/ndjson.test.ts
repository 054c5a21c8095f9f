import { PassThrough, Readable } from 'node:stream';
import { describe, it, expect } from 'vitest';
import { ndjsonLoader, serializeNdjson, streamNdjson, writeNdjson } from '../../../loaders/ndjson.js';
import type { MarketRecords } from '../../../loaders/types.js';

const records: MarketRecords = {
  stocks: [{ code: '005930', name: '삼성전자', market: 'KOSPI', is_preferred: false, shares_outstanding: 5_919_637_922 }],
  bars: [{
    stock_code: '005930', trade_date: '2026-03-20', open_price: 202_000, high_price: 202_500, low_price: 199_000, close_price: 199_400,
    volume: 35_279_762, trading_value: 7_019_725_077_866, market_cap: 1_180_375_801_646_800, shares_outstanding: 5_919_637_922,
  }],
  halts: [{ stock_code: '001570', trade_date: '2026-03-20', last_close: 9_900, market_cap: 633_275_240_400, shares_outstanding: 63_967_196 }],
  financials: [{
    stock_code: '005930', fiscal_year: 2025, fiscal_quarter: 4, revenue: 1, operating_profit: 2, net_profit: -3, total_assets: 4, equity: 5,
    gross_profit: null, operating_cash_flow: 6, total_liabilities: 7, current_assets: 8, current_liabilities: 9, long_term_debt: 10,
    cash: 11, retained_earnings: -12, shares_outstanding: 13, dividends_per_share: 0,
  }],
  index: [{ market: 'KOSPI', trade_date: '2026-03-20', open: 5_813.35, high: 5_833.68, low: 5_764.64, close: 5_781.2, volume: 1, trading_value: 2 }],
  designations: [{ stock_code: '035890', trade_date: '2026-03-20', is_administrative: true, board: '관리종목(소속부없음)' }],
};

describe('ndjson round trip', () => {
  it('reads back exactly what was written', () => {
    const text = serializeNdjson(records);
    expect(text.split('\n')[1]).toBe('{"kind":"stock","code":"005930","name":"삼성전자","market":"KOSPI","is_preferred":false,"shares_outstanding":5919637922}');
    const result = ndjsonLoader.parse(text, 'dump.ndjson', {});
    const { stocks, bars, halts, financials, index, designations } = result;
    expect({ stocks, bars, halts, financials, index, designations }).toEqual(records);
    expect(result.skipped).toEqual([{ reason: 'meta line', count: 1 }]);
    expect(result.rows_ok).toBe(6);
  });

  it('writes through a stream with the same content', async () => {
    const out = new PassThrough();
    const parts: string[] = [];
    out.on('data', (c: Buffer) => parts.push(c.toString('utf8')));
    const lines = await writeNdjson(out, [records, { bars: records.bars }]);
    out.end();
    expect(lines).toBe(1 + 6 + 1);
    expect(parts.join('').split('\n').filter(Boolean)).toHaveLength(8);
  });
});

describe('ndjson validation', () => {
  it('reports bad lines with their number and reason', () => {
    const text = [
      '{"kind":"bar","stock_code":"005930","trade_date":"2026-03-21","open_price":1,"high_price":1,"low_price":1,"close_price":1,"volume":1,"trading_value":1}',
      'not json',
      '{"kind":"trade"}',
      '{"kind":"stock","code":"005930","market":"NYSE"}',
      '{"kind":"designation","stock_code":"035890","trade_date":"2026-03-20","is_administrative":"yes"}',
    ].join('\n');
    const result = ndjsonLoader.parse(text, 'bad.ndjson', { maxBadRatio: 1 });
    expect(result.rejected.map((r) => [r.line, r.reason])).toEqual([
      [1, 'bar: 2026-03-21 is not a KRX trading day'],
      [2, 'not valid JSON'],
      [3, 'unknown kind "trade"'],
      [4, 'stock: unknown market "NYSE"'],
      [5, 'designation: is_administrative must be a boolean'],
    ]);
  });
});

describe('streamNdjson', () => {
  const barLine = (i: number): string => JSON.stringify({ kind: 'bar', ...records.bars[0], volume: i });

  it('yields chunks with file-wide line numbers', async () => {
    const lines = [...Array.from({ length: 5 }, (_, i) => barLine(i)), '{"kind":"halt","stock_code":"x"}',
      ...Array.from({ length: 20 }, (_, i) => barLine(i))];
    const chunks = [];
    for await (const c of streamNdjson(Readable.from([lines.join('\n')]), 's.ndjson', { chunkRows: 10, maxBadRatio: 0.5 })) chunks.push(c);
    expect(chunks.map((c) => c.rows_total)).toEqual([10, 10, 6]);
    expect(chunks.reduce((n, c) => n + c.bars.length, 0)).toBe(25);
    expect(chunks[0]?.rejected[0]).toMatchObject({ line: 6 });
  });

  it('stops once the running bad-row share passes 5%', async () => {
    const lines = Array.from({ length: 3_000 }, (_, i) => (i % 10 === 0 ? 'oops' : barLine(i)));
    const run = async (): Promise<number> => {
      let seen = 0;
      for await (const c of streamNdjson(Readable.from([lines.join('\n')]), 's.ndjson', { chunkRows: 1_000 })) seen += c.rows_total;
      return seen;
    };
    await expect(run()).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { rows_rejected: 100 } });
  });
});
