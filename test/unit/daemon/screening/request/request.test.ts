import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../daemon/errors.js';
import {
  describeFiltersApplied,
  normalizeQuery,
  parseScreenRequest,
  parseTemplateOverrides,
} from '../../../../../daemon/screening/request/request.js';
import { KNOWN } from '../fixture.js';
import { stableStringify } from '../../../../../daemon/screening/request/query-normalize.js';

const parse = (body: unknown) => parseScreenRequest(body, KNOWN);

function rejection(body: unknown, parser: (b: unknown) => unknown = parse): AppError {
  try {
    parser(body);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

describe('parseScreenRequest: accepted shapes', () => {
  it('reads {} as the unfiltered market, 50 per page, biggest first', () => {
    expect(parse({})).toEqual({
      universe: {},
      filters: [],
      sort: [{ field: 'market_cap', direction: 'desc' }],
      page: 1,
      per_page: 50,
      fields: [],
    });
    expect(parse(undefined)).toEqual(parse({}));
  });

  it('reads shape A and shape B of the same screen into the same query', () => {
    const a = parse({
      filters: { market: 'KOSPI', per: { min: 0, max: 10 }, roe: { min: 15 } },
      sort: [{ field: 'roe', direction: 'desc' }],
      limit: 20,
    });
    const b = parse({ max_per: 10, market: 'KOSPI', min_roe: 15, min_per: 0, sort_by: 'roe', order: 'desc', per_page: 20 });
    const expected = {
      universe: { market: 'KOSPI' },
      filters: [{ field: 'per', min: 0, max: 10 }, { field: 'roe', min: 15 }],
      sort: [{ field: 'roe', direction: 'desc' }],
      page: 1,
      per_page: 20,
      fields: [],
    };
    expect(a).toEqual(expected);
    expect(b).toEqual(expected);
    expect(normalizeQuery(a)).toBe(normalizeQuery(b));
  });

  it('takes the spec load-test keys as they are', () => {
    const q = parse({ market: 'KOSDAQ', min_per: 5, max_per: 15, min_roe: 10, max_pbr: 2, min_market_cap: 1e11, min_volume: 1000, min_rsi_14: 30, max_rsi_14: 70 });
    expect(q.filters.map((f) => f.field)).toEqual(['market_cap', 'pbr', 'per', 'roe', 'rsi_14', 'volume']);
    expect(q.filters.find((f) => f.field === 'rsi_14')).toEqual({ field: 'rsi_14', min: 30, max: 70 });
  });

  it('accepts ALL, lower-case names, numeric text, comma lists and null as absent', () => {
    const q = parse({
      market: 'all', min_per: '5', max_per: null, exclude: 'spac, preferred', codes: '005930,0126z0',
      fields: 'rsi_14, industry', page: '2', sort: 'per:asc,roe', sectors: ['반도체'], expression: '  per < 10 ',
    });
    expect(q).toEqual({
      universe: { exclude: ['spac', 'preferred'], codes: ['005930', '0126Z0'], sectors: ['반도체'] },
      filters: [{ field: 'per', min: 5 }],
      expression: 'per < 10',
      sort: [{ field: 'per', direction: 'asc' }, { field: 'roe', direction: 'desc' }],
      page: 2,
      per_page: 50,
      fields: ['rsi_14', 'industry'],
    });
    expect(parse({ filters: { market: 'kosdaq' } }).universe).toEqual({ market: 'KOSDAQ' });
    expect(parse({ MIN_PER: '1e1', Max_Roe: 20 }).filters).toEqual([{ field: 'per', min: 10 }, { field: 'roe', max: 20 }]);
  });

  it('accepts universe keys under filters and the same value in both places', () => {
    const q = parse({ market: 'KOSPI', filters: { market: 'KOSPI', sectors: ['제약'], exclude: ['halted'], expression: 'roe > 5' }, min_per: 3 });
    expect(q.universe).toEqual({ market: 'KOSPI', sectors: ['제약'], exclude: ['halted'] });
    expect(q.expression).toBe('roe > 5');
  });
});

describe('parseScreenRequest: every 400 names the field', () => {
  it.each([
    [{ filters: { per: { min: 'abc' } } }, 'filters.per.min', /number/],
    [{ filters: { per: 10 } }, 'filters.per', /object like/],
    [{ filters: { per: {} } }, 'filters.per', /min, max or both/],
    [{ filters: { per: { min: 1, low: 2 } } }, 'filters.per', /low/],
    [{ min_per: 'cheap' }, 'min_per', /number/],
    [{ max_per: 5, min_per: 10 }, 'min_per', /min \(10\) is greater than max \(5\)/],
    [{ filters: { per: { min: 10, max: 5 } } }, 'filters.per', /greater than max/],
    [{ min_per: 5, filters: { per: { min: 6 } } }, 'min_per', /conflicts with filters\.per\.min/],
    [{ market: 'NYSE' }, 'market', /KOSPI, KOSDAQ or ALL/],
    [{ market: 'KOSPI', filters: { market: 'KOSDAQ' } }, 'filters.market', /conflicts/],
    [{ per_page: 501 }, 'per_page', /at most 500/],
    [{ limit: 0 }, 'limit', /at least 1/],
    [{ page: 1.5 }, 'page', /integer/],
    [{ per_page: 20, limit: 30 }, 'limit', /conflicts with per_page/],
    [{ sort: [{ field: 'roe', direction: 'up' }] }, 'sort[0].direction', /asc.*desc/],
    [{ sort: [{ field: 'roe' }, { field: 'roe' }] }, 'sort[1].field', /already a sort key/],
    [{ sort: [{ field: 'roe' }], sort_by: 'per' }, 'sort_by', /either sort or sort_by/],
    [{ order: 'asc' }, 'order', /needs sort_by/],
    [{ exclude: ['etf'] }, 'exclude[0]', /administrative, spac, preferred, halted/],
    [{ codes: ['12345'] }, 'codes[0]', /6-character stock code/],
    [{ expression: 42 }, 'expression', /text/],
    [{ sector: '반도체' }, 'sector', /did you mean sectors/],
    [{ per: { max: 10 } }, 'per', /use filters\.per/],
    [{ format: 'xml' }, 'format', /json.*csv/],
  ])('%j → %s', (body, path, message) => {
    const error = rejection(body);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.status).toBe(400);
    expect(String(error.details[path])).toMatch(message);
    expect(error.message).toContain(path);
  });

  it('lists the valid names for an unknown indicator, sort field or output field', () => {
    for (const [body, path, noun] of [
      [{ min_foo: 1 }, 'min_foo', "unknown indicator 'foo'"],
      [{ filters: { pe: { max: 10 } } }, 'filters.pe', "unknown indicator 'pe'; did you mean per"],
      [{ sort: [{ field: 'roee', direction: 'desc' }] }, 'sort[0].field', "unknown sort field 'roee'; did you mean roe"],
      [{ sort_by: 'nope' }, 'sort_by', "unknown sort field 'nope'"],
      [{ fields: ['close', 'bogus'] }, 'fields[1]', "unknown field 'bogus'"],
    ] as const) {
      const error = rejection(body);
      expect(String(error.details[path])).toContain(noun);
      expect(error.details.valid_fields).toEqual(expect.arrayContaining(['per', 'roe', 'rsi_14']));
    }
    expect(rejection({ sort_by: 'x' }).details.valid_fields).toEqual(expect.arrayContaining(['code', 'name']));
  });

  it('reports an expression error with its position', () => {
    const error = rejection({ expression: 'per < 10 and roee > 5' });
    expect(String(error.details.expression)).toMatch(/unknown field 'roee'/);
    expect(error.details.position).toBe(13);
    expect(error.details.suggestions).toContain('roe');
    expect(rejection({ filters: { expression: 'per <' } }).details['filters.expression']).toMatch(/end of expression/);
  });

  it('collects several problems into one error', () => {
    const error = rejection({ min_foo: 1, page: 0, market: 'X' });
    expect(Object.keys(error.details)).toEqual(expect.arrayContaining(['min_foo', 'page', 'market']));
    expect(error.message).toMatch(/and 2 more problems/);
  });

  it('rejects a body that is not an object', () => {
    expect(rejection([1, 2]).details).toEqual({ body: 'must be a JSON object' });
    expect(rejection('per<10').details).toEqual({ body: 'must be a JSON object' });
  });
});

describe('normalizeQuery', () => {
  it('ignores key order, list order, expression spacing and defaults', () => {
    const a = parse({ sectors: ['제약', '반도체'], exclude: ['spac', 'halted'], expression: 'per<10 AND roe>5', min_roe: 1 });
    const b = parse({ expression: ' PER < 10 and ROE > 5 ', exclude: ['halted', 'spac'], filters: { roe: { min: 1 } }, sectors: ['반도체', '제약'], page: 1, per_page: 50, sort: [{ field: 'market_cap' }] });
    expect(normalizeQuery(a)).toBe(normalizeQuery(b));
  });

  it('tells different screens apart', () => {
    const base = normalizeQuery(parse({ min_per: 1 }));
    expect(normalizeQuery(parse({ min_per: 2 }))).not.toBe(base);
    expect(normalizeQuery(parse({ min_per: 1, page: 2 }))).not.toBe(base);
    expect(normalizeQuery(parse({ min_per: 1, market: 'KOSPI' }))).not.toBe(base);
    expect(normalizeQuery(parse({ min_per: 1, sort_by: 'market_cap', order: 'asc' }))).not.toBe(base);
    expect(normalizeQuery(parse({ min_per: 1, fields: ['roe'] }))).not.toBe(base);
  });

  it('is JSON with sorted keys', () => {
    const json = JSON.parse(normalizeQuery(parse({}))) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['expression', 'fields', 'filters', 'page', 'per_page', 'sort', 'universe']);
    expect(json.universe).toEqual({ codes: [], exclude: [], industries: [], market: 'ALL', sectors: [] });
  });

  it('sorts keys at every level, for queries using every part of the request (stored answers keep their keys)', () => {
    const bodies = [
      {},
      { as_of: '2026-03-04', min_per: 1, max_pbr: 3, sort_by: 'roe', order: 'asc', fields: ['industry', 'roe'] },
      { filters: { roe: { min: 5 }, per: { max: 20 } }, market: 'KOSDAQ', codes: ['005930', '000660'], industries: ['반도체'], page: 2, per_page: 10 },
      { columns: { ey: '1 / per * 100', r: 'pct_rank(roe) by sector' }, score: { roe: 0.6, '-per': 0.4 }, expression: 'ey > 3 and r > 50', sort: [{ field: 'score', direction: 'desc' }, { field: 'roe', direction: 'asc' }] },
    ];
    for (const body of bodies) {
      const text = normalizeQuery(parse(body));
      expect(text).toBe(stableStringify(JSON.parse(text)));
    }
  });
});

