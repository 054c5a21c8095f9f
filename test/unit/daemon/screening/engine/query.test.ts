import { describe, expect, it } from 'vitest';
import { executeAll, executeQuery } from '../../../../../daemon/screening/engine/query.js';
import type { ScreenQuery } from '../../../../../daemon/screening/engine/query.js';
import { emptySnapshot } from '../../../../../daemon/screening/engine/snapshot.js';
import { FIELDS, fixtureSnapshot } from '../fixture.js';

// See fixture.ts for the table these expectations are read from.
const snapshot = fixtureSnapshot();

function query(partial: Partial<ScreenQuery> = {}): ScreenQuery {
  return { universe: {}, filters: [], sort: [{ field: 'code', direction: 'asc' }], page: 1, per_page: 50, fields: [], ...partial };
}

function codes(partial: Partial<ScreenQuery>): string[] {
  return executeQuery(snapshot, query(partial)).items.map((item) => item.code);
}

describe('range filters', () => {
  it('includes both boundaries', () => {
    // per in [5, 10]: 000010 (5), 000040 (10), 000080 (6); 000045 (4) and 0126Z0 (15) are out.
    expect(codes({ filters: [{ field: 'per', min: 5, max: 10 }] })).toEqual(['000010', '000040', '000080']);
  });

  it('fails a null value on any filter of its field', () => {
    // A huge range still drops 000030 and 000050, whose per is null.
    expect(codes({ filters: [{ field: 'per', min: -1e9, max: 1e9 }] })).toEqual(['000010', '000020', '000040', '000045', '000080', '0126Z0']);
    expect(codes({ filters: [{ field: 'per', min: -1e9 }] })).toHaveLength(6);
    expect(codes({ filters: [{ field: 'per', max: 1e9 }] })).toHaveLength(6);
  });

  it('accepts negative bounds and combines filters with and', () => {
    expect(codes({ filters: [{ field: 'roe', min: -10, max: 0 }] })).toEqual(['000030']);
    // pbr ≤ 1 (010 030 040 045 080) and roe ≥ 12 (010 040 045).
    expect(codes({ filters: [{ field: 'pbr', max: 1 }, { field: 'roe', min: 12 }] })).toEqual(['000010', '000040', '000045']);
  });

  it('matches nothing on a field the snapshot lacks', () => {
    expect(codes({ filters: [{ field: 'not_loaded', min: 0 }] })).toEqual([]);
  });

  it('applies the expression after the filters', () => {
    // per ≤ 10 (010 040 045 080) and market KOSPI (010 045 080).
    expect(codes({ filters: [{ field: 'per', max: 10 }], expression: "market = 'KOSPI'" })).toEqual(['000010', '000045', '000080']);
  });
});

describe('sorting', () => {
  it('puts nulls last when descending', () => {
    // per desc: 20, 15, 10, 6, 5, 4, then nulls 000030, 000050 in code order.
    expect(codes({ sort: [{ field: 'per', direction: 'desc' }] })).toEqual(['000020', '0126Z0', '000040', '000080', '000010', '000045', '000030', '000050']);
  });

  it('puts nulls last when ascending', () => {
    expect(codes({ sort: [{ field: 'per', direction: 'asc' }] })).toEqual(['000045', '000010', '000080', '000040', '0126Z0', '000020', '000030', '000050']);
  });

  it('breaks ties with the next key, then by code', () => {
    // roe desc alone: 040 (15), 010 and 045 tie at 12 → code order 010, 045.
    expect(codes({ sort: [{ field: 'roe', direction: 'desc' }] }).slice(0, 3)).toEqual(['000040', '000010', '000045']);
    // with per asc as second key the tie goes to 045 (per 4) before 010 (per 5).
    expect(codes({ sort: [{ field: 'roe', direction: 'desc' }, { field: 'per', direction: 'asc' }] })).toEqual([
      '000040', '000045', '000010', '000080', '000020', '0126Z0', '000030', '000050',
    ]);
  });

  it('falls back to code order when every key ties', () => {
    expect(codes({ sort: [{ field: 'not_loaded', direction: 'desc' }] })).toEqual([...snapshot.codes]);
    expect(codes({ sort: [] })).toEqual([...snapshot.codes]);
  });

  it('sorts by code and by name', () => {
    expect(codes({ sort: [{ field: 'code', direction: 'desc' }] })).toEqual([...snapshot.codes].reverse());
    // 가온전자 < 가온전자우 < 나래제약 < 다온금융 < 라온반도체 < 마루스팩 < 바다바이오 < 사랑건설
    expect(codes({ sort: [{ field: 'name', direction: 'asc' }] })).toEqual(['000010', '000045', '000020', '000030', '000040', '000050', '0126Z0', '000080']);
  });
});

