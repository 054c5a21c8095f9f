/**
 * Screens read off presorted orders answer exactly what the straightforward evaluation (scan
 * every row, sort every match, slice the page) answers: same stocks in the same order, same
 * totals and pages, on the sample market for many random queries and on hand-made edge cases.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { executeQuery, executeQuerySliced, type ScreenQuery, type SortKey } from '../../../../../daemon/screening/engine/query.js';
import { ordersOf } from '../../../../../daemon/screening/engine/presorted.js';
import { buildSnapshot, STOCK_FLAGS, type Snapshot, type SnapshotRow } from '../../../../../daemon/screening/engine/snapshot.js';
import { fixtureSnapshot } from '../fixture.js';
import { sampleSnapshot } from '../sample-snapshot.js';

function query(partial: Partial<ScreenQuery> = {}): ScreenQuery {
  return { universe: {}, filters: [], sort: [{ field: 'market_cap', direction: 'desc' }], page: 1, per_page: 50, fields: [], ...partial };
}

/** The answer without its timing, which is all that may differ. */
function answer(snapshot: Snapshot, q: ScreenQuery, presorted: boolean) {
  const { query_time_ms: _, ...rest } = executeQuery(snapshot, q, { presorted });
  return rest;
}

/** Asserts both paths agree and returns the answer's codes. */
function agreed(snapshot: Snapshot, q: ScreenQuery): { total: number; codes: string[] } {
  const straightforward = answer(snapshot, q, false);
  expect(answer(snapshot, q, true)).toEqual(straightforward);
  return { total: straightforward.total, codes: straightforward.items.map((i) => i.code) };
}

function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

describe('presorted screens on the sample market', () => {
  let snapshot: Snapshot;
  beforeAll(async () => {
    snapshot = await sampleSnapshot(2769, 210);
  }, 120_000);

  // Fields with many nulls (valuation, dividends), many ties (scores, flags-like counts, prices on
  // the tick grid), negatives (returns, growth) and none of these (market cap).
  const FIELDS = [
    'market_cap', 'close', 'change_percent', 'volume', 'per', 'pbr', 'roe', 'dividend_yield', 'rsi_14', 'sma_20', 'sma_200',
    'return_1m', 'return_3m', 'piotroski_f_score', 'altman_z', 'value_score', 'quality_score', 'magic_formula_rank', 'debt_ratio',
  ];
  const EXPRESSIONS = [
    'close > sma_20 * 0.9 and (per < 30 or pbr < 3)',
    'roe > 10',
    'not (per < 10)',
    'dividend_yield >= 2 or per between 5 and 15',
    'per is null',
    "market = 'kosdaq' and return_1m > 0",
    'is_preferred = 0 and close * 2 > sma_200',
  ];

  it('answers like the straightforward evaluation for 400 random queries', () => {
    const rand = rng(20261127);
    const pick = <T,>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    const fields = FIELDS.filter((f) => snapshot.columns.has(f));
    expect(fields.length).toBeGreaterThan(15);
    /** A value of `field` some stock has (so bounds land on ties), or one between. */
    const valueOf = (field: string): number => {
      const values = snapshot.columns.get(field)!.values;
      for (let tries = 0; tries < 20; tries++) {
        const v = values[Math.floor(rand() * snapshot.size)]!;
        if (!Number.isNaN(v)) return rand() < 0.7 ? v : v * (0.5 + rand());
      }
      return 0;
    };
    let nonEmpty = 0;
    let multiPage = 0;
    for (let n = 0; n < 400; n++) {
      const filters = Array.from({ length: Math.floor(rand() * 4) }, () => {
        const field = pick(fields);
        const [a, b] = [valueOf(field), valueOf(field)].sort((x, y) => x - y) as [number, number];
        const shape = rand();
        return shape < 0.3 ? { field, min: a } : shape < 0.6 ? { field, max: b } : shape < 0.7 ? { field, min: a, max: a } : { field, min: a, max: b };
      });
      const sort: SortKey[] = Array.from({ length: Math.floor(rand() * 4) }, () => ({
        field: pick([...fields, 'code', 'name', 'piotroski_f_score', 'dividend_yield']),
        direction: rand() < 0.5 ? 'asc' : 'desc',
      }));
      const universe: ScreenQuery['universe'] = {};
      if (rand() < 0.3) universe.market = pick(['KOSPI', 'KOSDAQ'] as const);
      if (rand() < 0.15) universe.sectors = [pick(snapshot.sector.dict), pick(snapshot.sector.dict)];
      if (rand() < 0.1) universe.industries = [pick(snapshot.industry.dict)];
      if (rand() < 0.1) universe.codes = Array.from({ length: 1 + Math.floor(rand() * 300) }, () => pick(snapshot.codes));
      if (rand() < 0.2) universe.exclude = [pick(STOCK_FLAGS)];
      const perPage = pick([1, 2, 7, 20, 50, 100, 500]);
      const q = query({
        universe, filters, sort, per_page: perPage, page: rand() < 0.6 ? 1 : 1 + Math.floor(rand() * (rand() < 0.2 ? 3000 : 12)),
        ...(rand() < 0.4 ? { expression: pick(EXPRESSIONS) } : {}),
        fields: [pick(fields)],
      });
      const { total, codes } = agreed(snapshot, q);
      if (codes.length > 0) nonEmpty++;
      if (total > perPage) multiPage++;
    }
    // The queries exercise what they should: full pages, later pages, empty answers.
    expect(nonEmpty).toBeGreaterThan(150);
    expect(multiPage).toBeGreaterThan(100);
    expect(ordersOf(snapshot).bytes()).toBeGreaterThan(0);
  });

  it('answers the request-path bench complex screen, every page of it, like the straightforward evaluation', () => {
    const base = query({
      filters: [
        { field: 'per', min: 0, max: 40 }, { field: 'pbr', max: 6 }, { field: 'roe', min: 0 },
        { field: 'market_cap', min: 1e9 }, { field: 'volume', min: 1 }, { field: 'rsi_14', min: 10, max: 90 },
      ],
      expression: 'close > sma_20 * 0.9 and (per < 30 or pbr < 3)',
      sort: [{ field: 'roe', direction: 'desc' }, { field: 'market_cap', direction: 'desc' }],
    });
    const { total } = agreed(snapshot, base);
    expect(total).toBeGreaterThan(100);
    for (let page = 1; page <= Math.ceil(total / 50) + 1; page++) agreed(snapshot, { ...base, page });
  });
});

