/**
 * Market data domain service: writes loader output to storage (one transaction per
 * file, however many batches it streams in, or a staged copy of the market published in one
 * short commit: nothing half-written is ever visible), derives quarters
 * from filed statements across files, computes the cap-weighted index when none was
 * loaded (a day at a time), and runs the full-market indicator computation in small
 * chunks, so the event loop is never blocked for more than a few milliseconds. The writes are in
 * market-writes.ts, the computations in market-computations.ts; this file puts them together
 * over one set of tables, in one transaction, or on a staged copy.
 */
import { autocommitDb, batchCommitDb, transactionDb, type Db } from '../store/db.js';
import { createDesignationsRepo, type DesignationsRepo } from '../store/designations-repo.js';
import { createFinancialsRepo, type FinancialsRepo } from '../store/financials-repo.js';
import { createIndexRepo, type IndexRepo } from '../store/index-repo.js';
import { createIndicatorsRepo, type IndicatorRun, type IndicatorsRepo } from '../store/indicators-repo.js';
import { clearMarket, marketContent, setMarketContent, type MarketContent } from '../store/market-meta-repo.js';
import { createMarketStage } from '../store/market-stage.js';
import { LIVE_TABLES, type MarketTableNames } from '../store/market-tables.js';
import { createPricesRepo, type PricesRepo } from '../store/prices-repo.js';
import { createStocksRepo, type StocksRepo } from '../store/stocks-repo.js';
import { computeIndicators, fillComputedIndex, type ProgressFn } from './market-computations.js';
import { createRecordWriter, type ApplyHooks, type ApplyResult, type RecordsBatch } from './market-writes.js';

/** Records to write (a loader's or the sample generator's), what a batch wrote, and the hooks of `applyAll`. */
export type { ApplyHooks, ApplyResult, RecordsBatch } from './market-writes.js';
/** Progress of a computation: (done, total). */
export type { ProgressFn } from './market-computations.js';

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

/**
 * Run `fn` with a service over a staged copy of the market (see MarketDataService.staged), then
 * publish the stage.
 */
async function staged<T>(db: Db, tables: MarketTableNames, replace: boolean, fn: (market: MarketDataService) => Promise<T>): Promise<T> {
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
}

/** Create the market data service. */
export function createMarketDataService(deps: MarketDataDeps): MarketDataService {
  const { db } = deps;
  const tables = deps.tables ?? LIVE_TABLES;
  const designations = deps.designations ?? createDesignationsRepo(db, tables);
  const writer = createRecordWriter(db, { ...deps, designations }, deps.commitPerBatch ?? false);

  return {
    apply: (batch) => writer.apply(batch),
    applyAll(open, hooks) {
      return writer.applyAll(open, hooks);
    },
    atomically(fn) {
      return db.transaction((tx) => fn(createMarketDataService(marketDataDeps(transactionDb(tx, db.label), tables))));
    },
    staged: ({ replace }, fn) => staged(db, tables, replace, fn),
    tidy: () => createMarketStage(db, tables).dropRetired(),
    content: () => marketContent(db, tables),
    stockCount: () => deps.stocks.count(),
    setContent: (content) => db.transaction((tx) => setMarketContent(tx, content, tables)),
    clear: () => db.transaction((tx) => clearMarket(tx, tables)),
    fillComputedIndex: () => fillComputedIndex(db, deps),
    computeIndicators: (onProgress) => computeIndicators(deps, onProgress),
  };
}
