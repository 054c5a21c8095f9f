import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../daemon/errors.js';
import { EXPRESSION_LIMITS, compileExpression, parseExpression } from '../../../../../daemon/screening/language/expression.js';
import { KNOWN, fixtureSnapshot } from '../fixture.js';

// Row order of the fixture: 000010 000020 000030 000040 000045 000050 000080 0126Z0 (see fixture.ts).
const snapshot = fixtureSnapshot();
const ALL = [...snapshot.codes];

function match(expression: string): string[] {
  const test = compileExpression(parseExpression(expression, KNOWN), snapshot);
  return snapshot.codes.filter((_, row) => test(row));
}

function errorOf(expression: string): AppError {
  try {
    parseExpression(expression, KNOWN);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`expected "${expression}" to be rejected`);
}

describe('comparisons and null semantics', () => {
  it('compares fields with numbers; a null value never matches', () => {
    // per: 5, 20, null, 10, 4, null, 6, 15
    expect(match('per < 10')).toEqual(['000010', '000045', '000080']);
    expect(match('per <= 10')).toEqual(['000010', '000040', '000045', '000080']);
    expect(match('per = 10')).toEqual(['000040']);
    expect(match('per == 10')).toEqual(['000040']);
    expect(match('per != 10')).toEqual(['000010', '000020', '000045', '000080', '0126Z0']);
    expect(match('per <> 10')).toEqual(match('per != 10'));
  });

  it('keeps not of unknown unknown: a null field fails the negated predicate too', () => {
    // per >= 10 among non-null: 20, 10, 15; 000030 and 000050 (null per) stay out.
    expect(match('not per < 10')).toEqual(['000020', '000040', '0126Z0']);
    // rsi_14 > 50: 000020 (55), 000040 (70); 000050 and 000080 have no rsi.
    expect(match('not (rsi_14 > 50)')).toEqual(['000010', '000030', '000045', '0126Z0']);
  });

  it('lets or succeed on one true side even when the other is unknown', () => {
    // 000030: per null (unknown) or pbr 0.3 < 0.4 (true) → true.
    expect(match('per < 10 or pbr < 0.4')).toEqual(['000010', '000030', '000045', '000080']);
    // …and not of that true is false; 000050 is unknown on both sides and stays out.
    expect(match('not (per < 10 or pbr < 0.4)')).toEqual(['000020', '000040', '0126Z0']);
    // and with one false side is false even if the other is unknown: 000030 roe -5.
    expect(match('not (per < 100 and roe > 0)')).toEqual(['000030']);
  });

  it('compares two fields', () => {
    // close > sma_200: 1000>900, 500>450, 800>700, 700>650; 000040 has no sma_200.
    expect(match('close > sma_200')).toEqual(['000010', '000030', '000045', '000080']);
    expect(match('per = per')).toEqual(['000010', '000020', '000040', '000045', '000080', '0126Z0']);
  });

  it('treats `is null` / `is not null` as never unknown', () => {
    expect(match('per is null')).toEqual(['000030', '000050']);
    expect(match('dividend_yield is not null')).toEqual(['000010', '000030', '000040', '000045', '000080']);
    expect(match('sector is null')).toEqual(['000050']);
  });
});

