/**
 * Market data domain service: writes loader output to storage (one transaction per
 * file, however many batches it streams in, or a staged copy of the market published in one
 * short commit: nothing half-written is ever visible), derives quarters
 * from filed statements across files, computes the cap-weighted index when none was
 * loaded (a day at a time), and runs the full-market indicator computation in small
 * chunks, so the event loop is never blocked for more than a few milliseconds.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { applyCrossSectionalScoresAsync, computeStockIndicators, type StockSeries } from '../indicators/compute.js';
import type { IndicatorValues } from '../indicators/registry.js';
import { autocommitDb, batchCommitDb, transactionDb, type Db, type Queryable } from '../store/db.js';
import { createDesignationsRepo, type DesignationsRepo } from '../store/designations-repo.js';
import { createFinancialsRepo, type FinancialsRepo } from '../store/financials-repo.js';
import { createIndexRepo, type IndexRepo } from '../store/index-repo.js';
import { createIndicatorsRepo, type IndicatorRun, type IndicatorsRepo } from '../store/indicators-repo.js';
import { clearMarket, marketContent, setMarketContent, type MarketContent } from '../store/market-meta-repo.js';
import { createMarketStage } from '../store/market-stage.js';
import { LIVE_TABLES, type MarketTableNames } from '../store/market-tables.js';
import { createPricesRepo, type PricesRepo } from '../store/prices-repo.js';
import { createStocksRepo, type StocksRepo, type StockUpdate } from '../store/stocks-repo.js';
import { createWritePace, type WritePace } from '../store/write-pace.js';
import { createCapWeightedIndexBuilder } from './cap-weighted-index.js';
import { deriveQuarters, reportYears, type ReportedAmount } from '../kernel/financial-reports.js';
import { MARKETS, type DailyBar, type DesignationRecord, type FinancialQuarter, type HaltRecord, type IndexBar, type Market } from '../kernel/records.js';

/** Records to write, as produced by a loader or the sample generator. */
export interface RecordsBatch {
  stocks: readonly StockUpdate[];
  bars: readonly DailyBar[];
  halts: readonly HaltRecord[];
  financials: readonly FinancialQuarter[];
  index: readonly IndexBar[];
  /** Designations stated by dated files (as-of screens read them). */
  designations?: readonly DesignationRecord[];
  /**
   * Statement amounts as filed (dart-json). The quarters of every (stock, year) they
   * touch are derived again from these plus the amounts and quarters already stored,
   * and replace `financials` of those years.
   */
  financial_reports?: readonly ReportedAmount[];
}

/** What one batch wrote. */
export interface ApplyResult {
  stocks: number;
  bars: number;
  halts: number;
  financials: number;
  index: number;
  /** Codes with no stock record (not listed, and no name/market to add them): their records were not written. */
  unknown_codes: string[];
}

/** Callbacks of `applyAll`, run inside its transaction. */
export interface ApplyHooks<B> {
  /** After each batch is written (not committed yet). */
  onBatch?(batch: B, written: ApplyResult): void | Promise<void>;
  /** After the last batch, before the commit: throw to roll the whole source back. */
  beforeCommit?(): void | Promise<void>;
}

/** Collaborators of the service. */
export interface MarketDataDeps {
  db: Db;
  stocks: StocksRepo;
  prices: PricesRepo;
  financials: FinancialsRepo;
  index: IndexRepo;
  indicators: IndicatorsRepo;
  /** Defaults to the repository over `db`. */
  designations?: DesignationsRepo;
  /** The tables the repositories work on (default: the live ones). */
  tables?: MarketTableNames;
  /**
   * `apply` and `applyAll` commit each batch on its own instead of the whole source at once (on
   * sqlite in pieces of about PIECE_TARGET_MS each): for a staged market, where nothing is visible
   * before the stage is published anyway.
   */
  commitPerBatch?: boolean;
}

