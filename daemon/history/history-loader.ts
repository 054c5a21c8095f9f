/**
 * Reads the stored market into a MarketHistory (market-history.ts) without holding the daemon's
 * thread for more than a short slice at a time: the bars and the financial statements of
 * HISTORY_PAGE_STOCKS stocks per read (PricesRepo.barColumns: a few strings per stock, not an
 * object per bar; the sqlite driver turns a whole result into objects in one callback on this
 * thread, so no read is of the whole market), a turn for the event loop after each, and the
 * stocks' histories assembled in slices of FINISH_SLICE_STOCKS.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { MARKETS, type DailyBar, type DesignationRecord, type FinancialQuarter, type HaltRecord, type IndexBar, type Market, type StockRecord } from '../kernel/records.js';
import type { DesignationsRepo } from '../store/designations-repo.js';
import type { FinancialsRepo } from '../store/financials-repo.js';
import type { IndexRepo } from '../store/index-repo.js';
import type { BarColumns, PricesRepo } from '../store/prices-repo.js';
import type { StocksRepo } from '../store/stocks-repo.js';
import { disclosureDeadline } from './disclosure.js';
import type { KnownStatement, MarketHistory, StockHistory } from './market-history.js';

/** The repositories the history is read from. */
export interface HistorySources {
  stocks: Pick<StocksRepo, 'all'>;
  prices: Pick<PricesRepo, 'tradeDates' | 'barColumns' | 'allHalts'>;
  financials: Pick<FinancialsRepo, 'all'>;
  index: Pick<IndexRepo, 'series'>;
  /** Designations by day (absent: today's flags stand for every date). */
  designations?: Pick<DesignationsRepo, 'all'>;
}

/**
 * One stock's columns while reading: its first read as typed arrays (the common case, one read
 * per stock: its bars leave the collected heap at once), anything after it in growable arrays.
 */
interface Builder {
  first?: StockColumns;
  days: number[];
  cols: number[][];
}

/** Bars read so far for one stock. */
const barCount = (b: Builder | undefined): number => (b?.first?.days.length ?? 0) + (b?.days.length ?? 0);

const COLS = 8;

/**
 * Stocks whose bars and statements are read at once: ≈25,000 bars over two years, parsed in about
 * ten milliseconds. A read of the whole market's statements at once held the thread for half a
 * second while the driver made its rows, and a hundred stocks' bars for tens of milliseconds.
 */
export const HISTORY_PAGE_STOCKS = 50;

/** Stocks assembled between two turns of the event loop (statements sorted, columns cut). */
const FINISH_SLICE_STOCKS = 250;

/** Read the whole stored market. @throws the repositories' errors */
export async function loadMarketHistory(src: HistorySources, version: string): Promise<MarketHistory> {
  const [records, barDates, halts, designations] = await Promise.all([
    src.stocks.all(), src.prices.tradeDates(), src.prices.allHalts(), src.designations?.all() ?? [],
  ]);
  const builder = createHistoryBuilder(records, [...barDates, ...halts.map((h) => h.trade_date)]);
  const financials = new Map<string, FinancialQuarter[]>();
  for (let i = 0; i < records.length; i += HISTORY_PAGE_STOCKS) {
    const codes = records.slice(i, i + HISTORY_PAGE_STOCKS).map((r) => r.code);
    for (const cols of await src.prices.barColumns(codes)) builder.addColumns(cols);
    await yieldToLoop();
    for (const [code, quarters] of await src.financials.all(codes)) financials.set(code, quarters);
    await yieldToLoop();
  }
  const index = Object.fromEntries(await Promise.all(MARKETS.map(async (m) => [m, await src.index.series(m)] as const))) as Record<Market, IndexBar[]>;
  const assembly = builder.assemble(version, halts, financials, index, designations);
  for (let i = 0; i < records.length; i += FINISH_SLICE_STOCKS) {
    assembly.stocks(i, i + FINISH_SLICE_STOCKS);
    await yieldToLoop();
  }
  return assembly.history();
}

