/**
 * Per-field indicator series over the whole history: for a field, one Float64Array of
 * dates × stocks (value of stock s as of date d at [d·S + s], NaN = null) holding what the daily
 * computation over the last 300 bars up to d gives. Built per field on first use (or in the
 * background, as-of-service.ts), O(bars × small window) per stock (the daily computation's own
 * price kernels, indicators/price-kernels.ts, run for every bar; fundamental-series.ts); an as-of
 * snapshot is then a column pick.
 *
 * Cells on a day the stock traded and was not halted come from the per-bar series; the other
 * cells of a listed stock (a halt record, or no bar that day) come from the daily code itself
 * (computeStockIndicators over seriesAsOf), memoised per stock-day: few, and equal by
 * construction. Memory: 8 bytes × dates × stocks a field (≈11 MB on 2,700 × 520). The fields
 * kept count against the daemon's one memory budget (screening/engine/memory-budget.ts), which drops
 * the least recently used entry of whichever cache when full; a build reserves its bytes in that
 * budget before allocating them, and one build runs at a time per store (the work is CPU on the
 * one thread anyway: two at once would only hold twice the arrays in flight).
 */
import { computeStockIndicators, type IndicatorValues } from '../indicators/compute.js';
import { everyBar, WINDOW, type Bars, type PlainColumns } from '../indicators/kernel.js';
import { PRICE_FIELDS, PRICE_KERNELS } from '../indicators/price-kernels.js';
import { FUNDAMENTAL_FIELDS, fundamentalSeries } from './fundamental-series.js';
import { isListedOn, type MarketHistory, type StockHistory } from './market-history.js';
import { seriesAsOf } from './as-of-inputs.js';
import { createMemoryBudget, type MemoryBudget } from '../screening/engine/memory-budget.js';
import { pointIndicators } from './point-indicators.js';

/** Default bytes of series kept by a store given no shared budget (≈45 fields of a 2,700 × 520 market). */
export const SERIES_BYTES = 512 * 1024 * 1024;

/** Dropped arrays kept for the next build (one build's worth: as-of-snapshot.ts asks 8 fields at a time). */
const POOL_ARRAYS = 8;

/** The fields pointIndicators gives (their values equal the full computation's). */
const POINT_FIELDS: ReadonlySet<string> = new Set([
  'close', 'market_cap', 'shares_outstanding', 'piotroski_f_score', 'altman_z',
  ...FUNDAMENTAL_FIELDS.filter((f) => !['turnover', 'market_cap', 'shares_outstanding'].includes(f)),
]);

/** Every field a series can be built for (the registry less the cross-sectional scores). */
export const SERIES_FIELDS: ReadonlySet<string> = new Set([...PRICE_FIELDS, ...FUNDAMENTAL_FIELDS]);

/** The series of one data version. */
export interface SeriesStore {
  /**
   * The dates × stocks values of `fields` (each in SERIES_FIELDS), built when missing. An array
   * the budget drops is reused by a later build: read them before awaiting anything else, or
   * use `read`.
   */
  get(fields: readonly string[], checkpoint: () => Promise<void>): Promise<Map<string, Float64Array>>;
  /** `use` called synchronously with the values of `fields`, every one of them still kept (built again when dropped meanwhile). */
  read<T>(fields: readonly string[], checkpoint: () => Promise<void>, use: (cols: ReadonlyMap<string, Float64Array>) => T): Promise<T>;
  /**
   * The stocks (indexes into history.stocks) listed on `day` whose cell the series leave NaN: a
   * halt record that day, or no bar. Their values come from `dailyValues`.
   */
  irregular(day: number): readonly number[];
  /** The daily computation's values of stock `s` on `day` for `fields` (memoised). */
  dailyValues(s: number, day: number, fields: readonly string[]): IndicatorValues;
  /** Those of `fields` neither kept nor being built: what reading them would build. */
  missing(fields: readonly string[]): string[];
  /** True when the series of `fields` together take at most half the memory budget (so reading them does not drop one another). */
  fits(fields: readonly string[]): boolean;
  /** Figures for the benchmark and logs. */
  stats(): { fields: number; bytes: number; builds: number; fallbackCells: number };
}