/** Progress of a computation: (done, total). */
export type ProgressFn = (done: number, total: number) => void | Promise<void>;

/** History the indicators need: 252 trading days for 12-month figures plus slack. */
const HISTORY_DAYS = 300;
/**
 * Bars per read during the computation. The sqlite driver turns a whole result into JS
 * objects in one callback on the main thread (~5 µs a row: 25 stocks × 260 days held the
 * event loop ~30 ms), so a read covers as many stocks as fit ~750 bars of history.
 */
const BARS_PER_READ = 750;
/** Most stocks per read (bounds the financial rows read alongside). */
const MAX_STOCKS_PER_READ = 50;
/** Longest stretch of indicator computation (ms) before the event loop gets a turn. */
const SLICE_MS = 4;
/** Least time between two progress reports (each is a Redis write for a job). */
const PROGRESS_MS = 250;
/** Bars of the first piece of a staged load on sqlite (then sized by time, see write-pace.ts). */
const PIECE_INITIAL_ROWS = 2_000;
/** Bounds of a piece: at least some progress per commit, and no more than one bulk statement. */
const PIECE_MIN_ROWS = 200;
const PIECE_MAX_ROWS = 50_000;

/** A batch with nothing in it (the pieces after a batch's first carry only bars, the last its halts). */
const NO_RECORDS: RecordsBatch = { stocks: [], bars: [], halts: [], financials: [], index: [] };

/** Market data service. */
export interface MarketDataService {
  /**
   * Write one batch in one transaction (all or nothing); in a staged service on sqlite, in
   * transactions of about PIECE_TARGET_MS each (nothing of the stage is visible before it is published).
   */
  apply(batch: RecordsBatch): Promise<ApplyResult>;
  /**
   * Write every batch of a source (one file, streamed) in one transaction: all or
   * nothing, also when a hook throws or the process dies half-way. `open` is called
   * once per attempt (PostgreSQL may run a transaction again after a serialisation
   * failure), so it must start the source afresh, and hooks see every batch again.
   * @throws whatever the source or a hook throws (after rolling back)
   */
  applyAll<B extends RecordsBatch>(open: () => AsyncIterable<B> | Iterable<B>, hooks?: ApplyHooks<B>): Promise<void>;
  /** Recompute every stock's indicators and record a new snapshot version. */
  computeIndicators(onProgress?: ProgressFn): Promise<IndicatorRun>;
  /** Fill the index series of markets with no loaded index from their constituents (read a day at a time). */
  fillComputedIndex(): Promise<number>;
  /**
   * Run `fn` with a service whose every read and write (nested `apply`/`applyAll`, the
   * indicator run) belongs to one transaction: its rows become visible together at the
   * commit, or never (a throw, or the process killed at any point). It holds the database's
   * writer throughout: loads use `staged` instead.
   */
  atomically<T>(fn: (market: MarketDataService) => Promise<T>): Promise<T>;
  /**
   * Run `fn` with a service over a staged copy of the market (empty with `replace`), each of its
   * statements committing on its own so the database's writer is never held for long, then
   * make the stage the live market in one short transaction (daemon/store/market-stage.ts).
   * Readers see the old market until then and the whole new one after; a throw or the process
   * killed before it changes nothing they see. The replaced tables are left for `tidy`.
   * @throws whatever `fn` throws (nothing published), or when another run took the stage over
   */
  staged<T>(options: { replace: boolean }, fn: (market: MarketDataService) => Promise<T>): Promise<T>;
  /** Drop what an earlier `staged` run replaced or left behind (short statements). */
  tidy(): Promise<void>;
  /** What the market tables hold (the sample market, real files, nothing). */
  content(): Promise<MarketContent>;
  /** How many stocks are stored. */
  stockCount(): Promise<number>;
  /** Record what the market tables hold. */
  setContent(content: Exclude<MarketContent, 'empty'>): Promise<void>;
  /** Remove the whole market (meant for `atomically`, with the load that replaces it). */
  clear(): Promise<void>;
}