describe('precedence and arithmetic', () => {
  it('binds and tighter than or', () => {
    // pbr<0.6: 010 030 045; rsi>60 and roe>11.5: 040 → union.
    expect(match('pbr < 0.6 or rsi_14 > 60 and roe > 11.5')).toEqual(['000010', '000030', '000040', '000045']);
    // (pbr<0.6 or rsi>60) = 010 030 040 045, and roe>11.5 drops 030 (roe -5).
    expect(match('(pbr < 0.6 or rsi_14 > 60) and roe > 11.5')).toEqual(['000010', '000040', '000045']);
  });

  it('binds * tighter than + and evaluates left to right', () => {
    expect(match('2 + 3 * 4 = 14')).toEqual(ALL);
    expect(match('2 + 3 * 4 = 20')).toEqual([]);
    expect(match('(2 + 3) * 4 = 20')).toEqual(ALL);
    expect(match('10 - 4 - 3 = 3')).toEqual(ALL);
    expect(match('2 * 3 % 4 = 2')).toEqual(ALL);
    expect(match('-2 * -3 = 6')).toEqual(ALL);
  });

  it('computes with fields', () => {
    // close/sma_200 − 1: 0.111, −0.048, 0.111, null, 0.143, null, 0.077, −0.167
    expect(match('close / sma_200 - 1 > 0.1')).toEqual(['000010', '000030', '000045']);
    // −per > −6 ⇔ per < 6: 5 and 4.
    expect(match('-per > -6')).toEqual(['000010', '000045']);
    // |change|: 1.5 2 0 3 1 0.5 null 5
    expect(match('abs(change_percent) >= 3')).toEqual(['000040', '0126Z0']);
    expect(match('max(per, pbr) > 12')).toEqual(['000020', '0126Z0']);
  });

  it('makes division by zero null', () => {
    expect(match('close / (volume - volume) > 0')).toEqual([]);
    expect(match('not (close / 0 > 0)')).toEqual([]);
    expect(match('close / 0 is null')).toEqual(ALL);
  });

  it('reads numbers with exponents, underscores, decimals and signs', () => {
    // market_cap ≥ 1e11: 5e11 3e11 8e11 1e11 2e11.
    const big = ['000010', '000020', '000030', '000040', '0126Z0'];
    expect(match('market_cap >= 1e11')).toEqual(big);
    expect(match('market_cap >= 100_000_000_000')).toEqual(big);
    expect(match('market_cap >= 1.0E+11')).toEqual(big);
    expect(match('pbr < .45')).toEqual(['000030', '000045']);
    expect(match('roe < -1')).toEqual(['000030']);
    expect(match('change_percent > -2.5')).toEqual(['000010', '000020', '000030', '000040', '000045', '000050']);
  });
});

describe('between, in, text and flags', () => {
  it('includes both ends of between', () => {
    expect(match('per between 5 and 10')).toEqual(['000010', '000040', '000080']);
    expect(match('per not between 5 and 10')).toEqual(['000020', '000045', '0126Z0']);
    expect(match('per between 5 and 10 and roe > 11.5')).toEqual(['000010', '000040']);
  });

  it('matches numeric and text lists', () => {
    expect(match('per in (5, 20)')).toEqual(['000010', '000020']);
    expect(match("sector in ('반도체', '제약')")).toEqual(['000010', '000020', '000040', '000045', '0126Z0']);
    // 000050 has no sector: unknown, not a match for `not in` either.
    expect(match("sector not in ('반도체')")).toEqual(['000020', '000030', '000080', '0126Z0']);
  });

  it('compares market case-insensitively and other text exactly', () => {
    expect(match("market = 'KOSPI'")).toEqual(['000010', '000030', '000045', '000080']);
    expect(match("market = 'kosdaq'")).toEqual(['000020', '000040', '000050', '0126Z0']);
    expect(match('market != "KOSPI"')).toEqual(['000020', '000040', '000050', '0126Z0']);
    expect(match("code = '0126Z0'")).toEqual(['0126Z0']);
    expect(match("name = '가온전자'")).toEqual(['000010']);
    expect(match("industry = '전자부품' and per < 10")).toEqual(['000010', '000045']);
    expect(match("sector = '반도체체'")).toEqual([]);
  });

  it('exposes universe flags and uses numbers as conditions', () => {
    expect(match('is_preferred = 1')).toEqual(['000045']);
    expect(match('not is_halted and per < 7')).toEqual(['000010', '000045']);
    expect(match('is_spac')).toEqual(['000050']);
    expect(match('is_spac = true')).toEqual(['000050']);
  });

  it('accepts keywords in any case and the symbolic operators', () => {
    expect(match('PER < 10 AND ROE > 11.5')).toEqual(['000010', '000045']);
    expect(match('per < 10 && roe > 11.5')).toEqual(['000010', '000045']);
    // not(per<10): 020 040 Z0; or pbr<0.4: 030.
    expect(match('!(per < 10) || pbr < 0.4')).toEqual(['000020', '000030', '000040', '0126Z0']);
  });
});

