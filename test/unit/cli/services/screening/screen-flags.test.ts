import { describe, expect, it } from 'vitest';
import { INDICATORS } from '../../../../../daemon/indicators/registry.js';
import { parseScreenRequest } from '../../../../../daemon/screening/request/request.js';
import { usageOf } from '../../../../helpers/cli-errors.js';
import { STOCK_FLAGS } from '../../../../../daemon/screening/engine/snapshot.js';
import {
  applyOverrides, buildScreenBody, EXCLUDE_FLAGS, mergeFilters, overridesFrom, parseAmount, parseExclude, parseFilterFlag, parseSortFlags,
} from '../../../../../cli/services/screening/screen-flags.js';

describe('parseAmount', () => {
  it('reads plain numbers, exponents, underscores and Korean units', () => {
    expect(parseAmount('1.5', 'x')).toBe(1.5);
    expect(parseAmount('-3', 'x')).toBe(-3);
    expect(parseAmount('.5', 'x')).toBe(0.5);
    expect(parseAmount('1e9', 'x')).toBe(1_000_000_000);
    expect(parseAmount('10_000', 'x')).toBe(10_000);
    expect(parseAmount('5000만', 'x')).toBe(50_000_000); // 5000 × 1e4
    expect(parseAmount('1.5억', 'x')).toBe(150_000_000); // 1.5 × 1e8
    expect(parseAmount('2조', 'x')).toBe(2_000_000_000_000); // 2 × 1e12
  });

  it('refuses text, thousands commas (ambiguous with decimal commas) and empty input as usage errors', () => {
    for (const bad of ['abc', '1,000', '', '1.2.3', '억', '1e']) {
      const err = usageOf(() => parseAmount(bad, '--filter "per=..x" maximum'));
      expect(err.exitCode, bad).toBe(2);
      expect(err.message).toContain('is not a number');
      expect(err.hint).toContain('field=min..max');
    }
  });
});

describe('parseFilterFlag', () => {
  it('reads min..max with either side optional, lower-casing the field', () => {
    expect(parseFilterFlag('pbr=..1.5')).toEqual({ field: 'pbr', max: 1.5 });
    expect(parseFilterFlag('roe=15..')).toEqual({ field: 'roe', min: 15 });
    expect(parseFilterFlag('PER=5..10')).toEqual({ field: 'per', min: 5, max: 10 });
    expect(parseFilterFlag('return_3m=-10..-2')).toEqual({ field: 'return_3m', min: -10, max: -2 });
    expect(parseFilterFlag('market_cap=1조..')).toEqual({ field: 'market_cap', min: 1e12 });
    expect(parseFilterFlag('per = 5 .. 10 ')).toEqual({ field: 'per', min: 5, max: 10 });
  });

  it('explains each malformed filter', () => {
    const cases: [string, RegExp][] = [
      ['pbr<1.5', /missing "="/],
      ['pbr=1.5', /needs "\.\."/],
      ['pbr=..', /give a minimum, a maximum or both/],
      ['pbr=abc..', /"abc" is not a number/],
      ['1pbr=..2', /is not a field name/],
      ['per=10..5', /minimum 10 is greater than the maximum 5/],
      ['market=1..2', /market is not an indicator/],
    ];
    for (const [text, message] of cases) {
      const err = usageOf(() => parseFilterFlag(text));
      expect(err.message, text).toMatch(message);
      expect(err.exitCode).toBe(2);
    }
  });
});

describe('mergeFilters', () => {
  it('combines one-sided flags of the same field and keeps different fields apart', () => {
    expect(mergeFilters(['per=5..', 'per=..10', 'roe=15..'])).toEqual({ per: { min: 5, max: 10 }, roe: { min: 15 } });
    expect(mergeFilters(['per=5..', 'per=5..'])).toEqual({ per: { min: 5 } });
  });

  it('refuses two different bounds on one side and a crossed combination', () => {
    expect(usageOf(() => mergeFilters(['per=5..', 'per=6..'])).message).toContain('two different minimums (5 and 6)');
    expect(usageOf(() => mergeFilters(['per=20..', 'per=..10'])).message).toContain('minimum 20 greater than its maximum 10');
  });
});

