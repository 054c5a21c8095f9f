/**
 * The indicators repository on the pass's backend: `all()` reads in pages and parses
 * in slices (no long event-loop stall), and must still return every row whole.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIndicatorsRepo, type IndicatorValues } from '../../../daemon/store/indicators-repo.js';
import { createStocksRepo } from '../../../daemon/store/stocks-repo.js';
import { openTestDb, type TestDb } from '../../helpers/test-store.js';

/** Codes across several pages of `all()` (400 rows a page), alphanumeric ones included. */
const CODES = [
  ...Array.from({ length: 1_000 }, (_, i) => String(100_000 + i * 7).padStart(6, '0')),
  '0126Z0', '00680K', '0000A0',
];

function valuesOf(i: number): IndicatorValues {
  return { close: 1_000 + i, per: i % 5 === 0 ? null : i / 10, roe: 1 - i, flag: i % 2 };
}

describe('indicators repository', () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await openTestDb('indicators-repo');
    await t.db.transaction((tx) =>
      createStocksRepo(t.db).merge(tx, CODES.map((code) => ({ code, name: `종목${code}`, market: 'KOSPI' as const }))),
    );
  });
  afterEach(() => t.close());

  it('returns every stock\'s values exactly, across pages', async () => {
    // Given values for 1,003 stocks written in one run
    const repo = createIndicatorsRepo(t.db);
    const written = new Map(CODES.map((code, i) => [code, valuesOf(i)]));
    await repo.replaceAll(written, { version: 'v1', as_of: '2026-03-20', stocks: CODES.length, duration_ms: 1, computed_at: new Date(0).toISOString() });
    // When every row is read back
    const read = await repo.all();
    // Then nothing is lost or duplicated, and nulls stay null
    expect(read.size).toBe(CODES.length);
    for (const [code, values] of written) expect(read.get(code), code).toEqual(values);
    expect(read.get(CODES[0]!)?.per).toBeNull();
  });

  it('reads the latest run after a replacement and nothing when empty', async () => {
    // Given an empty table
    const repo = createIndicatorsRepo(t.db);
    expect((await repo.all()).size).toBe(0);
    // When two runs are written one after the other
    const run = (version: string) => ({ version, as_of: '2026-03-20', stocks: 1, duration_ms: 1, computed_at: new Date(0).toISOString() });
    await repo.replaceAll(new Map([[CODES[0]!, { close: 1 }]]), run('v1'));
    await repo.replaceAll(new Map([[CODES[1]!, { close: 2 }]]), run('v2'));
    // Then only the second run's rows remain
    expect([...(await repo.all()).entries()]).toEqual([[CODES[1], { close: 2 }]]);
    expect((await repo.latestRun())?.version).toBe('v2');
  });
});