/** One kept field: its build (shared by every request for it), its array once built, its last use. */
interface Kept {
  built: Promise<Float64Array>;
  array?: Float64Array;
  used: number;
}

/**
 * A store over `history`, its fields counted against `budget` (a shared MemoryBudget, held under
 * the name `series`; a number: a budget of its own of that many bytes).
 */
export function createSeriesStore(history: MarketHistory, budget: MemoryBudget | number = SERIES_BYTES): SeriesStore {
  return new FieldSeries(history, typeof budget === 'number' ? createMemoryBudget(budget) : budget);
}

/**
 * The cells the series take from the daily code (halt days, days without a bar), memoised per
 * stock-day and counted against the budget under `series_daily_cells` (a backtest over every
 * date would otherwise keep one object of every field per halted stock-day for the life of the
 * data version); Map order is the order they were computed in, the drop order.
 */
class DailyCells {
  private readonly full = new Map<number, IndicatorValues>();
  private readonly points = new Map<number, IndicatorValues>();
  private readonly stamps = new Map<number, number>();
  private held = 0;

  constructor(private readonly history: MarketHistory, private readonly memory: MemoryBudget) {
    memory.hold('series_daily_cells', {
      bytes: () => this.held,
      oldest: () => this.stamps.values().next().value,
      dropOldest: () => {
        const key = this.stamps.keys().next().value;
        if (key === undefined) return;
        this.stamps.delete(key);
        for (const memo of [this.full, this.points]) {
          const v = memo.get(key);
          if (v) this.held -= cellBytes(v);
          memo.delete(key);
        }
      },
    });
  }

  get size(): number {
    return this.full.size + this.points.size;
  }

  /**
   * Stock `s` on day `d`. A field list that needs no price history takes such cells from
   * pointIndicators (tens of µs, equal values: tested), the others from the full daily
   * computation (≈1.1 ms a cell).
   */
  at(s: number, d: number, point: boolean): IndicatorValues {
    const { history } = this;
    const key = s * history.dates.length + d;
    const memo = point ? this.points : this.full;
    let v = this.full.get(key) ?? memo.get(key);
    if (!v) {
      const stock = history.stocks[s] as StockHistory;
      const index = history.index[stock.record.market];
      v = point
        ? pointIndicators(seriesAsOf(history, stock, d, 1))
        : computeStockIndicators(seriesAsOf(history, stock, d), index.length > 0 ? index : undefined, history.dates[d] ?? '');
      memo.set(key, v);
      this.held += cellBytes(v);
      this.stamps.delete(key);
      this.stamps.set(key, this.memory.stamp());
      this.memory.fit();
    }
    return v;
  }
}

const cellBytes = (v: IndicatorValues): number => 200 + 40 * Object.keys(v).length;

/** For each day, the stocks listed that day whose cell the series leave NaN (a halt record, or no bar). */
function irregularDays(history: MarketHistory): Map<number, number[]> {
  const out = new Map<number, number[]>();
  history.stocks.forEach((stock, s) => {
    const range = listedRange(history, stock);
    let p = 0;
    for (let d = range?.[0] ?? 0; range && d <= range[1]; d++) {
      while (p < stock.days.length && (stock.days[p] as number) < d) p++;
      if (stock.days[p] === d && !stock.halts.has(d)) continue;
      const list = out.get(d) ?? [];
      list.push(s);
      out.set(d, list);
    }
  });
  return out;
}

/** The series store: the fields kept (Map order is the LRU order; only built ones count and may be dropped), one build at a time. */
class FieldSeries implements SeriesStore {
  private readonly kept = new Map<string, Kept>();
  private readonly fieldBytes: number;
  private readonly cellsPerField: number;
  private builds = 0;
  private builtCount = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly free: Float64Array[] = [];
  // Index closes by day per market. Bar dates, index closes and plain copies of the bars are made
  // per stock per build and dropped after its stock: a build reads each stock once, and kept for
  // every stock they would hold ≈60 MB on 2,700 × 500 for the life of the data version, outside
  // the memory budget.
  private readonly index: Record<keyof MarketHistory['index'], Float64Array | null>;
  private readonly cells: DailyCells;
  private irregularByDay: Map<number, number[]> | undefined;

