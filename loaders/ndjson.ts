/**
 * `ndjson`: the service's own round-trip format — one JSON object per line with
 * a `kind` (`stock`, `bar`, `halt`, `financial`, `index`, `designation`, and an optional
 * leading `meta` line) plus the record's fields under their record names.
 * See loaders/README.md for the format. Parsing is available for a whole text
 * (`parse`) and as a stream of chunks (`streamNdjson`) for multi-million-line files.
 */
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { DailyBar, DesignationRecord, FinancialQuarter, HaltRecord, IndexBar } from '../daemon/kernel/records.js';
import { blankFinancial, checkPeriod, FINANCIAL_VALUE_FIELDS } from './financials-csv.js';
import { addRecord, assertBadRowRatio, emptyResult, enforceBadRowLimit, REASONS_LISTED, reject, skip, skippedCount } from './result.js';
import type { BadRowSummary } from './result.js';
import type { LoadOptions, LoadResult, Loader, MarketRecords, StockUpdate } from './types.js';
import { checkBar, checkCode, checkIndexBar, checkMarket, checkTradeDate } from './validate.js';

/** The `format` value of the optional first (`kind: "meta"`) line. */
export const NDJSON_FORMAT_ID = 'stockscreen-market';
/** The current version of the format. */
export const NDJSON_VERSION = 1;

type Obj = Record<string, unknown>;
const STOCK_STRING_FIELDS = ['name', 'name_english', 'market', 'sector', 'industry', 'listing_date', 'board'] as const;
const STOCK_FLAG_FIELDS = ['is_administrative', 'is_spac', 'is_preferred'] as const;

const num = (v: unknown): number => (typeof v === 'number' ? v : Number.NaN);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));

function toStock(o: Obj, out: LoadResult, line: number): string | null {
  const problem = checkCode(o.code) ?? (o.market === undefined ? null : checkMarket(o.market));
  if (problem) return problem;
  const update: StockUpdate = { code: o.code as string };
  for (const f of STOCK_STRING_FIELDS) {
    if (!(f in o)) continue;
    if (o[f] !== null && typeof o[f] !== 'string') return `${f} must be a string or null`;
    (update as Obj)[f] = o[f];
  }
  for (const f of STOCK_FLAG_FIELDS) {
    if (!(f in o)) continue;
    if (typeof o[f] !== 'boolean') return `${f} must be a boolean`;
    update[f] = o[f] as boolean;
  }
  for (const f of ['shares_outstanding', 'settle_month'] as const) {
    if (!(f in o)) continue;
    const v = numOrNull(o[f]);
    if (Number.isNaN(v)) return `${f} must be a number or null`;
    update[f] = v;
  }
  addRecord(out, 'stocks', update, line);
  return null;
}

function toBar(o: Obj, out: LoadResult, line: number): string | null {
  const bar: DailyBar = {
    stock_code: o.stock_code as string, trade_date: o.trade_date as string,
    open_price: num(o.open_price), high_price: num(o.high_price), low_price: num(o.low_price), close_price: num(o.close_price),
    volume: num(o.volume), trading_value: num(o.trading_value),
    market_cap: numOrNull(o.market_cap), shares_outstanding: numOrNull(o.shares_outstanding),
  };
  const problem = checkBar(bar);
  if (!problem) addRecord(out, 'bars', bar, line);
  return problem;
}

function toHalt(o: Obj, out: LoadResult, line: number): string | null {
  const halt: HaltRecord = {
    stock_code: o.stock_code as string, trade_date: o.trade_date as string, last_close: num(o.last_close),
    market_cap: numOrNull(o.market_cap), shares_outstanding: numOrNull(o.shares_outstanding),
  };
  const problem = checkCode(halt.stock_code) ?? checkTradeDate(halt.trade_date)
    ?? (halt.last_close > 0 ? null : `invalid last_close ${String(o.last_close)}`);
  if (!problem) addRecord(out, 'halts', halt, line);
  return problem;
}

