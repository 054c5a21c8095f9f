/**
 * All-issue daily quote files (FinanceDataReader cache and the KRX website
 * export share one row model): one row per issue → a stock update plus either
 * a daily bar or, for a halted issue, a halt record.
 *
 * Flags derived per row (documented in loaders/README.md):
 * - board: 'KOSDAQ GLOBAL' for that board, otherwise the Dept/소속부 text as given
 *   (e.g. 우량기업부, 관리종목(소속부없음)); omitted when blank.
 * - is_administrative: Dept contains 관리종목. The sources leave Dept blank for
 *   every KOSPI issue, so for a KOSPI row with a blank Dept the flag is omitted
 *   (unknown) rather than set to false.
 * - is_spac: Dept contains SPAC, or the name ends in 스팩 / 스팩N호 (SPACs under
 *   an administrative designation lose the SPAC Dept but keep the name).
 * - is_preferred: the code's last character is not '0'. KRX gives common shares
 *   a code ending in 0 and preferred classes 5, 7, 9 or a letter (005935 삼성전자우,
 *   00680K 미래에셋증권2우B); this matches all 113 preferred issues of the
 *   2026-03-20 file and none of its common shares, unlike a name rule (성우,
 *   이오플로우 end in 우 but are common shares).
 */
import { isTradingDay } from '../daemon/kernel/krx-calendar.js';
import type { DailyBar } from '../daemon/kernel/records.js';
import { csvRows, headerIndex } from './csv.js';
import { dateFromFileName, mapMarket, parseNumber } from './fields.js';
import { addRecord, emptyResult, enforceBadRowLimit, fileError, reject, skip } from './result.js';
import type { LoadOptions, LoadResult, LoaderFormat, StockUpdate } from './types.js';
import { checkBar, checkCode } from './validate.js';

/** The logical columns of a quote file, each mapped to its header name in a given format. */
export interface QuoteColumnNames {
  code: string; name: string; market: string; dept: string; close: string; open: string; high: string;
  low: string; volume: string; amount: string; marcap: string; stocks: string;
}

/** Reason under which KONEX rows are counted in `skipped`. */
export const KONEX_SKIP_REASON = 'KONEX issue (market not covered)';

type Cols = Record<keyof QuoteColumnNames, number>;

function resolveColumns(header: string[], names: QuoteColumnNames, file: string, format: LoaderFormat): Cols {
  const index = headerIndex(header);
  const cols = {} as Cols;
  const missing: string[] = [];
  for (const [key, name] of Object.entries(names) as [keyof QuoteColumnNames, string][]) {
    const i = index.get(name);
    if (i !== undefined) cols[key] = i;
    else if (key === 'dept') cols[key] = -1; // optional: blank board for every row
    else missing.push(name);
  }
  if (missing.length > 0) throw fileError(file, format, `missing columns: ${missing.join(', ')}`, { missing });
  return cols;
}

/** The trade date of a single-day file: the option, else the file name. */
export function resolveTradeDate(file: string, format: LoaderFormat, options: LoadOptions): string {
  const date = options.tradeDate ?? dateFromFileName(file);
  if (date === null) throw fileError(file, format, 'no trade date: give one (--date YYYY-MM-DD with stockscreen load, `date` in a job request) or put YYYY-MM-DD / YYYYMMDD in the file name');
  if (!isTradingDay(date)) throw fileError(file, format, `${date} is not a KRX trading day`, { trade_date: date });
  return date;
}

/**
 * Parses a whole quote file whose header uses `names`.
 * @throws AppError INVALID_REQUEST for a missing column, no/invalid trade date, or > 5% bad rows.
 */
export function parseQuoteFile(text: string, file: string, format: LoaderFormat, names: QuoteColumnNames, options: LoadOptions): LoadResult {
  const tradeDate = resolveTradeDate(file, format, options);
  const result = emptyResult(format, file);
  let cols: Cols | null = null;
  let width = 0;
  for (const row of csvRows(text)) {
    if (cols === null) {
      cols = resolveColumns(row.fields, names, file, format);
      width = row.fields.length;
      continue;
    }
    result.rows_total += 1;
    if (row.fields.length < width) reject(result, row.line, `expected ${width} columns, found ${row.fields.length}`);
    else mapQuoteRow(row.fields, row.line, cols, tradeDate, result);
  }
  if (cols === null) throw fileError(file, format, 'empty file');
  return enforceBadRowLimit(result, options);
}