describe('canonical form and referenced fields', () => {
  it('prints equivalent texts identically', () => {
    const a = parseExpression('per<10 AND (roe>=15 or pbr<1)', KNOWN);
    const b = parseExpression('  PER < 10 and ( roe >= 15 OR pbr < 1 ) ', KNOWN);
    expect(a.canonical).toBe(b.canonical);
    expect(a.canonical).toBe('((per < 10) and ((roe >= 15) or (pbr < 1)))');
    expect(a.fields).toEqual(['per', 'roe', 'pbr']);
  });

  it('leaves text attributes and flags out of the field list', () => {
    expect(parseExpression("market = 'KOSPI' and not is_spac and rsi_14 < 30", KNOWN).fields).toEqual(['rsi_14']);
  });
});

describe('errors point at the problem', () => {
  it.each([
    ['per < 10 and roe >', 18, /end of expression/],
    ['per < 10 and roee > 5', 13, /unknown field 'roee'; did you mean roe/],
    ['(per < 10 or pbr < 1', 0, /unclosed '\('/],
    ['per < 10)', 8, /unmatched '\)'/],
    ['per < 10 roe > 5', 9, /unexpected 'roe'/],
    ["per < 10 and market > 'A'", 20, /text can only be compared with = or !=/],
    ['per @ 10', 4, /unexpected character '@'/],
    ["sector = '반도체", 9, /unterminated string/],
    ['per < 1e', 6, /malformed number '1e'/],
    ["per = 'x'", 4, /cannot compare number with text/],
    ['per between 1 10', 14, /expected 'and'/],
    ['market', 0, /text value is not a condition/],
    ['sector in ()', 11, /at least one value/],
    ["per in (5, 'a')", 11, /numbers/],
    ['foo(per) > 1', 0, /unknown function 'foo'/],
    ['per < 10 and', 12, /end of expression/],
    ['   ', 3, /empty/],
    ['(per > 1) + 2 > 0', 0, /needs numbers/],
    ['per < 1 < 2', 8, /unexpected '<'/],
  ])('%s → position %i', (expression, position, message) => {
    const error = errorOf(expression);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.status).toBe(400);
    expect(error.details.position).toBe(position);
    expect(String(error.details.expression)).toMatch(message);
  });

  it('suggests close field names for an unknown one', () => {
    const error = errorOf('rsi < 30');
    expect(error.details.field).toBe('rsi');
    expect(error.details.suggestions).toContain('rsi_14');
  });

  it('limits length and nesting', () => {
    const long = 'per < 1 or '.repeat(200) + 'per < 1';
    expect(long.length).toBeGreaterThan(EXPRESSION_LIMITS.maxLength);
    const tooLong = errorOf(long);
    expect(tooLong.details.position).toBe(EXPRESSION_LIMITS.maxLength);
    const deep = errorOf(`${'('.repeat(100)}per < 1${')'.repeat(100)}`);
    expect(String(deep.details.expression)).toMatch(/nested more than 64/);
    expect(deep.details.position).toBeLessThan(100);
    // 60 levels are fine.
    expect(match(`${'('.repeat(60)}per < 6${')'.repeat(60)}`)).toEqual(['000010', '000045']);
  });

  it('accepts any name without a field list and reads unknown columns as null', () => {
    const parsed = parseExpression('not_in_snapshot > 0 or per < 5');
    expect(snapshot.codes.filter((_, row) => compileExpression(parsed, snapshot)(row))).toEqual(['000045']);
  });
});