/** Assembles a MarketHistory from records: bars in date order (any number of calls), then the rest. */
export interface HistoryBuilder {
  addBars(bars: Iterable<DailyBar>): void;
  /** One stock's bars as columns, oldest first (after or instead of its addBars). */
  addColumns(cols: BarColumns): void;
  finish(
    version: string, halts: readonly HaltRecord[], financials: ReadonlyMap<string, readonly FinancialQuarter[]>,
    index: Partial<Record<Market, IndexBar[]>>, designations?: readonly DesignationRecord[],
  ): MarketHistory;
  /** The same as finish, a range of stocks at a time (the caller gives the event loop turns between them). */
  assemble(
    version: string, halts: readonly HaltRecord[], financials: ReadonlyMap<string, readonly FinancialQuarter[]>,
    index: Partial<Record<Market, IndexBar[]>>, designations?: readonly DesignationRecord[],
  ): HistoryAssembly;
}

/** A history being assembled: every stock's range once, in any order, then the history. */
export interface HistoryAssembly {
  /** Assemble the stocks at indexes [from, to) of the records. */
  stocks(from: number, to: number): void;
  /** The history. @throws Error when a stock was not assembled */
  history(): MarketHistory;
}

/** A history builder over `records`; `dates` are every date that has a bar or a halt (any order, repeats allowed). */
export function createHistoryBuilder(records: readonly StockRecord[], dates: Iterable<string>): HistoryBuilder {
  const allDates = [...new Set(dates)].sort();
  const dayOf = new Map(allDates.map((d, i) => [d, i]));
  const builders = new Map<string, Builder>(records.map((r) => [r.code, { days: [], cols: Array.from({ length: COLS }, () => []) }]));
  return {
    addBars(bars) {
      for (const b of bars) {
        const builder = builders.get(b.stock_code);
        const day = dayOf.get(b.trade_date);
        if (!builder || day === undefined) continue;
        builder.days.push(day);
        const values = [b.open_price, b.high_price, b.low_price, b.close_price, b.volume, b.trading_value, b.market_cap ?? Number.NaN, b.shares_outstanding ?? Number.NaN];
        values.forEach((v, k) => builder.cols[k]?.push(v));
      }
    },
    addColumns(c) {
      const builder = builders.get(c.stock_code);
      if (!builder) return;
      const sources = [c.open, c.high, c.low, c.close, c.volume, c.value, c.cap, c.shares];
      if (barCount(builder) === 0) {
        builder.first = typedColumns(c.dates.map((d) => dayOf.get(d) ?? -1), sources);
        return;
      }
      c.dates.forEach((date, i) => {
        const day = dayOf.get(date);
        if (day === undefined) return;
        builder.days.push(day);
        sources.forEach((col, k) => builder.cols[k]?.push(col[i] ?? Number.NaN));
      });
    },
    finish(...args) {
      const assembly = assembleHistory({ records, builders, allDates, dayOf }, ...args);
      assembly.stocks(0, records.length);
      return assembly.history();
    },
    assemble: (...args) => assembleHistory({ records, builders, allDates, dayOf }, ...args),
  };
}

/** What the builder read, to assemble from. */
interface BuilderState {
  records: readonly StockRecord[];
  builders: ReadonlyMap<string, Builder>;
  allDates: string[];
  dayOf: ReadonlyMap<string, number>;
}

function assembleHistory(
  { records, builders, allDates, dayOf }: BuilderState, ...[version, halts, financials, index, designations = []]: Parameters<HistoryBuilder['assemble']>
): HistoryAssembly {
  const haltsOf = groupHalts(halts, dayOf);
  const designationsOf = new Map<string, DesignationRecord[]>();
  for (const d of designations) {
    const list = designationsOf.get(d.stock_code);
    if (list) list.push(d);
    else designationsOf.set(d.stock_code, [d]);
  }
  const columns = sharedColumns(records.map((r) => builders.get(r.code)));
  const stocks: (StockHistory | undefined)[] = records.map(() => undefined);
  let assembled = 0;
  return {
    stocks(from, to) {
      for (let i = from; i < Math.min(to, records.length); i++) {
        const r = records[i] as StockRecord;
        if (stocks[i] === undefined) assembled++;
        stocks[i] = finish(r, columns(i), haltsOf.get(r.code), financials.get(r.code) ?? [], designationsOf.get(r.code) ?? []);
      }
    },
    history() {
      if (assembled !== records.length) throw new Error('history assembly: a stock was not assembled');
      const all = stocks as StockHistory[];
      const series = { KOSPI: index.KOSPI ?? [], KOSDAQ: index.KOSDAQ ?? [] };
      return { version, dates: allDates, stocks: all, byCode: new Map(all.map((s) => [s.record.code, s])), index: series };
    },
  };
}