describe('describeFiltersApplied', () => {
  it('says ALL and 0 for the empty request', () => {
    expect(describeFiltersApplied(parse({}))).toEqual({ market: 'ALL', _count: 0 });
  });

  it('counts market, each range, lists and the expression', () => {
    const applied = describeFiltersApplied(parse({
      market: 'KOSPI', min_per: 0, max_per: 10, min_roe: 15, sectors: ['반도체'], exclude: ['spac'], expression: 'close > sma_200',
    }));
    // market + per + roe + sectors + exclude + expression = 6
    expect(applied).toEqual({
      market: 'KOSPI', _count: 6, per: { min: 0, max: 10 }, roe: { min: 15 }, sectors: ['반도체'], exclude: ['spac'], expression: 'close > sma_200',
    });
  });

  it('does not count ALL as a filter', () => {
    expect(describeFiltersApplied(parse({ market: 'ALL', min_volume: 1 }))).toEqual({ market: 'ALL', _count: 1, volume: { min: 1 } });
  });
});

describe('parseTemplateOverrides', () => {
  const overrides = (body: unknown) => parseTemplateOverrides(body, KNOWN);

  it('reads market, sort, paging and fields', () => {
    expect(overrides({ market: 'all', sort_by: 'per', order: 'asc', page: 2, limit: 10, fields: 'rsi_14' })).toEqual({
      market: 'ALL', sort: [{ field: 'per', direction: 'asc' }], page: 2, per_page: 10, fields: ['rsi_14'],
    });
    expect(overrides(undefined)).toEqual({});
  });

  it('rejects filters and unknown names', () => {
    expect(rejection({ min_per: 1 }, overrides).details.min_per).toMatch(/unknown parameter/);
    expect(rejection({ sort: [{ field: 'x' }] }, overrides).details['sort[0].field']).toMatch(/unknown sort field/);
    expect(rejection({ per_page: 1000 }, overrides).details.per_page).toMatch(/at most 500/);
  });
});