function toFinancial(o: Obj, out: LoadResult, line: number): string | null {
  const problem = checkCode(o.stock_code) ?? checkPeriod(num(o.fiscal_year), num(o.fiscal_quarter));
  if (problem) return problem;
  const fq: FinancialQuarter = blankFinancial(o.stock_code as string, num(o.fiscal_year), num(o.fiscal_quarter));
  for (const f of FINANCIAL_VALUE_FIELDS) {
    const v = numOrNull(o[f]);
    if (Number.isNaN(v)) return `${f} must be a number or null`;
    fq[f] = v;
  }
  addRecord(out, 'financials', fq, line);
  return null;
}

function toIndex(o: Obj, out: LoadResult): string | null {
  const bar: IndexBar = {
    market: o.market as IndexBar['market'], trade_date: o.trade_date as string, open: numOrNull(o.open), high: numOrNull(o.high),
    low: numOrNull(o.low), close: num(o.close), volume: numOrNull(o.volume), trading_value: numOrNull(o.trading_value),
  };
  const problem = checkIndexBar(bar);
  if (!problem) out.index.push(bar);
  return problem;
}

function toDesignation(o: Obj, out: LoadResult): string | null {
  const problem = checkCode(o.stock_code) ?? checkTradeDate(o.trade_date)
    ?? (typeof o.is_administrative === 'boolean' ? null : 'is_administrative must be a boolean')
    ?? (o.board === null || o.board === undefined || typeof o.board === 'string' ? null : 'board must be a string or null');
  if (problem) return problem;
  const d: DesignationRecord = {
    stock_code: o.stock_code as string, trade_date: o.trade_date as string, is_administrative: o.is_administrative as boolean, board: (o.board as string | undefined) ?? null,
  };
  (out.designations ??= []).push(d);
  return null;
}

const HANDLERS: Record<string, (o: Obj, out: LoadResult, line: number) => string | null> = {
  stock: toStock, bar: toBar, halt: toHalt, financial: toFinancial, index: toIndex, designation: toDesignation,
};

/** Parses one line into `result`; blank lines are ignored (not counted). */
export function parseNdjsonLine(line: string, lineNo: number, result: LoadResult): void {
  if (line.trim() === '') return;
  result.rows_total += 1;
  let o: unknown;
  try { o = JSON.parse(line); } catch { reject(result, lineNo, 'not valid JSON'); return; }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) { reject(result, lineNo, 'not a JSON object'); return; }
  const kind = (o as Obj).kind;
  if (kind === 'meta') { skip(result, 'meta line'); return; }
  const handler = typeof kind === 'string' ? HANDLERS[kind] : undefined;
  if (!handler) { reject(result, lineNo, `unknown kind ${JSON.stringify(kind)}`); return; }
  const problem = handler(o as Obj, result, lineNo);
  if (problem) reject(result, lineNo, `${String(kind)}: ${problem}`);
  else result.rows_ok += 1;
}

function parseWhole(text: string, file: string): LoadResult {
  const result = emptyResult('ndjson', file);
  let lineNo = 0;
  let pos = 0;
  while (pos <= text.length) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    lineNo += 1;
    parseNdjsonLine(text.slice(pos, end), lineNo, result);
    pos = end + 1;
  }
  return result;
}

/** Options for `streamNdjson`. */
export interface NdjsonStreamOptions extends LoadOptions {
  /** Data lines per yielded chunk (default 50,000). */
  chunkRows?: number;
}

/**
 * Streams an NDJSON source as LoadResult chunks (counts are per chunk, line
 * numbers are file-wide). The 5% bad-row rule is checked on the running totals
 * after every chunk once 1,000 rows have been read, and on the final totals;
 * a caller that must not keep part of a refused file loads inside a transaction.
 * @throws AppError INVALID_REQUEST when the bad-row limit is exceeded.
 */
