/**
 * Types shared by every market-data loader: the partial stock update, the
 * per-file load result and the loader contract. See loaders/README.md.
 */
import type { ReportedAmount } from '../daemon/kernel/financial-reports.js';
import type { LoaderFormat } from '../daemon/kernel/loader-formats.js';
import type { DailyBar, DesignationRecord, FinancialQuarter, HaltRecord, IndexBar, Market, StockRecord } from '../daemon/kernel/records.js';

/**
 * A partial update of one stock: `code` plus only the fields the source file
 * actually carries. A merge must overwrite exactly the present keys and keep
 * the stored value of every absent key. A blank cell in a file is "unknown",
 * not "clear it": loaders omit the key rather than sending null. When a merge
 * inserts a new stock, absent fields take their defaults (null, flags false).
 */
export type StockUpdate = { code: string } & Partial<Omit<StockRecord, 'code'>>;

/** A data row that failed validation (line is 1-based; the header is line 1). */
export interface RejectedRow {
  file: string;
  line: number;
  reason: string;
}

/** Rows deliberately left out (not errors), counted by reason, e.g. KONEX issues. */
export interface SkippedCount {
  reason: string;
  count: number;
}

/** Records of any kind, as produced by a loader or by the sample-market generator. */
export interface MarketRecords {
  stocks: StockUpdate[];
  bars: DailyBar[];
  halts: HaltRecord[];
  financials: FinancialQuarter[];
  index: IndexBar[];
  /** Designations stated by dated all-issue files (krx-quotes, fdr-listing), one per issue and day. */
  designations?: DesignationRecord[];
}

/** The identifiers of the supported file formats (kept in the kernel: a load request names one on the wire). */
export { LOADER_FORMATS, type LoaderFormat } from '../daemon/kernel/loader-formats.js';

/**
 * The source line of each record (1-based, as in `rejected`), index-aligned with
 * the record arrays, so a record refused later (e.g. for a stock code that is not
 * listed) can be reported against its line. Records derived from several rows
 * (dart-json quarters) carry the line of their first row.
 */
export interface RecordLines {
  stocks: number[];
  bars: number[];
  halts: number[];
  financials: number[];
  financial_reports: number[];
}

/**
 * What one file (or one streamed chunk of a file) yielded.
 * rows_total = rows_ok + rejected.length + Σ skipped.count for data rows.
 */
export interface LoadResult extends MarketRecords {
  format: LoaderFormat;
  file: string;
  /** Statement amounts as filed (dart-json only): storage derives quarters across files from them. */
  financial_reports: ReportedAmount[];
  rejected: RejectedRow[];
  skipped: SkippedCount[];
  rows_total: number;
  rows_ok: number;
  lines: RecordLines;
}

/** Options a caller may pass to override what a loader would infer from the file. */
export interface LoadOptions {
  /** Trade date for single-day quote files (default: from the file name). */
  tradeDate?: string;
  /** Stock code for per-stock files (ohlcv, dart-json; default: from the file name). */
  code?: string;
  /** Market for index files (default: from the folder or file name). */
  market?: Market;
  /** Fraction of bad rows above which the whole file is refused (default 0.05). */
  maxBadRatio?: number;
}

/** The contract every format module implements. */
export interface Loader {
  format: LoaderFormat;
  /** One line for help texts. */
  description: string;
  /** True when the (decoded) start of a file looks like this format. */
  detect(fileName: string, head: string): boolean;
  /**
   * Parses and validates a whole decoded file.
   * @throws AppError INVALID_REQUEST when the file as a whole is unusable.
   */
  parse(text: string, file: string, options: LoadOptions): LoadResult;
}