/**
 * Maps rows already split into named values (a JSON answer such as the KRX Open API's, every
 * value a string) exactly as a quote file's rows are mapped. `line` of a rejected row is the
 * row's 1-based position in `rows`; a row missing a column or holding a non-string value is
 * rejected with its reason. The 5% rule is NOT applied here: the caller decides it over a
 * whole date (several answers). @throws AppError INVALID_REQUEST when `tradeDate` is not a trading day
 */
export function parseQuoteRecords(
  rows: readonly unknown[], file: string, format: LoaderFormat, names: QuoteColumnNames, tradeDate: string,
  check?: (record: Record<string, unknown>) => string | null,
): LoadResult {
  if (!isTradingDay(tradeDate)) throw fileError(file, format, `${tradeDate} is not a KRX trading day`, { trade_date: tradeDate });
  const keys = Object.keys(names) as (keyof QuoteColumnNames)[];
  const cols = Object.fromEntries(keys.map((k, i) => [k, i])) as Cols;
  const result = emptyResult(format, file);
  rows.forEach((row, i) => {
    const line = i + 1;
    result.rows_total += 1;
    if (typeof row !== 'object' || row === null || Array.isArray(row)) { reject(result, line, 'not an object'); return; }
    const record = row as Record<string, unknown>;
    const problem = check?.(record);
    if (problem) { reject(result, line, problem); return; }
    const fields: string[] = [];
    for (const k of keys) {
      const value = record[names[k]];
      if (value === undefined && k === 'dept') { fields.push(''); continue; }
      if (typeof value !== 'string') { reject(result, line, value === undefined ? `missing ${names[k]}` : `${names[k]} is not a string`); return; }
      fields.push(value);
    }
    mapQuoteRow(fields, line, cols, tradeDate, result);
  });
  return result;
}

function mapQuoteRow(f: string[], line: number, c: Cols, tradeDate: string, result: LoadResult): void {
  const cell = (k: keyof Cols): string => (f[c[k]] ?? '').trim();
  const market = mapMarket(cell('market'));
  if (market === 'KONEX') { skip(result, KONEX_SKIP_REASON); return; }
  if (market === null) { reject(result, line, `unknown market ${JSON.stringify(cell('market'))}`); return; }
  const code = cell('code');
  const codeProblem = checkCode(code);
  if (codeProblem) { reject(result, line, codeProblem); return; }
  const name = cell('name');
  if (name === '') { reject(result, line, 'blank name'); return; }

  const n = (k: keyof Cols): number | null => parseNumber(cell(k));
  const open = n('open'); const high = n('high'); const low = n('low'); const close = n('close');
  const volume = n('volume'); const amount = n('amount'); const marcap = n('marcap'); const shares = n('stocks');
  if ([open, high, low, close, volume, amount, marcap, shares].some((n) => Number.isNaN(n))) {
    reject(result, line, 'non-numeric price, volume or amount'); return;
  }
  const halted = open === 0 && high === 0 && low === 0 && volume === 0;
  if (halted) {
    if (close === null || close <= 0) { reject(result, line, `halted issue without a last close (${String(close)})`); return; }
    addRecord(result, 'halts', { stock_code: code, trade_date: tradeDate, last_close: close, market_cap: marcap, shares_outstanding: shares }, line);
  } else {
    const bar: DailyBar = {
      stock_code: code, trade_date: tradeDate,
      open_price: open ?? 0, high_price: high ?? 0, low_price: low ?? 0, close_price: close ?? 0,
      volume: volume ?? Number.NaN, trading_value: amount ?? Number.NaN, market_cap: marcap, shares_outstanding: shares,
    };
    const problem = checkBar(bar);
    if (problem) { reject(result, line, problem); return; }
    addRecord(result, 'bars', bar, line);
  }
  const update = stockUpdate(code, name, market.market, market.global, cell('dept'), shares);
  addRecord(result, 'stocks', update, line);
  if (update.is_administrative !== undefined) {
    (result.designations ??= []).push({ stock_code: code, trade_date: tradeDate, is_administrative: update.is_administrative, board: update.board ?? null });
  }
  result.rows_ok += 1;
}

function stockUpdate(code: string, name: string, market: 'KOSPI' | 'KOSDAQ', global: boolean, dept: string, shares: number | null): StockUpdate {
  const update: StockUpdate = {
    code, name, market,
    is_spac: /SPAC/i.test(dept) || /스팩(\d+호)?$/.test(name),
    is_preferred: !code.endsWith('0'),
  };
  if (global) update.board = 'KOSDAQ GLOBAL';
  else if (dept !== '') update.board = dept;
  if (dept !== '' || market === 'KOSDAQ') update.is_administrative = dept.includes('관리종목');
  if (shares !== null) update.shares_outstanding = shares;
  return update;
}
