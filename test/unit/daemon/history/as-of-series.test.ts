/**
 * As-of snapshots from per-field series equal the per-date computation: every
 * registry field, on dates before and after the 300-bar window starts to slide (where the
 * EMA/Wilder chains are seeded differently), on halt days and for cross-sectional scores.
 */
import { describe, expect, it } from 'vitest';
import { buildAsOfSnapshot } from '../../../../daemon/history/as-of-snapshot.js';
import { createSeriesStore, SERIES_FIELDS } from '../../../../daemon/history/field-series.js';
import { createHistoryBuilder } from '../../../../daemon/history/history-loader.js';
import type { MarketHistory } from '../../../../daemon/history/market-history.js';
import { INDICATOR_IDS } from '../../../../daemon/indicators/registry.js';
import type { DailyBar, FinancialQuarter, HaltRecord, IndexBar } from '../../../../daemon/kernel/records.js';
import { valueAt } from '../../../../daemon/screening/snapshot.js';
import { createSampleMarket } from '../../../../loaders/sample-market.js';

/**
 * A small sample market read into a MarketHistory, as the loader reads the store. Its first
 * stock is halted on `haltDay` (a halt record instead of its bar) and its second has no bar on
 * `haltDay + 1` (a gap), so both kinds of cells the series take from the daily code occur.
 */
function sampleHistory(stocks: number, days: number, haltDay: number): MarketHistory {
  const market = createSampleMarket({ seed: 11, stocks, days });
  const bars: DailyBar[] = [];
  const halts: HaltRecord[] = [];
  const financials = new Map<string, FinancialQuarter[]>();
  const index: IndexBar[] = [];
  for (const chunk of market.chunks()) {
    bars.push(...chunk.bars);
    halts.push(...chunk.halts);
    index.push(...chunk.index);
    for (const q of chunk.financials) financials.set(q.stock_code, [...(financials.get(q.stock_code) ?? []), q]);
  }
  const [first, second] = market.stocks;
  const haltDate = market.tradeDates[haltDay] ?? '';
  const gapDate = market.tradeDates[haltDay + 1] ?? '';
  const haltBar = bars.find((b) => b.stock_code === first?.code && b.trade_date === haltDate);
  if (haltBar) halts.push({ stock_code: haltBar.stock_code, trade_date: haltDate, last_close: haltBar.close_price, market_cap: null, shares_outstanding: null });
  const kept = bars.filter((b) => b !== haltBar && !(b.stock_code === second?.code && b.trade_date === gapDate));
  bars.length = 0;
  bars.push(...kept);
  bars.sort((a, b) => (a.trade_date < b.trade_date ? -1 : a.trade_date > b.trade_date ? 1 : 0));
  const builder = createHistoryBuilder(market.stocks, [...bars.map((b) => b.trade_date), ...halts.map((h) => h.trade_date)]);
  builder.addBars(bars);
  return builder.finish('v1', halts, financials, {
    KOSPI: index.filter((b) => b.market === 'KOSPI'), KOSDAQ: index.filter((b) => b.market === 'KOSDAQ'),
  });
}

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
});