export async function* streamNdjson(input: Readable, file: string, options: NdjsonStreamOptions = {}): AsyncGenerator<LoadResult> {
  const chunkRows = options.chunkRows ?? 50_000;
  const running: BadRowSummary = { file, format: 'ndjson', rows_total: 0, rows_skipped: 0, rows_rejected: 0, first_reasons: [] };
  let chunk = emptyResult('ndjson', file);
  const flush = (final: boolean): LoadResult => {
    running.rows_total += chunk.rows_total;
    running.rows_skipped += skippedCount(chunk);
    running.rows_rejected += chunk.rejected.length;
    if (running.first_reasons.length < REASONS_LISTED) running.first_reasons.push(...chunk.rejected.slice(0, REASONS_LISTED - running.first_reasons.length));
    if (final || running.rows_total >= 1_000) assertBadRowRatio(running, options);
    const out = chunk;
    chunk = emptyResult('ndjson', file);
    return out;
  };
  let lineNo = 0;
  for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    lineNo += 1;
    parseNdjsonLine(line as string, lineNo, chunk);
    if (chunk.rows_total >= chunkRows) yield flush(false);
  }
  yield flush(true);
}

/** Loader for the service's NDJSON round-trip format (whole-text variant). */
export const ndjsonLoader: Loader = {
  format: 'ndjson',
  description: 'stockscreen NDJSON: one {"kind": stock|bar|halt|financial|index|designation, …} object per line',
  detect(_fileName, head) {
    // The first line must be an object with a "kind" field (the file name is not needed).
    const first = head.trimStart().split('\n')[0] ?? '';
    return first.startsWith('{') && /"kind"\s*:/.test(first);
  },
  parse(text, file, options) {
    return enforceBadRowLimit(parseWhole(text, file), options);
  },
};

/** JSON lines (no trailing newline each) for a set of records, in stock, bar, halt, financial, index, designation order. */
export function* ndjsonLines(records: Partial<MarketRecords>): Generator<string> {
  for (const s of records.stocks ?? []) yield JSON.stringify({ kind: 'stock', ...s });
  for (const b of records.bars ?? []) yield barLine(b);
  for (const h of records.halts ?? []) yield JSON.stringify({ kind: 'halt', ...h });
  for (const f of records.financials ?? []) yield JSON.stringify({ kind: 'financial', ...f });
  for (const i of records.index ?? []) yield JSON.stringify({ kind: 'index', ...i });
  for (const d of records.designations ?? []) yield JSON.stringify({ kind: 'designation', ...d });
}

const str = (v: string): string => JSON.stringify(v);
const n = (v: number | null): string => (v === null || !Number.isFinite(v) ? 'null' : String(v));

/** A bar line built by hand: bars are ~98% of a market dump and the spread + stringify path is 3× slower. */
function barLine(b: DailyBar): string {
  return `{"kind":"bar","stock_code":${str(b.stock_code)},"trade_date":${str(b.trade_date)},"open_price":${n(b.open_price)},`
    + `"high_price":${n(b.high_price)},"low_price":${n(b.low_price)},"close_price":${n(b.close_price)},"volume":${n(b.volume)},`
    + `"trading_value":${n(b.trading_value)},"market_cap":${n(b.market_cap)},"shares_outstanding":${n(b.shares_outstanding)}}`;
}

/** The meta line that `writeNdjson` puts first. */
export function ndjsonMetaLine(): string {
  return JSON.stringify({ kind: 'meta', format: NDJSON_FORMAT_ID, version: NDJSON_VERSION });
}

/** Serialises records to one NDJSON string (meta line first, newline-terminated). */
export function serializeNdjson(records: Partial<MarketRecords>): string {
  return `${[ndjsonMetaLine(), ...ndjsonLines(records)].join('\n')}\n`;
}

/**
 * Writes chunks of records to a stream as NDJSON (meta line first), honouring
 * back-pressure; does not end the stream. Returns the number of lines written.
 */
export async function writeNdjson(out: Writable, chunks: Iterable<Partial<MarketRecords>> | AsyncIterable<Partial<MarketRecords>>): Promise<number> {
  let buffer = `${ndjsonMetaLine()}\n`;
  let lines = 1;
  const drain = async (): Promise<void> => {
    if (!out.write(buffer)) await once(out, 'drain');
    buffer = '';
  };
  for await (const chunk of chunks) {
    for (const line of ndjsonLines(chunk)) {
      buffer += `${line}\n`;
      lines += 1;
      if (buffer.length >= 1 << 20) await drain();
    }
  }
  if (buffer.length > 0) await drain();
  return lines;
}
