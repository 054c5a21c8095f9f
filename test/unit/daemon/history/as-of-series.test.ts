/**
 * As-of snapshots from per-field series equal the per-date computation: every
 * registry field, on dates before and after the 300-bar window starts to slide (where the
 * EMA/Wilder chains are seeded differently), on halt days and for cross-sectional scores.
 */
import { describe, expect, it } from 'vitest';
import { createAsOfService } from '../../../../daemon/history/as-of-service.js';
import { asOfVersion, buildAsOfSnapshot, indicatorsAsOf } from '../../../../daemon/history/as-of-snapshot.js';
import { createSeriesStore, SERIES_FIELDS } from '../../../../daemon/history/field-series.js';
import { INDICATOR_IDS } from '../../../../daemon/indicators/registry.js';
import { createMemoryBudget } from '../../../../daemon/screening/engine/memory-budget.js';
import { buildSnapshot, valueAt, type Snapshot } from '../../../../daemon/screening/engine/snapshot.js';
import type { AsOfDepth } from '../../../../daemon/history/point-indicators.js';
import { sampleHistory, snapshotDifferences } from './sample-history.js';

const noop = async () => {};

describe('as-of series', () => {
  const HALT_DAY = 330;
  const history = sampleHistory(30, 420, HALT_DAY);

  it('covers every registry field but the cross-sectional scores', () => {
    const missing = INDICATOR_IDS.filter((f) => !SERIES_FIELDS.has(f));
    expect(missing.sort()).toEqual(['growth_score', 'magic_formula_rank', 'momentum_score', 'overall_score', 'quality_score', 'value_score']);
  });

  it('gives every field the per-date computation gives, bit for bit, before and after the window slides', async () => {
    const store = createSeriesStore(history);
    const last = history.dates.length - 1;
    // 20 and 150: the window starts at the first bar; 299: the last such; 300+: a sliding window.
    for (const day of [20, 150, 299, 300, HALT_DAY, HALT_DAY + 1, last]) {
      const reference = await buildAsOfSnapshot(history, day, noop);
      const fromSeries = await buildAsOfSnapshot(history, day, noop, 'full', INDICATOR_IDS, store);
      expect(fromSeries.codes).toEqual(reference.codes);
      const differences: string[] = [];
      for (const field of INDICATOR_IDS) {
        for (let row = 0; row < reference.size; row++) {
          const a = valueAt(reference, field, row);
          const b = valueAt(fromSeries, field, row);
          if (!Object.is(a, b)) differences.push(`${history.dates[day]} ${reference.codes[row]} ${field}: ${a} vs ${b}`);
        }
      }
      expect(differences.slice(0, 10)).toEqual([]);
      // The comparison is not of nulls: the chains and the 52-week fields hold values from day 300 on.
      if (day >= 300) for (const f of ['ema_26', 'rsi_14', 'adx_14', 'atr_14', 'beta_250', 'high_52w', 'per']) expect(fromSeries.columns.get(f)?.count).toBeGreaterThan(10);
    }
  });

  it('takes halt days from the daily code and a backtest-sized field list from the series alone', async () => {
    const store = createSeriesStore(history);
    const day = HALT_DAY;
    const fields = ['per', 'roe', 'rsi_14', 'market_cap', 'value_score'];
    const reference = await buildAsOfSnapshot(history, day, noop);
    const fromSeries = await buildAsOfSnapshot(history, day, noop, 'full', fields, store);
    // Fields needing no price history take those cells from pointIndicators: equal too.
    const point = await buildAsOfSnapshot(history, day, noop, 'point', ['per', 'close', 'market_cap', 'roe'], createSeriesStore(history));
    for (const field of fields) {
      for (let row = 0; row < reference.size; row++) expect(valueAt(fromSeries, field, row)).toBe(valueAt(reference, field, row));
    }
    for (const field of point.fields) {
      for (let row = 0; row < reference.size; row++) expect(valueAt(point, field, row)).toBe(valueAt(reference, field, row));
    }
    // Only the halted stock's cell of that day went through the daily code (the gap is the next day).
    expect(store.stats().fallbackCells).toBe(1);
    expect(valueAt(fromSeries, 'rsi_14', 0)).not.toBeNull();
  });

  it('serves a field list naming non-indicators (a sort on name, a formula column) from the series', async () => {
    const store = createSeriesStore(history);
    const day = history.dates.length - 5;
    const reference = await buildAsOfSnapshot(history, day, noop);
    const fromSeries = await buildAsOfSnapshot(history, day, noop, 'full', ['roe', 'name', 'score'], store);
    expect(store.stats().builds).toBe(1);
    for (let row = 0; row < reference.size; row++) expect(valueAt(fromSeries, 'roe', row)).toBe(valueAt(reference, 'roe', row));
  });

  it('reads a series the budget dropped (its array reused by another build) equal to what it first was', async () => {
    // Given a store with room for two fields, rsi_14 read and copied
    const perField = history.dates.length * history.stocks.length * 8;
    const store = createSeriesStore(history, perField * 2);
    const first = await store.read(['rsi_14'], noop, (cols) => Float64Array.from(cols.get('rsi_14')!));
    // When two other fields push it out and are built into the arrays dropped
    await store.read(['sma_20', 'per'], noop, () => undefined);
    await store.read(['roe', 'close'], noop, () => undefined);
    // Then reading it again builds it again, equal bit for bit (no cell left from the array's last use)
    const again = await store.read(['rsi_14'], noop, (cols) => Float64Array.from(cols.get('rsi_14')!));
    expect(store.stats().builds).toBe(4);
    expect(again.length).toBe(first.length);
    let differing = 0;
    for (let i = 0; i < first.length; i++) if (!Object.is(again[i], first[i])) differing++;
    expect(differing).toBe(0);
  });

  it('keeps at most its byte budget of series', async () => {
    const perField = history.dates.length * history.stocks.length * 8;
    const store = createSeriesStore(history, perField * 3);
    await store.get(['close', 'sma_20', 'rsi_14', 'per', 'roe'], noop);
    expect(store.stats().fields).toBe(3);
    expect(store.stats().bytes).toBeLessThanOrEqual(perField * 3);
  });

  const differences = snapshotDifferences;

  /** The snapshot as it was built before columns: one object of values per stock from the daily code, then the rows. */
  const fromObjects = async (day: number, depth: AsOfDepth): Promise<Snapshot> => {
    const values = await indicatorsAsOf(history, day, noop, depth, true);
    const rows = [...values].map(([code, v]) => {
      const r = history.byCode.get(code)!.record;
      return { code, name: r.name, name_english: r.name_english, market: r.market, sector: r.sector, industry: r.industry, board: r.board,
        flags: { administrative: r.is_administrative, spac: r.is_spac, preferred: r.is_preferred, halted: history.byCode.get(code)!.halts.has(day) }, values: v };
    });
    return buildSnapshot(rows, INDICATOR_IDS, asOfVersion(history.dates[day]!, history.version, depth));
  };

  it('computes a date into columns with the values of the objects the daily code gives, scores included', async () => {
    for (const day of [150, HALT_DAY, HALT_DAY + 1]) {
      for (const depth of ['full', 'point'] as const) {
        const columns = await buildAsOfSnapshot(history, day, noop, depth, INDICATOR_IDS);
        expect(differences(await fromObjects(day, depth), columns, INDICATOR_IDS)).toEqual([]);
      }
    }
    expect((await buildAsOfSnapshot(history, HALT_DAY, noop)).columns.get('value_score')?.count).toBeGreaterThan(10);
  });

  /** An as-of service over `history` whose memory budget holds `fields` series (no background builds). */
  const serviceHolding = (fields: number) => {
    const perField = history.dates.length * history.stocks.length * 8;
    return createAsOfService({ version: () => 'v1', loadHistory: async () => history, memory: createMemoryBudget(perField * fields), warmFields: [] });
  };

  it('computes a date of every field on its own when their series would not fit half the memory budget, with the values the series give', async () => {
    // Given a budget of 20 series: every field's (≈100) would evict one another on each date
    const asOf = serviceHolding(20);
    const store = createSeriesStore(history);
    for (const day of [HALT_DAY, history.dates.length - 1]) {
      const at = await asOf.resolve(history.dates[day]!);
      // When a screen of every field asks for a date
      const snapshot = await asOf.snapshotOf(at, 'full', INDICATOR_IDS);
      // Then it holds what the series give, bit for bit
      expect(differences(await buildAsOfSnapshot(history, day, noop, 'full', INDICATOR_IDS, store), snapshot, INDICATOR_IDS)).toEqual([]);
    }
    // and no series was built for it: the budget holds none, nothing was evicted
    expect(asOf.stats().date_builds).toBe(2);
    expect(asOf.stats().series).toMatchObject({ builds: 0, bytes: 0 });
  });

  it('builds the series of a few fields once and picks every later date from them', async () => {
    const asOf = serviceHolding(40);
    const fields = ['per', 'roe', 'rsi_14'];
    for (const day of [300, 310, 320]) await asOf.snapshotOf(await asOf.resolve(history.dates[day]!), 'full', fields);
    expect(asOf.stats().date_builds).toBe(0);
    expect(asOf.stats().series).toMatchObject({ builds: 1, fields: 3 });
  });

  it('builds many missing series only when enough dates will read them (a backtest), else computes the one date', async () => {
    const fields = ['sma_5', 'sma_20', 'sma_60', 'rsi_14', 'macd', 'atr_14', 'cci_20', 'obv', 'per', 'roe'];
    // One date (a screen): ten series over the whole history cost more than the date alone
    const screen = serviceHolding(40);
    await screen.snapshotOf(await screen.resolve(history.dates[300]!), 'full', fields);
    expect(screen.stats().date_builds).toBe(1);
    expect(screen.stats().series?.builds).toBe(0);
    // Twenty dates to go (a backtest): they pay
    const backtest = serviceHolding(40);
    const a = await backtest.snapshotOf(await backtest.resolve(history.dates[300]!), 'full', fields, 20);
    expect(backtest.stats().date_builds).toBe(0);
    expect(backtest.stats().series?.fields).toBe(fields.length);
    expect(differences(await screen.snapshotOf(await screen.resolve(history.dates[300]!), 'full', fields), a, fields)).toEqual([]);
  });
});
