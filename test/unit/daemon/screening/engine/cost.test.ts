/**
 * The cost model of the screening language: columns that refer to earlier ones are counted (and
 * keyed) once each, so the cost and the memo keys grow linearly with the request, never with
 * the expansion of the references; each budget bound refuses with the field and the figures.
 */
import { describe, expect, it } from 'vitest';
import { INDICATOR_IDS } from '../../../../../daemon/indicators/registry.js';
import { isAppError } from '../../../../../daemon/errors.js';
import { backtestCost, checkBacktestBudget, checkBudget, costOf, type CostBudget } from '../../../../../daemon/screening/engine/cost.js';
import { createCrossSectionMemo, type CrossSectionMemo } from '../../../../../daemon/screening/language/cross-section.js';
import { executeAll } from '../../../../../daemon/screening/engine/query.js';
import { parseScreenRequest } from '../../../../../daemon/screening/request/request.js';
import { fixtureSnapshot } from '../fixture.js';

const known = new Set<string>(INDICATOR_IDS);
const budget: CostBudget = { units: 2_000, nodes: 1_500, cross_terms: 32, history_fields: 24, cells: 20_000, backtest_units: 200_000 };

/** c00…c(n-1), each the previous one three times: the expanded text triples with every column. */
function chain(n: number): Record<string, string> {
  const columns: Record<string, string> = { c00: 'roe + 1' };
  for (let i = 1; i < n; i++) {
    const p = `c${String(i - 1).padStart(2, '0')}`;
    columns[`c${String(i).padStart(2, '0')}`] = `${p} + ${p} * 0.5 - ${p} / 3`;
  }
  return columns;
}

const refusal = (fn: () => void): Record<string, unknown> => {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return err.details;
    throw err;
  }
  throw new Error('not refused');
};

describe('cost model', () => {
  it('grows linearly with chained columns (each reference one node), not with their expansion', () => {
    const cost = (n: number) => costOf(parseScreenRequest({ columns: chain(n), per_page: 10 }, known), known);
    const per = cost(11).nodes - cost(10).nodes;
    expect(per).toBe(9);
    expect(cost(20).nodes - cost(10).nodes).toBe(10 * per);
  });

  it('counts nodes, cross-sectional terms, history fields (as_of only) and rows × columns', () => {
    const q = parseScreenRequest({ expression: 'pct_rank(roe) by sector > 50 and per < 10', score: { roe: 1, '-per': 1 }, per_page: 20, fields: ['pbr'] }, known);
    const c = costOf(q, known);
    expect(c.cross_terms).toBe(3);
    expect(c.history_fields).toBe(0);
    // code, name, market, sector, close, change_percent, market_cap, roe, per, score, pbr
    expect(c.cells).toBe(20 * 11);
    expect(c.units).toBe(Math.ceil(c.nodes + 25 * 3 + (20 * 11) / 50));
    const asOf = costOf(parseScreenRequest({ max_per: 10, as_of: '2025-06-02', fields: ['roe', 'pbr'] }, known), known);
    expect(asOf.history_fields).toBe(6); // close, change_percent, market_cap, per, roe, pbr
  });

  it('refuses each bound with the request field it is about and the figures', () => {
    const long = Array.from({ length: 150 }, (_, i) => `roe * ${i}`).join(' + ');
    const heavy = parseScreenRequest({ columns: { a: long, b: long, c: long, d: long } }, known);
    expect(refusal(() => checkBudget(heavy, costOf(heavy, known), budget, 'free'))).toMatchObject({ limit: 'nodes', tier: 'free', columns: expect.stringMatching(/free tier allows 1500/) });
    const wide = parseScreenRequest({ per_page: 500, fields: INDICATOR_IDS.slice(0, 60) }, known);
    expect(refusal(() => checkBudget(wide, costOf(wide, known), budget, 'free'))).toMatchObject({ limit: 'cells', per_page: expect.any(String) });
    const old = parseScreenRequest({ as_of: '2025-06-02', fields: INDICATOR_IDS.slice(0, 30) }, known);
    expect(refusal(() => checkBudget(old, costOf(old, known), budget, 'free'))).toMatchObject({ limit: 'history_fields', fields: expect.any(String) });
    const fine = parseScreenRequest({ columns: chain(20), per_page: 50 }, known);
    expect(() => checkBudget(fine, costOf(fine, known), budget, 'free')).not.toThrow();
  });

  it('prices a backtest as its as-of screen times its rebalance dates', () => {
    const q = parseScreenRequest({ max_per: 10, sort: 'roe:desc' }, known);
    const { per_date, units } = backtestCost(q, known, 50);
    expect(per_date.history_fields).toBeGreaterThan(0);
    expect(units).toBe(per_date.units * 50);
    expect(refusal(() => checkBacktestBudget(q, known, 50, { ...budget, backtest_units: units - 1 }, 'free'))).toMatchObject({ limit: 'backtest_units', rebalance: expect.stringMatching(/× 50 dates/) });
    expect(() => checkBacktestBudget(q, known, 50, { ...budget, backtest_units: units }, 'free')).not.toThrow();
  });
});

describe('formula column identities', () => {
  it('keys twenty chained columns in a few hundred characters and computes them like their expansion', () => {
    const snapshot = fixtureSnapshot();
    const keys: string[] = [];
    const memo = createCrossSectionMemo();
    const spy: CrossSectionMemo = { ...memo, put: (s, key, value) => (keys.push(key), memo.put(s, key, value)) };
    const q = parseScreenRequest({ columns: chain(20), sort: 'code:asc', per_page: 500, fields: ['roe'] }, known);
    const out = executeAll(snapshot, q, { memo: spy });
    expect(keys.length).toBe(20);
    expect(Math.max(...keys.map((k) => k.length))).toBeLessThan(200);
    // c(n) = c(n-1) × (1 + 0.5 − 1/3) = (roe + 1) × (7/6)^n
    for (const item of out.items) {
      if (item.roe === null) expect(item.c19).toBeNull();
      else expect(item.c19 as number).toBeCloseTo(((item.roe as number) + 1) * (7 / 6) ** 19, 6);
    }
  });

  it('never reuses a column for another definition under the same name', () => {
    const snapshot = fixtureSnapshot();
    const memo = createCrossSectionMemo();
    const run = (columns: Record<string, string>) => executeAll(snapshot, parseScreenRequest({ columns, sort: 'code:asc', per_page: 500 }, known), { memo });
    const a = run({ x: 'roe + 1', y: 'x * 2' });
    const b = run({ x: 'roe + 2', y: 'x * 2' });
    const pairs = a.items.map((item, i) => [item.y, b.items[i]!.y]).filter(([p]) => p !== null);
    expect(pairs.length).toBeGreaterThan(0);
    for (const [p, q] of pairs) expect((q as number) - (p as number)).toBeCloseTo(2, 9);
  });
});

describe('cross-section memo', () => {
  it('holds at most its bytes, dropping the least recently used', () => {
    const snapshot = fixtureSnapshot();
    const memo = createCrossSectionMemo(64 * 1024);
    for (let i = 0; i < 100; i++) memo.put(snapshot, `k${i}`, new Float64Array(1000));
    expect(memo.bytes()).toBeLessThanOrEqual(64 * 1024);
    expect(memo.peek(snapshot, 'k99')).toBeDefined();
    expect(memo.peek(snapshot, 'k0')).toBeUndefined();
    // A key written out at length counts too.
    memo.put(snapshot, 'x'.repeat(40_000), new Float64Array(1));
    expect(memo.bytes()).toBeLessThanOrEqual(64 * 1024);
  });
});