describe('paging', () => {
  it('reports totals and slices 1-based pages', () => {
    const page1 = executeQuery(snapshot, query({ per_page: 3 }));
    expect([page1.total, page1.total_pages, page1.page, page1.per_page]).toEqual([8, 3, 1, 3]);
    expect(page1.items.map((i) => i.code)).toEqual(['000010', '000020', '000030']);
    const page3 = executeQuery(snapshot, query({ per_page: 3, page: 3 }));
    expect(page3.items.map((i) => i.code)).toEqual(['000080', '0126Z0']);
    const page4 = executeQuery(snapshot, query({ per_page: 3, page: 4 }));
    expect(page4.items).toEqual([]);
    expect(page4.total).toBe(8);
  });

  it('rejects a page below 1', () => {
    expect(() => executeQuery(snapshot, query({ page: 0 }))).toThrow(/page/);
    expect(() => executeQuery(snapshot, query({ per_page: 0 }))).toThrow(/per_page/);
  });

  it('answers an empty market with an empty list (spec rule 9)', () => {
    const result = executeQuery(emptySnapshot(FIELDS), query({ filters: [{ field: 'per', max: 10 }] }));
    expect(result).toMatchObject({ total: 0, total_pages: 0, items: [] });
  });
});

describe('universe', () => {
  it('filters by market, sector, industry and codes', () => {
    expect(codes({ universe: { market: 'KOSDAQ' } })).toEqual(['000020', '000040', '000050', '0126Z0']);
    expect(codes({ universe: { sectors: ['반도체'] } })).toEqual(['000010', '000040', '000045']);
    expect(codes({ universe: { sectors: ['반도체', '금융'], market: 'KOSPI' } })).toEqual(['000010', '000030', '000045']);
    expect(codes({ universe: { industries: ['의약품'] } })).toEqual(['000020', '0126Z0']);
    expect(codes({ universe: { codes: ['0126Z0', '000010', '999999'] } })).toEqual(['000010', '0126Z0']);
  });

  it('excludes flagged issues', () => {
    expect(codes({ universe: { exclude: ['preferred', 'spac'] } })).toEqual(['000010', '000020', '000030', '000040', '000080', '0126Z0']);
    expect(codes({ universe: { exclude: ['administrative', 'spac', 'preferred', 'halted'] } })).toEqual(['000010', '000020', '000030', '000040']);
    expect(codes({ universe: { exclude: ['halted'] } })).not.toContain('000080');
  });

  it('treats empty lists as no restriction', () => {
    expect(codes({ universe: { sectors: [], codes: [], exclude: [] } })).toHaveLength(8);
  });
});

describe('items', () => {
  it('carries identity, price columns, every filtered, sorted and expression field, then requested fields', () => {
    const result = executeQuery(snapshot, query({
      filters: [{ field: 'per', max: 5 }],
      sort: [{ field: 'roe', direction: 'desc' }],
      expression: 'pbr < 1',
      fields: ['industry', 'rsi_14', 'per'],
    }));
    // per ≤ 5: 000010 (5), 000045 (4); both pbr < 1; roe tie 12 → code order.
    expect(result.items.map((i) => i.code)).toEqual(['000010', '000045']);
    const first = result.items[0]!;
    expect(Object.keys(first)).toEqual(['code', 'name', 'market', 'sector', 'close', 'change_percent', 'market_cap', 'per', 'roe', 'pbr', 'industry', 'rsi_14']);
    expect(first).toEqual({
      code: '000010', name: '가온전자', market: 'KOSPI', sector: '반도체', close: 1000, change_percent: 1.5,
      market_cap: 5e11, per: 5, roe: 12, pbr: 0.5, industry: '전자부품', rsi_14: 25,
    });
  });

  it('returns null, not NaN, for missing values', () => {
    const [item] = executeQuery(snapshot, query({ universe: { codes: ['000050'] }, fields: ['per', 'board'] })).items;
    expect(item).toMatchObject({ sector: null, per: null, board: null });
  });

  it('measures time with the injected clock', () => {
    const ticks = [10, 10.25];
    const result = executeQuery(snapshot, query(), { now: () => ticks.shift() ?? 0 });
    expect(result.query_time_ms).toBe(0.25);
  });
});

describe('executeAll', () => {
  it('returns every match, sorted, ignoring the page, with the column order', () => {
    const all = executeAll(snapshot, query({ page: 2, per_page: 1, filters: [{ field: 'dividend_yield', min: 2 }], sort: [{ field: 'dividend_yield', direction: 'desc' }] }));
    // dividend_yield ≥ 2: 030 (6), 045 (4), 010 (3), 080 (2).
    expect(all.total).toBe(4);
    expect(all.items.map((i) => i.code)).toEqual(['000030', '000045', '000010', '000080']);
    expect(all.columns).toEqual(['code', 'name', 'market', 'sector', 'close', 'change_percent', 'market_cap', 'dividend_yield']);
  });
});