  constructor(private readonly history: MarketHistory, private readonly memory: MemoryBudget) {
    this.cellsPerField = history.dates.length * history.stocks.length;
    this.fieldBytes = this.cellsPerField * 8;
    this.index = { KOSPI: indexByDay(history, 'KOSPI'), KOSDAQ: indexByDay(history, 'KOSDAQ') };
    this.cells = new DailyCells(history, memory);
    memory.hold('series', {
      bytes: () => this.builtCount * this.fieldBytes,
      oldest: () => this.firstBuilt()?.[1].used,
      dropOldest: () => {
        const e = this.firstBuilt();
        if (!e) return;
        this.kept.delete(e[0]);
        this.builtCount--;
        // The next build writes into it instead of allocating: a dropped array would otherwise stay
        // in the process until a full collection, and a cache that drops and builds 11 MB arrays
        // all the time grows the process by its garbage, not by what it keeps.
        if (this.free.length < POOL_ARRAYS) this.free.push(e[1].array as Float64Array);
      },
    });
  }

  async get(fields: readonly string[], checkpoint: () => Promise<void>): Promise<Map<string, Float64Array>> {
    const unique = [...new Set(fields)];
    const missing = unique.filter((f) => !this.kept.has(f));
    if (missing.length > 0) this.startBuild(missing, checkpoint);
    const out = new Map<string, Float64Array>();
    for (const f of unique) {
      const e = this.kept.get(f);
      if (!e) {
        // Dropped (the budget was full) while this request waited for another field: built again.
        out.set(f, (await this.get([f], checkpoint)).get(f) as Float64Array);
        continue;
      }
      this.kept.delete(f);
      this.kept.set(f, e);
      e.used = this.memory.stamp();
      out.set(f, await e.built);
    }
    this.memory.fit();
    return out;
  }

  async read<T>(fields: readonly string[], checkpoint: () => Promise<void>, use: (cols: ReadonlyMap<string, Float64Array>) => T): Promise<T> {
    const unique = [...new Set(fields)];
    for (;;) {
      await this.get(unique, checkpoint);
      const cols = new Map<string, Float64Array>();
      for (const f of unique) {
        const array = this.kept.get(f)?.array;
        if (array) cols.set(f, array);
      }
      // Nothing awaited since the check: no build can write into these arrays before `use` returns.
      if (cols.size === unique.length) return use(cols);
    }
  }

  missing(fields: readonly string[]): string[] {
    return [...new Set(fields)].filter((f) => !this.kept.has(f));
  }

  fits(fields: readonly string[]): boolean {
    return new Set(fields).size * this.fieldBytes <= this.memory.limit / 2;
  }

  irregular(day: number): readonly number[] {
    this.irregularByDay ??= irregularDays(this.history);
    return this.irregularByDay.get(day) ?? [];
  }

  dailyValues(s: number, day: number, fields: readonly string[]): IndicatorValues {
    return this.cells.at(s, day, fields.every((f) => POINT_FIELDS.has(f)));
  }

  stats(): { fields: number; bytes: number; builds: number; fallbackCells: number } {
    return { fields: this.builtCount, bytes: this.builtCount * this.fieldBytes, builds: this.builds, fallbackCells: this.cells.size };
  }

  /** Keep `missing` as being built (one build for them all), counted once built. */
  private startBuild(missing: readonly string[], checkpoint: () => Promise<void>): void {
    this.builds++;
    const built = this.build(missing, checkpoint);
    for (const f of missing) {
      const entry: Kept = { built: built.then((m) => m.get(f) as Float64Array), used: this.memory.stamp() };
      this.kept.set(f, entry);
      entry.built.then(
        (array) => {
          if (this.kept.get(f) !== entry) return;
          entry.array = array;
          this.builtCount++;
        },
        () => this.kept.get(f) === entry && this.kept.delete(f),
      );
    }
  }

