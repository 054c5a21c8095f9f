/**
 * Request validation of the screening language: columns, score and cross-sectional
 * functions in both request shapes, and every kind of bad input answered as one 400 with the
 * path, the position and a suggestion.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../daemon/errors.js';
import { expressionOf } from '../../../../../daemon/screening/engine/query.js';
import { normalizeQuery, parseScreenRequest } from '../../../../../daemon/screening/request/request.js';
import { KNOWN } from '../fixture.js';

const parse = (body: unknown) => parseScreenRequest(body, KNOWN);

function rejection(body: unknown): AppError {
  try {
    parse(body);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

describe('accepted', () => {
  it('reads columns in order and a score, in shape A and shape B alike', () => {
    const language = { columns: { EY: '1 / per * 100', vq: '0.5 * pct_rank(ey) + 0.5 * pct_rank(roe) by sector' }, score: { roe: 0.4, '-per': '0.3', ey: 0.3 }, score_by: 'Sector' };
    const a = parse({ filters: { market: 'KOSPI', ey: { min: 5 }, expression: 'vq >= 50 and score > 10' }, sort: [{ field: 'score', direction: 'desc' }], ...language });
    const b = parse({ market: 'KOSPI', min_ey: 5, expression: 'vq >= 50 and score > 10', sort_by: 'score', order: 'desc', fields: 'vq', ...language });
    expect(a.columns).toEqual([{ name: 'ey', expression: '1 / per * 100' }, { name: 'vq', expression: '0.5 * pct_rank(ey) + 0.5 * pct_rank(roe) by sector' }]);
    expect(a.score).toEqual({
      factors: [{ field: 'roe', weight: 0.4, direction: 'desc' }, { field: 'per', weight: 0.3, direction: 'asc' }, { field: 'ey', weight: 0.3, direction: 'desc' }],
      by: 'sector',
    });
    expect(a.filters).toEqual([{ field: 'ey', min: 5 }]);
    expect(b.filters).toEqual(a.filters);
    expect(normalizeQuery({ ...b, fields: [] })).toBe(normalizeQuery(a));
  });

  it('keys the cache on the definitions: a different column is a different query, spacing is not', () => {
    const one = normalizeQuery(parse({ columns: { x: '1/per' } }));
    expect(normalizeQuery(parse({ columns: { x: '1 / PER' } }))).toBe(one);
    expect(normalizeQuery(parse({ columns: { x: '2/per' } }))).not.toBe(one);
    expect(normalizeQuery(parse({}))).not.toContain('columns');
  });
});

describe('rejected with a 400, the path, the position and a suggestion', () => {
  it('an unknown function, with suggestions', () => {
    const e = rejection({ expression: 'pct_rnk(roe) > 90' });
    expect(e.code).toBe('INVALID_REQUEST');
    expect(String(e.details.expression)).toMatch(/unknown function 'pct_rnk'; did you mean pct_rank/);
    expect(e.details.position).toBe(0);
    expect(e.details.suggestions).toContain('pct_rank');
  });

  it('wrong arity', () => {
    expect(String(rejection({ expression: 'coalesce(per) > 1' }).details.expression)).toMatch(/coalesce\(\) takes 2 arguments, got 1/);
    expect(String(rejection({ columns: { x: 'pct_rank(roe, per)' } }).details['columns.x'])).toMatch(/pct_rank\(\) takes 1 argument, got 2/);
  });

  it('a bad by-group', () => {
    const e = rejection({ expression: 'pct_rank(roe) by sectr > 1' });
    expect(String(e.details.expression)).toMatch(/expected sector, industry, market after 'by'/);
    expect(e.details.position).toBe(17);
  });

  it('a column that refers to itself or to a later column', () => {
    const self = rejection({ columns: { x: 'x + 1' } });
    expect(String(self.details['columns.x'])).toMatch(/refers to itself/);
    expect(self.details.position).toBe(0);
    const later = rejection({ columns: { a: 'roe + b', b: 'per' } });
    expect(String(later.details['columns.a'])).toMatch(/refers to 'b', which is defined after it/);
    expect(later.details.position).toBe(6);
  });

  it('shadowing a built-in field, a reserved name, a bad or duplicate name', () => {
    expect(String(rejection({ columns: { per: '1' } }).details['columns.per'])).toMatch(/built-in indicator; a column must not shadow it \(choose e\.g\. my_per\)/);
    expect(String(rejection({ columns: { sector: '1' } }).details['columns.sector'])).toMatch(/reserved/);
    expect(String(rejection({ columns: { score: '1' } }).details['columns.score'])).toMatch(/reserved/);
    expect(String(rejection({ columns: { '1x': '1' } }).details['columns.1x'])).toMatch(/a column name is a letter/);
    expect(String(rejection({ columns: { x: '1', X: '2' } }).details['columns.X'])).toMatch(/defined twice/);
  });

  it('more than 20 columns', () => {
    const columns = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`c${i}`, '1']));
    expect(rejection({ columns }).details.columns).toBe('at most 20 columns, got 21');
  });

  it('a condition or text as a column, an unknown field in a column', () => {
    expect(String(rejection({ columns: { x: 'per < 10' } }).details['columns.x'])).toMatch(/a column is a number/);
    const unknown = rejection({ columns: { x: 'ro + 1' } });
    expect(String(unknown.details['columns.x'])).toMatch(/unknown field 'ro'/);
    expect(unknown.details.suggestions).toContain('roe');
  });

  it('expressions over the size and depth limits', () => {
    expect(String(rejection({ columns: { x: '1 +'.repeat(700) + '1' } }).details['columns.x'])).toMatch(/at most 2000 characters/);
    expect(String(rejection({ columns: { x: 'abs('.repeat(70) + '1' + ')'.repeat(70) } }).details['columns.x'])).toMatch(/nested more than 64/);
  });

  it('too many cross-sectional terms', () => {
    const expression = Array.from({ length: 33 }, () => 'pct_rank(roe) > 1').join(' and ');
    expect(String(rejection({ expression }).details.expression)).toMatch(/at most 32 rank\/pct_rank\/zscore terms/);
  });

  it('bad score factors and weights', () => {
    const e = rejection({ score: { roe: 0, '-pre': 1 } });
    expect(e.details['score.roe']).toMatch(/weight must be a number > 0/);
    expect(e.details['score.-pre']).toMatch(/unknown score factor 'pre'; did you mean .*\bper\b/);
    expect(rejection({ score: { roe: 'x' } }).details['score.roe']).toMatch(/must be a weight/);
    expect(rejection({ score: {} }).details.score).toMatch(/at least one factor/);
    expect(rejection({ score: { roe: 1, '-roe': 1 } }).details['score.-roe']).toMatch(/already a factor/);
    expect(rejection({ score_by: 'sector' }).details.score_by).toBe('needs score');
  });

  it('sorting or filtering on score or a column the request does not define', () => {
    expect(rejection({ sort_by: 'score' }).details.sort_by).toMatch(/unknown sort field 'score'/);
    expect(String(rejection({ expression: 'ey > 1' }).details.expression)).toMatch(/unknown field 'ey'/);
  });
});

describe('expressions remembered between requests', () => {
  it("never lets one request's column names validate another's expression", () => {
    // Given a request whose expression reads its own column
    expect(parse({ columns: { ey: '1 / per * 100' }, expression: 'ey > 5' }).expression).toBe('ey > 5');
    // When the same expression comes without the column, it is still refused, naming the field
    const error = rejection({ expression: 'ey > 5' });
    expect(error.details.expression).toMatch(/ey/);
    // And the same text with the column is still accepted afterwards
    expect(parse({ columns: { ey: '1 / per * 100' }, expression: 'ey > 5' }).expression).toBe('ey > 5');
  });

  it('gives the same parsed expression to equal texts and refuses bad text every time', () => {
    const one = parse({ expression: 'per < 10 and roe > 5' });
    const two = parse({ expression: 'per < 10 and roe > 5', min_per: 1 });
    expect(expressionOf(two)).toBe(expressionOf(one));
    for (let k = 0; k < 2; k++) expect(rejection({ expression: 'per <' }).details.expression).toBeDefined();
  });
});