describe('presorted screens: edge cases', () => {
  // See fixture.ts: per is null for 000030 and 000050; roe ties at 12 (000010, 000045).
  const snapshot = fixtureSnapshot();

  it('puts nulls last in both directions', () => {
    expect(agreed(snapshot, query({ sort: [{ field: 'per', direction: 'asc' }] })).codes.slice(-2)).toEqual(['000030', '000050']);
    expect(agreed(snapshot, query({ sort: [{ field: 'per', direction: 'desc' }] })).codes.slice(-2)).toEqual(['000030', '000050']);
    // Nulls tie with each other: the second key orders them (market cap 8e11 before 1e10 ascending? no: 1e10 first).
    expect(agreed(snapshot, query({ sort: [{ field: 'per', direction: 'desc' }, { field: 'market_cap', direction: 'asc' }] })).codes.slice(-2)).toEqual(['000050', '000030']);
  });

  it('breaks ties by code in either direction, or by the next key', () => {
    expect(agreed(snapshot, query({ sort: [{ field: 'roe', direction: 'desc' }] })).codes.slice(0, 3)).toEqual(['000040', '000010', '000045']);
    expect(agreed(snapshot, query({ sort: [{ field: 'roe', direction: 'asc' }] })).codes.slice(3, 6)).toEqual(['000080', '000010', '000045']);
    // close: 000045 (800) before 000010 (1000) ascending.
    const byClose = query({ sort: [{ field: 'roe', direction: 'desc' }, { field: 'close', direction: 'asc' }] });
    expect(agreed(snapshot, byClose).codes.slice(0, 3)).toEqual(['000040', '000045', '000010']);
  });

  it('splits a tie group across pages as the full sort does', () => {
    const sort: SortKey[] = [{ field: 'roe', direction: 'desc' }, { field: 'close', direction: 'asc' }];
    // Page 2 of one row each starts inside the tie group of roe 12.
    expect(agreed(snapshot, query({ sort, per_page: 1, page: 2 })).codes).toEqual(['000045']);
    expect(agreed(snapshot, query({ sort, per_page: 1, page: 3 })).codes).toEqual(['000010']);
    expect(agreed(snapshot, query({ sort, per_page: 2, page: 2 })).codes).toEqual(['000010', '000080']);
  });

  it('answers a page past the end empty, with the total', () => {
    const past = agreed(snapshot, query({ filters: [{ field: 'per', min: 0 }], per_page: 3, page: 3 }));
    expect(past).toEqual({ total: 6, codes: [] });
    expect(agreed(snapshot, query({ per_page: 500, page: 1_000_000 }))).toEqual({ total: 8, codes: [] });
  });

  it('matches nothing on a field the snapshot lacks, and ignores a sort on one', () => {
    expect(agreed(snapshot, query({ filters: [{ field: 'not_loaded', min: 0 }] }))).toEqual({ total: 0, codes: [] });
    expect(agreed(snapshot, query({ sort: [{ field: 'not_loaded', direction: 'desc' }, { field: 'code', direction: 'desc' }] })).codes[0]).toBe('0126Z0');
  });

  it('sorts by name and code, and keeps code order without a sort', () => {
    expect(agreed(snapshot, query({ sort: [{ field: 'name', direction: 'asc' }] })).codes.slice(0, 2)).toEqual(['000010', '000045']);
    expect(agreed(snapshot, query({ sort: [{ field: 'code', direction: 'desc' }], per_page: 2 })).codes).toEqual(['0126Z0', '000080']);
    expect(agreed(snapshot, query({ sort: [], filters: [{ field: 'roe', min: 10 }] })).codes).toEqual(['000010', '000040', '000045', '000080']);
  });

  it('narrows by the most selective filter and still applies every condition', () => {
    // pbr ≤ 1 is the narrower; roe ≥ 12, the universe and the expression still apply.
    const q = query({ universe: { exclude: ['preferred'] }, filters: [{ field: 'roe', min: 12 }, { field: 'pbr', max: 1 }], expression: 'close >= 1000', sort: [{ field: 'close', direction: 'desc' }] });
    expect(agreed(snapshot, q).codes).toEqual(['000040', '000010']);
    expect(agreed(snapshot, query({ universe: { codes: ['000080', '000010', '000010', 'ZZZZZZ'] } })).codes).toEqual(['000010', '000080']);
  });

  it('orders -0 and 0 as equal, so the next key decides', () => {
    const base: SnapshotRow = { code: '', name: 'x', name_english: null, market: 'KOSPI', sector: null, industry: null, board: null, flags: { administrative: false, spac: false, preferred: false, halted: false }, values: {} };
    const values = [[0, 1], [-0, 3], [1, 2], [-0, 2], [null, 5], [0, null]] as const;
    const snap = buildSnapshot(values.map(([a, b], i) => ({ ...base, code: `00000${i}`, values: { a, b } })), ['a', 'b'], 't');
    for (const direction of ['asc', 'desc'] as const) {
      const { codes } = agreed(snap, query({ sort: [{ field: 'a', direction }, { field: 'b', direction: 'desc' }] }));
      expect(codes.slice(direction === 'asc' ? 0 : 1, direction === 'asc' ? 4 : 5)).toEqual(['000001', '000003', '000000', '000005']);
    }
  });

  it('leaves screens with formula columns or ranks to the general path', () => {
    const snap = fixtureSnapshot();
    const withColumn = query({ columns: [{ name: 'ey', expression: '1 / per * 100' }], sort: [{ field: 'ey', direction: 'desc' }] });
    const withRank = query({ expression: 'pct_rank(roe) >= 50', sort: [{ field: 'roe', direction: 'desc' }] });
    expect(agreed(snap, withColumn).codes[0]).toBe('000045');
    expect(agreed(snap, withRank).total).toBe(4);
    // Neither built an order of the snapshot: they never read one.
    expect(ordersOf(snap).bytes()).toBe(0);
  });
});

