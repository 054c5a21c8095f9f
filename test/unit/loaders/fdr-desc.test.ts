import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { fdrDescLoader } from '../../../loaders/fdr-desc.js';
import { KONEX_SKIP_REASON } from '../../../loaders/quote-rows.js';
import { krxFile } from './real-data.js';

describe('fdr-desc on the real desc/2026-03-20.csv', () => {
  const path = krxFile('desc/2026-03-20.csv');
  const result = fdrDescLoader.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''), path, {});
  const stock = (code: string) => result.stocks.find((s) => s.code === code);

  it('yields one update per KOSPI/KOSDAQ issue and skips KONEX', () => {
    expect(result.rows_total).toBe(2_879);
    expect(result.skipped).toEqual([{ reason: KONEX_SKIP_REASON, count: 110 }]);
    expect(result.rejected).toEqual([]);
    expect(result.stocks).toHaveLength(2_769);
    expect(result.bars).toEqual([]);
  });

  it('fills industry (KSIC), listing date and settle month', () => {
    expect(stock('005930')).toMatchObject({
      name: '삼성전자', market: 'KOSPI', industry: '통신 및 방송 장비 제조업', listing_date: '1975-06-11', settle_month: 12,
    });
    // 3S settles in March ("03월") and sits on the venture board.
    expect(stock('060310')).toMatchObject({ settle_month: 3, board: '벤처기업부', listing_date: '2002-04-23' });
    expect(stock('0126Z0')).toMatchObject({ industry: '기타 금융업', listing_date: '2025-11-24' });
  });

  it('leaves out fields the file does not have, so a merge keeps stored values', () => {
    // 삼성전자우 has blank Industry/ListingDate/SettleMonth; no row has an English name.
    const pref = stock('005935');
    expect(pref).toEqual({ code: '005935', market: 'KOSPI', name: '삼성전자우' });
    expect(result.stocks.some((s) => 'name_english' in s)).toBe(false);
  });
});