function groupHalts(halts: readonly HaltRecord[], dayOf: ReadonlyMap<string, number>): Map<string, Map<number, HaltRecord>> {
  const out = new Map<string, Map<number, HaltRecord>>();
  for (const h of halts) {
    let list = out.get(h.stock_code);
    if (!list) out.set(h.stock_code, (list = new Map()));
    list.set(dayOf.get(h.trade_date) ?? 0, h);
  }
  return out;
}

/** One stock's bar columns: its dates (indexes into the history's dates) and the COLS value columns. */
interface StockColumns {
  days: Int32Array;
  cols: Float64Array[];
}

/** The bars of `days` (-1: a date not in the history, left out) as typed columns. */
function typedColumns(days: readonly number[], sources: readonly (readonly (number | null)[])[]): StockColumns {
  const keep = days.reduce((n, d) => n + (d >= 0 ? 1 : 0), 0);
  const out: StockColumns = { days: new Int32Array(keep), cols: Array.from({ length: COLS }, () => new Float64Array(keep)) };
  let j = 0;
  days.forEach((d, i) => {
    if (d < 0) return;
    out.days[j] = d;
    out.cols.forEach((col, k) => (col[j] = sources[k]?.[i] ?? Number.NaN));
    j++;
  });
  return out;
}

/**
 * Every stock's bars in one shared buffer per column, each stock a view of its stretch: the as-of
 * thread (as-of-thread.ts) reads the same bytes the daemon's thread does instead of a copy of
 * the market (≈95 MB on a full one), and a column is one allocation instead of one per stock.
 */
function sharedColumns(builders: readonly (Builder | undefined)[]): (i: number) => StockColumns {
  const total = builders.reduce((n, b) => n + barCount(b), 0);
  const days = new Int32Array(new SharedArrayBuffer(total * Int32Array.BYTES_PER_ELEMENT));
  const cols = Array.from({ length: COLS }, () => new Float64Array(new SharedArrayBuffer(total * Float64Array.BYTES_PER_ELEMENT)));
  const starts: number[] = [];
  let at = 0;
  for (const b of builders) {
    starts.push(at);
    if (!b) continue;
    if (b.first) {
      const first = b.first;
      days.set(first.days, at);
      cols.forEach((c, k) => c.set(first.cols[k] as Float64Array, at));
      at += first.days.length;
    }
    days.set(b.days, at);
    cols.forEach((c, k) => c.set(b.cols[k] ?? [], at));
    at += b.days.length;
  }
  return (i) => {
    const from = starts[i] ?? 0;
    const to = from + barCount(builders[i]);
    return { days: days.subarray(from, to), cols: cols.map((c) => c.subarray(from, to)) };
  };
}

function finish(
  record: StockRecord, columns: StockColumns, halts: Map<number, HaltRecord> | undefined,
  quarters: readonly FinancialQuarter[], designations: readonly DesignationRecord[],
): StockHistory {
  const col = (k: number) => columns.cols[k] as Float64Array;
  const days = columns.days;
  const haltDays = [...(halts?.keys() ?? [])];
  const first = Math.min(days[0] ?? Infinity, ...haltDays);
  const last = Math.max(days[days.length - 1] ?? -1, ...haltDays);
  const statements: KnownStatement[] = quarters
    .map((q) => ({ known_on: q.disclosed_on ?? disclosureDeadline(q.fiscal_year, q.fiscal_quarter, record.settle_month), quarter: q }))
    .sort((a, b) => (a.known_on < b.known_on ? -1 : a.known_on > b.known_on ? 1 : 0));
  return {
    record, days, open: col(0), high: col(1), low: col(2), close: col(3), volume: col(4), value: col(5), cap: col(6), shares: col(7),
    halts: halts ?? new Map(), statements, designations: [...designations].sort((a, b) => (a.trade_date < b.trade_date ? -1 : 1)), firstDay: Number.isFinite(first) ? first : -1, lastDay: last,
  };
}