  /** Build `fields` after the builds already queued, their bytes reserved in the budget first. */
  private build(fields: readonly string[], checkpoint: () => Promise<void>): Promise<Map<string, Float64Array>> {
    const run = this.queue.then(async () => {
      const release = this.memory.reserve(fields.length * this.fieldBytes);
      try {
        const ctxOf = (s: number): Bars => {
          const stock = this.history.stocks[s] as StockHistory;
          return barContext(this.history, stock, this.index[stock.record.market]);
        };
        return await buildSeries(this.history, fields, ctxOf, checkpoint, () => this.free.pop() ?? new Float64Array(this.cellsPerField));
      } finally {
        release();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private firstBuilt(): [string, Kept] | undefined {
    for (const e of this.kept) if (e[1].array) return e;
    return undefined;
  }
}

/** One stock's bars as the kernels read them on every bar: the daily window, no halt (those days come from the daily code). */
export function barContext(history: MarketHistory, stock: StockHistory, indexByDay: Float64Array | null): Bars {
  let plain: PlainColumns | undefined;
  return {
    dates: Array.from(stock.days, (d) => history.dates[d] ?? ''),
    open: stock.open, high: stock.high, low: stock.low, close: stock.close, volume: stock.volume, value: stock.value,
    index: indexByDay ? Float64Array.from(stock.days, (d) => indexByDay[d] ?? Number.NaN) : null,
    window: WINDOW,
    today: null,
    plain: () => (plain ??= { high: Array.from(stock.high), low: Array.from(stock.low), close: Array.from(stock.close), volume: Array.from(stock.volume) }),
  };
}

/** The market's index close on each history date (NaN: none or ≤ 0); null without index data. */
function indexByDay(history: MarketHistory, market: keyof MarketHistory['index']): Float64Array | null {
  const bars = history.index[market];
  if (bars.length === 0) return null;
  const out = new Float64Array(history.dates.length).fill(Number.NaN);
  const dayOf = new Map(history.dates.map((d, i) => [d, i]));
  for (const b of bars) {
    const d = dayOf.get(b.trade_date);
    if (d !== undefined && b.close > 0) out[d] = b.close;
  }
  return out;
}

/** The date indexes a stock is listed on: one run of days (isListedOn), or null. */
function listedRange(history: MarketHistory, stock: StockHistory): [number, number] | null {
  let lo = Math.max(0, stock.firstDay);
  const hi = stock.lastDay === history.dates.length - 1 ? history.dates.length - 1 : stock.lastDay;
  while (lo <= hi && !isListedOn(history, stock, lo)) lo++;
  return stock.firstDay < 0 || lo > hi ? null : [lo, hi];
}

async function buildSeries(
  history: MarketHistory, fields: readonly string[], ctxOf: (s: number) => Bars, checkpoint: () => Promise<void>,
  alloc: () => Float64Array,
): Promise<Map<string, Float64Array>> {
  const S = history.stocks.length;
  const mats = fields.map(() => alloc().fill(Number.NaN));
  for (let s = 0; s < S; s++) {
    const stock = history.stocks[s] as StockHistory;
    const range = listedRange(history, stock);
    if (range) {
      const nb = stock.days.length;
      const bars = fields.map(() => new Float64Array(nb).fill(Number.NaN));
      const out = new Map(fields.map((f, k) => [f, bars[k] as Float64Array]));
      const ctx = ctxOf(s);
      everyBar(PRICE_KERNELS, ctx, out);
      fundamentalSeries(stock, ctx, out);
      let p = 0;
      for (let d = range[0]; d <= range[1]; d++) {
        while (p < nb && (stock.days[p] as number) < d) p++;
        // Days without a regular bar stay NaN here: the snapshot takes them from the daily code.
        if (p < nb && stock.days[p] === d && !stock.halts.has(d)) {
          const cell = d * S + s;
          for (let k = 0; k < mats.length; k++) (mats[k] as Float64Array)[cell] = (bars[k] as Float64Array)[p] as number;
        }
      }
    }
    await checkpoint();
  }
  return new Map(fields.map((f, k) => [f, mats[k] as Float64Array]));
}
