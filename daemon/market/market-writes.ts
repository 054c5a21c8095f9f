/**
 * How records reach the market tables: one batch written inside a transaction (its stocks merged
 * first, records of codes with no stock left out, filed statement amounts turned into quarters),
 * and a source's batches committed together or, for a staged market, each on its own — on sqlite
 * in short pieces sized by time, so other writes queue behind one piece at most.
 */
import type { Db, Queryable } from '../store/db.js';
import type { DesignationsRepo } from '../store/designations-repo.js';
import type { FinancialsRepo } from '../store/financials-repo.js';
import type { IndexRepo } from '../store/index-repo.js';
import type { PricesRepo } from '../store/prices-repo.js';
import type { StocksRepo, StockUpdate } from '../store/stocks-repo.js';
import { createWritePace, type WritePace } from '../store/write-pace.js';
import { deriveQuarters, reportYears, type ReportedAmount } from '../kernel/financial-reports.js';
import type { DailyBar, DesignationRecord, FinancialQuarter, HaltRecord, IndexBar } from '../kernel/records.js';

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

/** The repositories a write goes through. */
export interface MarketWriteRepos {
  stocks: StocksRepo;
  prices: PricesRepo;
  financials: FinancialsRepo;
  index: IndexRepo;
  designations: DesignationsRepo;
}

/** Writes batches of records (the service's `apply` and `applyAll`). */
export interface RecordWriter {
  apply(batch: RecordsBatch): Promise<ApplyResult>;
  applyAll<B extends RecordsBatch>(open: () => AsyncIterable<B> | Iterable<B>, hooks?: ApplyHooks<B>): Promise<void>;
}

/** Bars of the first piece of a staged load on sqlite (then sized by time, see write-pace.ts). */
const PIECE_INITIAL_ROWS = 2_000;
/** Bounds of a piece: at least some progress per commit, and no more than one bulk statement. */
const PIECE_MIN_ROWS = 200;
const PIECE_MAX_ROWS = 50_000;

/** A batch with nothing in it (the pieces after a batch's first carry only bars, the last its halts). */
const NO_RECORDS: RecordsBatch = { stocks: [], bars: [], halts: [], financials: [], index: [] };

/** Quarters of the (stock, year)s that filed amounts touch, derived with what is stored. */
async function derivedFinancials(tx: Queryable, repo: FinancialsRepo, reports: readonly ReportedAmount[]): Promise<{ years: Set<string>; quarters: FinancialQuarter[] }> {
  const years = reportYears(reports);
  const key = (a: ReportedAmount) => `${a.stock_code}|${a.fiscal_year}|${a.fiscal_quarter}|${a.field}`;
  const merged = new Map((await repo.reportsOf(tx, years)).map((a) => [key(a), a]));
  for (const a of reports) merged.set(key(a), a);
  const stored = await repo.quartersOf(tx, years);
  await repo.upsertReports(tx, reports);
  return { years, quarters: deriveQuarters([...merged.values()], stored) };
}

/** `financials` with the years that filed amounts touch replaced by the quarters derived again. */
async function withDerivedQuarters(tx: Queryable, repo: FinancialsRepo, financials: FinancialQuarter[], reports: readonly ReportedAmount[]): Promise<FinancialQuarter[]> {
  const derived = await derivedFinancials(tx, repo, reports);
  // A quarter derived again keeps the disclosure date its source gave (OpenDART's receipt date):
  // as-of screens use a statement only from then on. Without one, the stored date stands.
  const disclosed = new Map(financials.filter((f) => f.disclosed_on).map((f) => [`${f.stock_code}|${f.fiscal_year}|${f.fiscal_quarter}`, f.disclosed_on]));
  const dated = derived.quarters.map((q) => {
    const on = disclosed.get(`${q.stock_code}|${q.fiscal_year}|${q.fiscal_quarter}`);
    return on ? { ...q, disclosed_on: on } : q;
  });
  return [...financials.filter((f) => !derived.years.has(`${f.stock_code}|${f.fiscal_year}`)), ...dated];
}

