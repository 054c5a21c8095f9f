import { describe, it, expect } from 'vitest';
import { addRecord, emptyResult, enforceBadRowLimit, REASONS_LISTED, reject, rejectUnlisted, skip } from '../../../loaders/result.js';
import type { LoadResult } from '../../../loaders/types.js';

function resultWith(total: number, bad: number, skipped = 0): LoadResult {
  const r = emptyResult('fdr-listing', 'f.csv');
  r.rows_total = total;
  for (let i = 0; i < bad; i += 1) reject(r, i + 2, 'bad');
  if (skipped > 0) skip(r, 'KONEX', skipped);
  r.rows_ok = total - bad - skipped;
  return r;
}

describe('the 5% bad-row rule', () => {
  it('accepts exactly 5% and refuses anything above', () => {
    expect(() => enforceBadRowLimit(resultWith(20, 1))).not.toThrow(); // 1/20 = 5%
    expect(() => enforceBadRowLimit(resultWith(20, 2))).toThrow(/2 of 20 rows invalid \(10\.0% > 5%\)/);
  });

  it('leaves skipped rows out of the ratio', () => {
    // 2 bad of 130 rows looks like 1.5%, but 100 are skipped: 2 of 30 considered = 6.7%.
    expect(() => enforceBadRowLimit(resultWith(130, 2, 100))).toThrow(/2 of 30 rows invalid/);
  });

  it('honours a custom limit and lists up to REASONS_LISTED (100) reasons', () => {
    expect(() => enforceBadRowLimit(resultWith(100, 20), { maxBadRatio: 0.2 })).not.toThrow();
    try {
      enforceBadRowLimit(resultWith(100, 30));
      expect.unreachable();
    } catch (e) {
      expect((e as { details: { first_reasons: unknown[] } }).details.first_reasons).toHaveLength(30);
    }
    try {
      enforceBadRowLimit(resultWith(1000, 300));
      expect.unreachable();
    } catch (e) {
      const details = (e as { details: { first_reasons: unknown[]; rows_rejected: number } }).details;
      expect(details.first_reasons).toHaveLength(REASONS_LISTED);
      expect(details.rows_rejected).toBe(300);
    }
  });
});

describe('rejectUnlisted', () => {
  it('turns the rows of unlisted stocks into rejected rows, one per source line, in line order', () => {
    // Given a result whose line 3 made a stock update and a bar, line 4 a bar, line 5 a halt, line 6 a bar of a listed stock
    const r = emptyResult('ndjson', 'm.ndjson');
    const bar = (code: string) => ({ stock_code: code, trade_date: '2026-03-20', open_price: 1, high_price: 1, low_price: 1, close_price: 1, volume: 1, trading_value: 1, market_cap: null, shares_outstanding: null });
    addRecord(r, 'stocks', { code: '111110', shares_outstanding: 5 }, 3);
    addRecord(r, 'bars', bar('111110'), 3);
    addRecord(r, 'bars', bar('111110'), 4);
    addRecord(r, 'halts', { stock_code: '222220', trade_date: '2026-03-20', last_close: 5, market_cap: null, shares_outstanding: null }, 5);
    addRecord(r, 'bars', bar('005930'), 6);
    reject(r, 2, 'not valid JSON');
    r.rows_total = 5;
    r.rows_ok = 4;
    // When 111110 and 222220 turn out to have no stock record
    const n = rejectUnlisted(r, new Set(['111110', '222220']));
    // Then lines 3, 4 and 5 are rejected with the reason, and only line 6 stays ok
    expect(n).toBe(3);
    expect(r.rows_ok).toBe(1);
    expect(r.rejected.map((x) => [x.line, x.reason])).toEqual([
      [2, 'not valid JSON'],
      [3, 'unknown stock code 111110 — load a listing or quotes file first'],
      [4, 'unknown stock code 111110 — load a listing or quotes file first'],
      [5, 'unknown stock code 222220 — load a listing or quotes file first'],
    ]);
    expect(r.rejected.every((x) => x.file === 'm.ndjson')).toBe(true);
  });
});