/** The repositories of the market over `db` (on the tables `t`, by default the live ones). */
export function marketDataDeps(db: Db, t: MarketTableNames = LIVE_TABLES): MarketDataDeps {
  return {
    db, stocks: createStocksRepo(db, t), prices: createPricesRepo(db, t), financials: createFinancialsRepo(db, t),
    index: createIndexRepo(db, t), indicators: createIndicatorsRepo(db, t), designations: createDesignationsRepo(db, t), tables: t,
  };
}

/** Create the market data service. */
export function createMarketDataService(deps: MarketDataDeps): MarketDataService {
  const { db } = deps;
  const tables = deps.tables ?? LIVE_TABLES;
  const designations = deps.designations ?? createDesignationsRepo(db, tables);
  // sqlite has one writer: a staged load writes each batch in pieces short enough that other
  // writes queue behind one piece at most. PostgreSQL's writers do not wait for each other.
  const pace: WritePace | null = deps.commitPerBatch && db.dialect.name === 'sqlite'
    ? createWritePace({ initial: PIECE_INITIAL_ROWS, min: PIECE_MIN_ROWS, max: PIECE_MAX_ROWS })
    : null;

  /** Quarters of the (stock, year)s that filed amounts touch, derived with what is stored. */
  async function derivedFinancials(tx: Queryable, reports: readonly ReportedAmount[]): Promise<{ years: Set<string>; quarters: FinancialQuarter[] }> {
    const years = reportYears(reports);
    const key = (a: ReportedAmount) => `${a.stock_code}|${a.fiscal_year}|${a.fiscal_quarter}|${a.field}`;
    const merged = new Map((await deps.financials.reportsOf(tx, years)).map((a) => [key(a), a]));
    for (const a of reports) merged.set(key(a), a);
    const stored = await deps.financials.quartersOf(tx, years);
    await deps.financials.upsertReports(tx, reports);
    return { years, quarters: deriveQuarters([...merged.values()], stored) };
  }

  async function write(tx: Queryable, batch: RecordsBatch): Promise<ApplyResult> {
    const merged = await deps.stocks.merge(tx, batch.stocks);
    const { known } = merged;
    const unknown = new Set(merged.unknown);
    const keep = <T extends { stock_code: string }>(rows: readonly T[]) =>
      rows.filter((r) => known.has(r.stock_code) || (unknown.add(r.stock_code), false));
    const bars = keep(batch.bars);
    const halts = keep(batch.halts);
    let financials = keep(batch.financials);
    const reports = keep(batch.financial_reports ?? []);
    if (reports.length > 0) {
      const derived = await derivedFinancials(tx, reports);
      // A quarter derived again keeps the disclosure date its source gave (OpenDART's receipt date):
      // as-of screens use a statement only from then on. Without one, the stored date stands.
      const disclosed = new Map(financials.filter((f) => f.disclosed_on).map((f) => [`${f.stock_code}|${f.fiscal_year}|${f.fiscal_quarter}`, f.disclosed_on]));
      const dated = derived.quarters.map((q) => {
        const on = disclosed.get(`${q.stock_code}|${q.fiscal_year}|${q.fiscal_quarter}`);
        return on ? { ...q, disclosed_on: on } : q;
      });
      financials = [...financials.filter((f) => !derived.years.has(`${f.stock_code}|${f.fiscal_year}`)), ...dated];
    }
    await designations.upsert(tx, keep(batch.designations ?? []));
    return {
      stocks: merged.written,
      bars: await deps.prices.upsertBars(tx, bars),
      halts: await deps.prices.upsertHalts(tx, halts),
      financials: await deps.financials.upsert(tx, financials),
      index: await deps.index.upsert(tx, batch.index),
      unknown_codes: [...unknown].sort(),
    };
  }

  /**
   * One batch in short transactions: the first piece writes the stocks and every record but bars
   * and halts with the first bars, the next ones the bars that follow, the last also the halts
   * (after every bar, as in one transaction: a halt on a day with a bar is not written).
   */
  async function writePaced(batch: RecordsBatch, by: WritePace): Promise<ApplyResult> {
    const total: ApplyResult = { stocks: 0, bars: 0, halts: 0, financials: 0, index: 0, unknown_codes: [] };
    const unknown = new Set<string>();
    for (let from = 0, first = true; first || from < batch.bars.length; first = false) {
      const bars = batch.bars.slice(from, from + by.size());
      from += bars.length;
      const halts = from >= batch.bars.length ? batch.halts : [];
      const piece: RecordsBatch = first ? { ...batch, bars, halts } : { ...NO_RECORDS, bars, halts };
      let began = 0;
      const written = await db.transaction((tx) => ((began = performance.now()), write(tx, piece)));
      by.took(piece.stocks.length + bars.length + halts.length + piece.financials.length + piece.index.length, performance.now() - began);
      for (const k of ['stocks', 'bars', 'halts', 'financials', 'index'] as const) total[k] += written[k];
      for (const code of written.unknown_codes) unknown.add(code);
    }
    total.unknown_codes = [...unknown].sort();
    return total;
  }

  /** One batch committed on its own: paced on sqlite, in one transaction elsewhere. */
  const commitBatch = (batch: RecordsBatch) => (pace ? writePaced(batch, pace) : db.transaction((tx) => write(tx, batch)));

  return {
    apply(batch) {
      return commitBatch(batch);
    },

    atomically(fn) {
      return db.transaction((tx) => fn(createMarketDataService(marketDataDeps(transactionDb(tx, db.label), tables))));
    },
    async staged({ replace }, fn) {
      const stage = createMarketStage(db, tables);
      await stage.prepare({ copy: !replace });
      // One short transaction per batch; the indicator values (a few MB of JSON) statement by statement.
      const stagedDeps = marketDataDeps(batchCommitDb(db), stage.tables);
      const indicators = createIndicatorsRepo(autocommitDb(db), stage.tables);
      const market = createMarketDataService({ ...stagedDeps, indicators, commitPerBatch: true });
      // The computations read the stage by date: its secondary indexes first (built after the rows).
      const result = await fn({
        ...market,
        fillComputedIndex: async () => (await stage.buildIndexes(), market.fillComputedIndex()),
        computeIndicators: async (onProgress) => (await stage.buildIndexes(), market.computeIndicators(onProgress)),
      });
      await stage.publish();
      return result;
    },
    tidy: () => createMarketStage(db, tables).dropRetired(),
    content: () => marketContent(db, tables),
    stockCount: () => deps.stocks.count(),
    setContent: (content) => db.transaction((tx) => setMarketContent(tx, content, tables)),
    clear: () => db.transaction((tx) => clearMarket(tx, tables)),

    async applyAll(open, hooks = {}) {
      if (deps.commitPerBatch) {
        for await (const batch of open()) {
          const written = await commitBatch(batch);
          await hooks.onBatch?.(batch, written);
        }
        await hooks.beforeCommit?.();
        return;
      }
      return db.transaction(async (tx) => {
        for await (const batch of open()) {
          const written = await write(tx, batch);
          await hooks.onBatch?.(batch, written);
        }
        await hooks.beforeCommit?.();
      });
    },

    async fillComputedIndex() {
      const markets: Market[] = [];
      for (const market of MARKETS) if ((await deps.index.loadedDays(market)) === 0) markets.push(market);
      if (markets.length === 0) return 0;
      const stocks = await deps.stocks.all();
      const runs = markets.map((market) => ({ builder: createCapWeightedIndexBuilder(market, stocks), series: [] as IndexBar[] }));
      // One day of a full market (~2,700 bars) per read, then a turn for the event loop:
      // reading every bar at once would hold it for seconds on a full history.
      for (const date of await deps.prices.tradeDates()) {
        const bars = await deps.prices.barsOn(date);
        for (const run of runs) {
          const bar = run.builder.addDay(date, bars);
          if (bar) run.series.push(bar);
        }
        await yieldToLoop();
      }
      let written = 0;
      for (const run of runs) written += await db.transaction((tx) => deps.index.upsert(tx, run.series, true));
      return written;
    },

    async computeIndicators(onProgress) {
      const started = Date.now();
      const [stocks, halts, latest, from] = await Promise.all([
        deps.stocks.all(),
        deps.prices.latestHalts(),
        deps.prices.latestDate(),
        deps.prices.nthLatestDate(HISTORY_DAYS),
      ]);
      const asOf = maxDate(latest, ...[...halts.values()].map((h) => h.trade_date));
      const index = Object.fromEntries(await Promise.all(MARKETS.map(async (m) => [m, await deps.index.series(m)] as const)));
      const out = new Map<string, IndicatorValues>();
      // Read a few stocks at a time and compute under a time budget: no single step holds
      // the event loop for more than a few milliseconds. Stocks per read: sized from
      // the longest history a stock can have, then from what the reads return (a market with
      // 10 days of history reads many stocks at a time).
      let group = Math.max(1, Math.floor(BARS_PER_READ / HISTORY_DAYS));
      let reportedAt = -Infinity;
      for (let i = 0; i < stocks.length; ) {
        const chunk = stocks.slice(i, i + group);
        i += chunk.length;
        const codes = chunk.map((s) => s.code);
        const [rows, financials] = await Promise.all([deps.prices.barsFor(codes, from ?? ''), deps.financials.all(codes)]);
        const bars = groupBy(rows);
        group = Math.min(MAX_STOCKS_PER_READ, Math.max(1, Math.floor(BARS_PER_READ / Math.max(1, rows.length / chunk.length))));
        let sliceStart = performance.now();
        for (const s of chunk) {
          const halt = halts.get(s.code);
          const series: StockSeries = {
            code: s.code,
            market: s.market,
            bars: bars.get(s.code) ?? [],
            financials: financials.get(s.code) ?? [],
            shares_outstanding: halt?.shares_outstanding ?? s.shares_outstanding,
            last_close: halt?.last_close ?? null,
            market_cap: halt?.market_cap ?? null,
            halted: halt !== undefined && halt.trade_date === asOf,
          };
          out.set(s.code, computeStockIndicators(series, index[s.market], asOf ?? '9999-12-31'));
          if (performance.now() - sliceStart >= SLICE_MS) {
            await yieldToLoop();
            sliceStart = performance.now();
          }
        }
        if (onProgress && (i === stocks.length || performance.now() - reportedAt >= PROGRESS_MS)) {
          reportedAt = performance.now();
          await onProgress(i, stocks.length);
        }
      }
      await applyCrossSectionalScoresAsync(out.values(), yieldToLoop);
      const run: IndicatorRun = {
        version: `${asOf ?? 'none'}:${randomUUID().slice(0, 8)}`,
        as_of: asOf,
        stocks: out.size,
        duration_ms: Date.now() - started,
        computed_at: new Date().toISOString(),
      };
      await deps.indicators.replaceAll(out, run);
      return run;
    },
  };
}

function maxDate(...dates: (string | null)[]): string | null {
  let max: string | null = null;
  for (const d of dates) if (d && (!max || d > max)) max = d;
  return max;
}

function groupBy(bars: DailyBar[]): Map<string, DailyBar[]> {
  const out = new Map<string, DailyBar[]>();
  for (const b of bars) {
    let list = out.get(b.stock_code);
    if (!list) out.set(b.stock_code, (list = []));
    list.push(b);
  }
  return out;
}