/** Write one batch in the transaction `tx`. */
export async function writeRecords(repos: MarketWriteRepos, tx: Queryable, batch: RecordsBatch): Promise<ApplyResult> {
  const merged = await repos.stocks.merge(tx, batch.stocks);
  const { known } = merged;
  const unknown = new Set(merged.unknown);
  const keep = <T extends { stock_code: string }>(rows: readonly T[]) =>
    rows.filter((r) => known.has(r.stock_code) || (unknown.add(r.stock_code), false));
  const bars = keep(batch.bars);
  const halts = keep(batch.halts);
  let financials = keep(batch.financials);
  const reports = keep(batch.financial_reports ?? []);
  if (reports.length > 0) financials = await withDerivedQuarters(tx, repos.financials, financials, reports);
  await repos.designations.upsert(tx, keep(batch.designations ?? []));
  return {
    stocks: merged.written,
    bars: await repos.prices.upsertBars(tx, bars),
    halts: await repos.prices.upsertHalts(tx, halts),
    financials: await repos.financials.upsert(tx, financials),
    index: await repos.index.upsert(tx, batch.index),
    unknown_codes: [...unknown].sort(),
  };
}

/**
 * One batch in short transactions: the first piece writes the stocks and every record but bars
 * and halts with the first bars, the next ones the bars that follow, the last also the halts
 * (after every bar, as in one transaction: a halt on a day with a bar is not written).
 */
async function writePaced(db: Db, repos: MarketWriteRepos, batch: RecordsBatch, by: WritePace): Promise<ApplyResult> {
  const total: ApplyResult = { stocks: 0, bars: 0, halts: 0, financials: 0, index: 0, unknown_codes: [] };
  const unknown = new Set<string>();
  for (let from = 0, first = true; first || from < batch.bars.length; first = false) {
    const bars = batch.bars.slice(from, from + by.size());
    from += bars.length;
    const halts = from >= batch.bars.length ? batch.halts : [];
    const piece: RecordsBatch = first ? { ...batch, bars, halts } : { ...NO_RECORDS, bars, halts };
    let began = 0;
    const written = await db.transaction((tx) => ((began = performance.now()), writeRecords(repos, tx, piece)));
    by.took(piece.stocks.length + bars.length + halts.length + piece.financials.length + piece.index.length, performance.now() - began);
    for (const k of ['stocks', 'bars', 'halts', 'financials', 'index'] as const) total[k] += written[k];
    for (const code of written.unknown_codes) unknown.add(code);
  }
  total.unknown_codes = [...unknown].sort();
  return total;
}

/**
 * The writer of a service over `db`. `commitPerBatch`: each batch commits on its own (a staged
 * market, where nothing is visible before the stage is published anyway).
 */
export function createRecordWriter(db: Db, repos: MarketWriteRepos, commitPerBatch: boolean): RecordWriter {
  // sqlite has one writer: a staged load writes each batch in pieces short enough that other
  // writes queue behind one piece at most. PostgreSQL's writers do not wait for each other.
  const pace: WritePace | null = commitPerBatch && db.dialect.name === 'sqlite'
    ? createWritePace({ initial: PIECE_INITIAL_ROWS, min: PIECE_MIN_ROWS, max: PIECE_MAX_ROWS })
    : null;
  /** One batch committed on its own: paced on sqlite, in one transaction elsewhere. */
  const commitBatch = (batch: RecordsBatch) => (pace ? writePaced(db, repos, batch, pace) : db.transaction((tx) => writeRecords(repos, tx, batch)));

  return {
    apply: commitBatch,
    async applyAll(open, hooks = {}) {
      if (commitPerBatch) {
        for await (const batch of open()) {
          const written = await commitBatch(batch);
          await hooks.onBatch?.(batch, written);
        }
        await hooks.beforeCommit?.();
        return;
      }
      return db.transaction(async (tx) => {
        for await (const batch of open()) {
          const written = await writeRecords(repos, tx, batch);
          await hooks.onBatch?.(batch, written);
        }
        await hooks.beforeCommit?.();
      });
    },
  };
}
