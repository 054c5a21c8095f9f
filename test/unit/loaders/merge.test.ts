import { describe, it, expect } from 'vitest';
import type { StockRecord } from '../../../daemon/kernel/records.js';
import { applyStockUpdate, collapseStockUpdates } from '../../../loaders/merge.js';

const stored: StockRecord = {
  code: '005930', name: '삼성전자', name_english: 'Samsung Electronics', market: 'KOSPI', sector: '전기전자',
  industry: '통신 및 방송 장비 제조업', listing_date: '1975-06-11', shares_outstanding: 5_919_637_922, board: null,
  settle_month: 12, is_administrative: false, is_spac: false, is_preferred: false,
};

describe('applyStockUpdate', () => {
  it('overwrites only the fields an update carries', () => {
    // A quote-file update has no English name or industry: those stay.
    const merged = applyStockUpdate(stored, { code: '005930', name: '삼성전자', shares_outstanding: 5_900_000_000, is_spac: false });
    expect(merged).toEqual({ ...stored, shares_outstanding: 5_900_000_000 });
  });

  it('creates a new stock with null fields and false flags', () => {
    expect(applyStockUpdate(undefined, { code: '0126Z0', name: '삼성에피스홀딩스', market: 'KOSPI' })).toMatchObject({
      code: '0126Z0', name_english: null, industry: null, is_administrative: false, settle_month: null,
    });
    expect(() => applyStockUpdate(undefined, { code: '0126Z0', industry: '기타 금융업' })).toThrow(/needs a name and a market/);
  });
});

describe('collapseStockUpdates', () => {
  it('keeps one update per code with later values winning per key', () => {
    const out = collapseStockUpdates([
      { code: 'A00000', name: 'old', industry: 'x' },
      { code: 'B00000', name: 'b' },
      { code: 'A00000', name: 'new', shares_outstanding: 5 },
    ]);
    expect(out).toEqual([{ code: 'A00000', name: 'new', industry: 'x', shares_outstanding: 5 }, { code: 'B00000', name: 'b' }]);
  });
});
