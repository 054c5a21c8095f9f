/**
 * Where an as-of date's columns are computed. The local builder computes them on the calling
 * thread; the as-of thread (as-of-thread.ts) runs a local builder of its own on another thread,
 * so the daemon's event loop and its collector never carry that work. Either holds the series
 * store of the current history and builds the common series in the background once it has it.
 */
import { createTimeSlicer } from '../screening/engine/time-slicer.js';
import type { MemoryBudget } from '../screening/engine/memory-budget.js';
import { asOfColumns, seriesPay, type AsOfColumns } from './as-of-snapshot.js';
import { createSeriesStore, SERIES_FIELDS, type SeriesStore } from './field-series.js';
import type { MarketHistory } from './market-history.js';
import type { AsOfDepth } from './point-indicators.js';

/**
 * The series built in the background after a history read, batch by batch (a request for one
 * of them waits for its batch only): the columns every screen answers with, the common
 * filters and the inputs of the cross-sectional scores. ≈30 fields, ≈330 MB on 2,700 × 520.
 */
export const WARM_FIELDS: readonly (readonly string[])[] = [
  ['close', 'change_percent', 'volume'],
  ['market_cap', 'per', 'pbr', 'psr', 'roe', 'roa', 'earnings_yield', 'dividend_yield', 'operating_margin', 'debt_ratio', 'piotroski_f_score',
    'revenue_growth_yoy', 'operating_profit_growth_yoy', 'net_profit_growth_yoy', 'revenue_growth_qoq', 'ev_ebit', 'return_on_capital'],
  ['return_3m', 'return_6m', 'momentum_12_1', 'dist_52w_high', 'sma_20'],
  ['rsi_14'],
];

/** Fields built at a time in the background (≈90 MB of arrays on a full market). */
const WARM_CHUNK = 8;

/** An as-of date's columns, and whether they were picked from series (else computed for the date). */
export interface BuiltColumns extends AsOfColumns {
  fromSeries: boolean;
}

/** Series figures for the benchmark and logs. */
export type SeriesStats = ReturnType<SeriesStore['stats']>;

/** Computes as-of columns over the current history. */
export interface AsOfBuilder {
  /** Make `history` the current one: the previous one's series are let go, the common ones built in the background. */
  use(history: MarketHistory): Promise<void>;
  /**
   * The columns of `fields` on date index `day` of `history` (the one `use` was last given).
   * `dates`: how many dates the caller will ask with these fields, which decides whether their
   * series pay (as-of-snapshot.ts seriesPay).
   */
  columns(history: MarketHistory, day: number, depth: AsOfDepth, fields: readonly string[], dates: number): Promise<BuiltColumns>;
  /** Settles when the background build of the current history's common series is done. */
  warmed(): Promise<void>;
  /** The current history's series, once it has one. */
  seriesStats(): SeriesStats | undefined;
  /** Let everything go (the thread ends). */
  close(): Promise<void>;
}

/** A builder on the calling thread, its series counted against `memory`; `warmFields` default WARM_FIELDS ([] for none). */
export function createLocalBuilder(memory: MemoryBudget, warmFields: readonly (readonly string[])[] = WARM_FIELDS): AsOfBuilder {
  const stores = new WeakMap<MarketHistory, SeriesStore>();
  let current: { history: MarketHistory; store: SeriesStore; warm: Promise<void> } | undefined;

  function storeOf(h: MarketHistory): SeriesStore {
    let store = stores.get(h);
    if (!store) {
      store = createSeriesStore(h, memory);
      stores.set(h, store);
    }
    return store;
  }

  /** Build the warm series batch by batch, time-sliced, while `h` stays the current history. */
  async function warm(h: MarketHistory, store: SeriesStore): Promise<void> {
    for (const batch of warmFields) {
      if (current?.history !== h) return;
      const slicer = createTimeSlicer();
      const fields = batch.filter((f) => SERIES_FIELDS.has(f));
      // At most WARM_CHUNK fields per build: a build allocates (and reserves) all its arrays at once.
      for (let i = 0; i < fields.length; i += WARM_CHUNK) await store.get(fields.slice(i, i + WARM_CHUNK), () => slicer.checkpoint());
    }
  }

  return {
    async use(h) {
      if (current?.history === h) return;
      const store = storeOf(h);
      const entry: { history: MarketHistory; store: SeriesStore; warm: Promise<void> } = { history: h, store, warm: Promise.resolve() };
      current = entry;
      entry.warm = warm(h, store).catch(() => undefined);
    },
    async columns(h, day, depth, fields, dates) {
      const store = storeOf(h);
      const fromSeries = seriesPay(store, fields, depth, dates);
      const slicer = createTimeSlicer();
      const built = await asOfColumns(h, day, () => slicer.checkpoint(), depth, fields, fromSeries ? store : undefined);
      return { ...built, fromSeries };
    },
    warmed: async () => {
      await current?.warm;
    },
    seriesStats: () => current?.store.stats(),
    close: async () => {
      current = undefined;
    },
  };
}
