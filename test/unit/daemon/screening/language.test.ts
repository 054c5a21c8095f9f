/**
 * The screening language's ranks, formula columns and scores on hand-made markets: scalar functions and null
 * semantics, rank/pct_rank/zscore (with and without `by`) against an independent reference,
 * formula columns in filters and sort, and the score against a hand computation.
 */
import { describe, expect, it } from 'vitest';
import { createCrossSectionMemo, type CrossSectionMemo } from '../../../../daemon/screening/language/cross-section.js';
import { executeAll, executeQuery, type ScreenQuery } from '../../../../daemon/screening/engine/query.js';
import { buildSnapshot, type SnapshotRow } from '../../../../daemon/screening/engine/snapshot.js';
import { refPctRank, refRank, refZscore, type Obs } from '../../../helpers/cross-section-reference.js';
import { fixtureSnapshot, ROWS } from './fixture.js';

const snapshot = fixtureSnapshot();

function query(partial: Partial<ScreenQuery> = {}): ScreenQuery {
  return { universe: {}, filters: [], sort: [{ field: 'code', direction: 'asc' }], page: 1, per_page: 500, fields: [], ...partial };
}

function column(expression: string, partial: Partial<ScreenQuery> = {}, snap = snapshot): Map<string, number | null> {
  const out = executeAll(snap, query({ columns: [{ name: 'x', expression }], ...partial }));
  return new Map(out.items.map((item) => [item.code, item.x as number | null]));
}

/** A market with ties, nulls, a one-stock sector and a null sector. */
function tiedMarket(): { rows: SnapshotRow[]; obs: (field: 'a' | 'b') => Obs[] } {
  const sectors = ['S1', 'S1', 'S1', 'S2', 'S2', 'S2', 'S2', 'S3', null, 'S1', 'S2', 'S1'];
  const a = [5, 3, 5, 1, 1, 1, 7, 9, 2, null, 4, 5];
  const b = [0.5, -2, 3, null, 3, 3, 10, -1, 0, 2, 2, 2];
  const rows: SnapshotRow[] = a.map((v, i) => ({
    code: `00${String(100 + i)}0`.slice(-6),
    name: `s${i}`,
    name_english: null,
    market: i % 2 === 0 ? 'KOSPI' : 'KOSDAQ',
    sector: sectors[i] ?? null,
    industry: null,
    board: null,
    flags: { administrative: false, spac: false, preferred: false, halted: false },
    values: { a: v, b: b[i] ?? null },
  }));
  const obs = (field: 'a' | 'b'): Obs[] => rows.map((r) => ({ key: r.code, value: (r.values[field] ?? null) as number | null, group: r.sector }));
  return { rows, obs };
}

function expectClose(actual: Map<string, number | null>, expected: Map<string, number | null>): void {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [key, value] of expected) {
    const got = actual.get(key);
    if (value === null) expect(got, key).toBeNull();
    else expect(got, key).toBeCloseTo(value, 10);
  }
}

describe('scalar functions and nulls', () => {
  it('log, sqrt and coalesce give null on missing or invalid input', () => {
    // roe: 000030 = -5, 000050 = null. per: 000030 and 000050 null; dividend_yield null for 000020, 000050, 0126Z0.
    const log = column('log(roe)');
    expect(log.get('000010')).toBeCloseTo(Math.log(12));
    expect(log.get('000030')).toBeNull();
    expect(log.get('000050')).toBeNull();
    expect(column('sqrt(roe)').get('000040')).toBeCloseTo(Math.sqrt(15));
    expect(column('sqrt(roe)').get('000030')).toBeNull();
    const c = column('coalesce(dividend_yield, -1)');
    expect(c.get('000020')).toBe(-1);
    expect(c.get('000010')).toBe(3);
    expect(column('coalesce(per, dividend_yield)').get('000030')).toBe(6);
  });

  it('division by zero and arithmetic with null are null, and a null never passes a filter', () => {
    const ey = column('1 / per * 100');
    expect(ey.get('000010')).toBe(20);
    expect(ey.get('000030')).toBeNull();
    expect(column('roe / (pbr - pbr)').get('000010')).toBeNull();
    const out = executeQuery(snapshot, query({ columns: [{ name: 'ey', expression: '1 / per * 100' }], expression: 'ey > 0 or not (ey > 0)' }));
    expect(out.items.map((i) => i.code)).not.toContain('000030');
  });
});