describe('presorted screens: time slicing', () => {
  const q = query({ filters: [{ field: 'per', min: 0 }, { field: 'roe', max: 20 }], sort: [{ field: 'pbr', direction: 'asc' }, { field: 'close', direction: 'desc' }] });

  it('builds each missing order as its own unit of work, then reuses it', async () => {
    const snapshot = fixtureSnapshot();
    let checkpoints = 0;
    const count = async () => void checkpoints++;
    const first = await executeQuerySliced(snapshot, q, { presorted: true }, count);
    // Orders of per, roe (filters) and pbr (first sort key), each followed by a checkpoint, then the page.
    expect(checkpoints).toBe(4);
    checkpoints = 0;
    const again = await executeQuerySliced(snapshot, q, { presorted: true }, count);
    expect(checkpoints).toBe(1);
    const { query_time_ms: _a, ...a } = first;
    const { query_time_ms: _b, ...b } = again;
    expect(a).toEqual(b);
    expect(b).toEqual(answer(snapshot, q, false));
  });

  it('stops where a checkpoint throws (deadline, client gone), before the page', async () => {
    const snapshot = fixtureSnapshot();
    let calls = 0;
    const deadline = async () => {
      if (++calls === 2) throw new Error('deadline');
    };
    await expect(executeQuerySliced(snapshot, q, { presorted: true }, deadline)).rejects.toThrow('deadline');
    // The first order was built before the throw; the work stopped there.
    expect(ordersOf(snapshot).bytes()).toBeGreaterThan(0);
    expect(ordersOf(snapshot).bytes()).toBeLessThan(3 * 4 * snapshot.size);
  });
});