describe('parseSortFlags', () => {
  it('reads comma lists and repeated flags in order, with optional directions', () => {
    expect(parseSortFlags(['roe:desc,per:ASC'])).toEqual([{ field: 'roe', direction: 'desc' }, { field: 'per', direction: 'asc' }]);
    expect(parseSortFlags(['roe', 'per:asc'])).toEqual([{ field: 'roe' }, { field: 'per', direction: 'asc' }]);
    expect(parseSortFlags([])).toEqual([]);
  });

  it('refuses bad directions, repeated fields and more than five keys', () => {
    expect(usageOf(() => parseSortFlags(['roe:up'])).message).toContain('asc or desc');
    expect(usageOf(() => parseSortFlags(['roe:desc:x'])).message).toContain('asc or desc');
    expect(usageOf(() => parseSortFlags(['roe,per,roe'])).message).toContain('roe is given twice');
    expect(usageOf(() => parseSortFlags(['a,b,c,d,e,f'])).message).toContain('at most 5 keys, got 6');
  });
});

describe('parseExclude', () => {
  it('accepts exactly the universe flags the server knows', () => {
    expect([...EXCLUDE_FLAGS]).toEqual([...STOCK_FLAGS]);
    expect(parseExclude(['administrative,SPAC', 'spac'])).toEqual(['administrative', 'spac']);
    expect(usageOf(() => parseExclude(['etf'])).message).toContain('unknown "etf"');
  });
});

describe('buildScreenBody', () => {
  const known = new Set(INDICATORS.map((d) => d.id));

  it('builds a shape-A body that the server parses into the intended query', () => {
    const body = buildScreenBody({
      market: 'kospi', where: ' per < 10 and roe > 15 ', filter: ['pbr=..1.5', 'roe=15..'], sort: ['roe:desc'], limit: 20, page: 2,
      fields: ['per,pbr', 'rsi_14'], exclude: ['administrative,spac'], sector: ['반도체'],
    });
    expect(body).toEqual({
      market: 'KOSPI', sectors: ['반도체'], exclude: ['administrative', 'spac'], expression: 'per < 10 and roe > 15',
      filters: { pbr: { max: 1.5 }, roe: { min: 15 } }, sort: [{ field: 'roe', direction: 'desc' }], per_page: 20, page: 2, fields: ['per', 'pbr', 'rsi_14'],
    });
    const query = parseScreenRequest(body, known);
    expect(query.universe).toEqual({ market: 'KOSPI', sectors: ['반도체'], exclude: ['administrative', 'spac'] });
    expect(query.filters).toEqual([{ field: 'pbr', max: 1.5 }, { field: 'roe', min: 15 }]);
    expect(query.sort).toEqual([{ field: 'roe', direction: 'desc' }]);
    expect([query.page, query.per_page, query.expression]).toEqual([2, 20, 'per < 10 and roe > 15']);
  });

  it('is empty without flags (the empty screen) and refuses an empty --where or a bad market', () => {
    expect(buildScreenBody({})).toEqual({});
    expect(usageOf(() => buildScreenBody({ where: '  ' })).message).toContain('expression is empty');
    expect(usageOf(() => buildScreenBody({ market: 'NASDAQ' })).message).toContain('not one of KOSPI, KOSDAQ, ALL');
  });
});

describe('applyOverrides', () => {
  const known = new Set(INDICATORS.map((d) => d.id));

  it('replaces every spelling of an overridden setting so the server sees no conflict', () => {
    const saved = { filters: { market: 'KOSPI', per: { max: 10 } }, sort_by: 'per', order: 'asc', limit: 30, fields: ['roe'] };
    const query = applyOverrides(saved, overridesFrom({ market: 'KOSDAQ', sort: ['roe:desc'], limit: 5 }));
    expect(query).toEqual({ filters: { per: { max: 10 } }, market: 'KOSDAQ', sort: [{ field: 'roe', direction: 'desc' }], per_page: 5, fields: ['roe'] });
    const parsed = parseScreenRequest(query, known);
    expect(parsed.universe.market).toBe('KOSDAQ');
    expect(parsed.per_page).toBe(5);
    expect(parsed.filters).toEqual([{ field: 'per', max: 10 }]);
  });

  it('leaves a query alone without overrides', () => {
    const saved = { market: 'KOSPI', filters: { per: { max: 10 } } };
    expect(applyOverrides(saved, {})).toEqual(saved);
  });
});