describe('cross-sectional functions against an independent computation', () => {
  const { rows, obs } = tiedMarket();
  const snap = buildSnapshot(rows, ['a', 'b'], 't1');

  it.each(['a', 'b'] as const)('rank, rank_asc, pct_rank, zscore of %s over the whole market', (field) => {
    expectClose(column(`rank(${field})`, {}, snap), refRank(obs(field), false));
    expectClose(column(`rank_asc(${field})`, {}, snap), refRank(obs(field), false, true));
    expectClose(column(`pct_rank(${field})`, {}, snap), refPctRank(obs(field), false));
    expectClose(column(`zscore(${field})`, {}, snap), refZscore(obs(field), false));
  });

  it.each(['a', 'b'] as const)('the same by sector: a null sector is null, a one-stock sector ranks 1 / 100 / null', (field) => {
    expectClose(column(`rank(${field}) by sector`, {}, snap), refRank(obs(field), true));
    expectClose(column(`pct_rank(${field}) by sector`, {}, snap), refPctRank(obs(field), true));
    expectClose(column(`zscore(${field}) by sector`, {}, snap), refZscore(obs(field), true));
    const lone = rows[7]!.code; // S3 holds one stock
    expect(column(`pct_rank(${field}) by sector`, {}, snap).get(lone)).toBe(100);
    expect(column(`rank(${field}) by sector`, {}, snap).get(lone)).toBe(1);
    expect(column(`zscore(${field}) by sector`, {}, snap).get(lone)).toBeNull();
  });

  it('by market groups on the market', () => {
    const byMarket = obs('a').map((o, i) => ({ ...o, group: rows[i]!.market }));
    expectClose(column('pct_rank(a) by market', {}, snap), refPctRank(byMarket, true));
  });

  it('ranks over the universe, before range filters and the expression', () => {
    const kospi = rows.filter((r) => r.market === 'KOSPI').map((r) => r.code);
    const universe = obs('a').filter((o) => kospi.includes(o.key));
    const expected = refPctRank(universe, false);
    const got = column('pct_rank(a)', { universe: { market: 'KOSPI' }, filters: [{ field: 'a', min: 5 }] }, snap);
    for (const [code, value] of got) expect(value).toBeCloseTo(expected.get(code)!, 10);
    // The filter removed rows but did not change the percentiles of the rest.
    expect(got.size).toBeLessThan(universe.length);
  });

  it('a cross-sectional term in the expression filters on the universe ranking', () => {
    const expected = refPctRank(obs('a'), true);
    const out = executeAll(snap, query({ expression: 'pct_rank(a) by sector >= 75 and b > 0' }));
    const want = rows.filter((r) => (expected.get(r.code) ?? -1) >= 75 && ((r.values.b ?? -1) as number) > 0).map((r) => r.code);
    expect(out.items.map((i) => i.code)).toEqual(want);
  });
});

describe('formula columns', () => {
  it('are usable in filters, the expression and sort, and returned in items', () => {
    const out = executeAll(snapshot, query({
      columns: [{ name: 'ey', expression: '1 / per * 100' }, { name: 'ey2', expression: 'ey * 2' }],
      filters: [{ field: 'ey', min: 6 }],
      expression: 'ey2 < 40',
      sort: [{ field: 'ey', direction: 'desc' }],
    }));
    // ey = 100 / per: 000010 20, 000040 10, 000045 25, 000080 16.67, 0126Z0 6.67, 000020 5; ey2 < 40 ⇔ ey < 20.
    expect(out.items.map((i) => i.code)).toEqual(['000080', '000040', '0126Z0']);
    expect(out.items.map((i) => i.ey2)).toEqual([((1 / 6) * 100) * 2, 20, ((1 / 15) * 100) * 2]);
    expect(out.columns).toEqual(expect.arrayContaining(['ey', 'ey2']));
  });
});

describe('score', () => {
  it('is the weighted mean of percentile ranks, hand-computed; a null factor gives a null score', () => {
    // Universe: the five stocks with a sector other than 금융/건설/none: 000010 000020 000040 000045 0126Z0.
    const out = executeAll(snapshot, query({
      universe: { sectors: ['반도체', '제약'] },
      score: { factors: [{ field: 'roe', weight: 2, direction: 'desc' }, { field: 'per', weight: 1, direction: 'asc' }, { field: 'dividend_yield', weight: 1, direction: 'desc' }] },
      sort: [{ field: 'score', direction: 'desc' }],
    }));
    // roe 12, 8, 15, 12, 2 → pct (avg rank / 5): 010 70, 020 40, 040 100, 045 70, 0126Z0 20.
    // -per -5, -20, -10, -4, -15 → pct: 010 80, 020 20, 040 60, 045 100, 0126Z0 40.
    // dy 3, null, 1, 4, null → pct over 3: 010 66.67, 040 33.33, 045 100; others null.
    const score = (roe: number, per: number, dy: number): number => (2 * roe + per + dy) / 4;
    expect(out.items.map((i) => [i.code, i.score])).toEqual([
      ['000045', score(70, 100, 100)],
      ['000040', score(100, 60, 100 / 3)],
      ['000010', score(70, 80, 200 / 3)],
      ['000020', null],
      ['0126Z0', null],
    ]);
  });

  it('filters on score', () => {
    const out = executeAll(snapshot, query({ score: { factors: [{ field: 'roe', weight: 1, direction: 'desc' }] }, expression: 'score >= 80' }));
    // roe over the 7 stocks with a value: 15 12 12 11 8 2 -5 → ≥ 80 %: 000040 (100), 000010 and 000045 (avg rank 5.5/7 = 78.6 → out).
    expect(out.items.map((i) => i.code)).toEqual(['000040']);
  });
});

describe('memo', () => {
  it('answers a repeated screen from the memo with the same values', () => {
    const memo = createCrossSectionMemo();
    const q = (): ScreenQuery => query({ columns: [{ name: 'p', expression: 'pct_rank(roe) by sector' }] });
    const first = executeAll(snapshot, q(), { memo });
    let computed = 0;
    // Counts finished cross-sectional terms (not sorted orders or formula columns).
    const counting: CrossSectionMemo = {
      ...memo,
      get: (s, key, compute) => memo.get(s, key, () => (/^(order|column)\|/.test(key) ? compute() : (computed++, compute()))),
    };
    const second = executeAll(snapshot, q(), { memo: counting });
    expect(second.items).toEqual(first.items);
    expect(computed).toBe(0);
    // Another universe is another key.
    executeAll(snapshot, query({ universe: { market: 'KOSPI' }, columns: [{ name: 'p', expression: 'pct_rank(roe) by sector' }] }), { memo: counting });
    expect(computed).toBe(1);
    expect(ROWS.length).toBe(8);
  });
});
