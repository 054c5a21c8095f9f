/**
 * `ohlcv`: one issue's price history, `Date,Open,High,Low,Close,Volume[,Change|Amount]`
 * (header names case-insensitive). The code comes from the option, else the
 * first 6-character code in the file name (005930.csv, 0126Z0_daily.csv).
 * A row with Open = High = Low = 0 and Volume = 0 is a halt (FinanceDataReader
 * writes halted days that way). Without an Amount column, trading_value is
 * estimated as round(volume × (high + low + close) / 3).
 */
import type { DailyBar } from '../daemon/kernel/records.js';
import { csvRows, sniffHeader } from './csv.js';
import { codeFromFileName, normalizeDate, parseNumber } from './fields.js';
import { addRecord, emptyResult, enforceBadRowLimit, fileError, reject } from './result.js';
import type { LoadOptions, LoadResult, Loader } from './types.js';
import { checkBar, checkCode, checkTradeDate } from './validate.js';

const REQUIRED = ['date', 'open', 'high', 'low', 'close', 'volume'] as const;

function lowerIndex(header: string[]): Map<string, number> {
  const map = new Map<string, number>();
  header.forEach((h, i) => { if (!map.has(h.trim().toLowerCase())) map.set(h.trim().toLowerCase(), i); });
  return map;
}

function resolveCode(file: string, options: LoadOptions): string {
  const code = options.code ?? codeFromFileName(file);
  if (code === null) throw fileError(file, 'ohlcv', 'no stock code: pass code or name the file after it (e.g. 005930.csv)');
  const problem = checkCode(code);
  if (problem) throw fileError(file, 'ohlcv', problem);
  return code;
}

function parseOhlcv(text: string, file: string, options: LoadOptions): LoadResult {
  const code = resolveCode(file, options);
  const result = emptyResult('ohlcv', file);
  let col: Map<string, number> | null = null;
  for (const row of csvRows(text)) {
    if (col === null) {
      col = lowerIndex(row.fields);
      const missing = REQUIRED.filter((c) => !col?.has(c));
      if (missing.length > 0) throw fileError(file, 'ohlcv', `missing columns: ${missing.join(', ')}`, { missing });
      continue;
    }
    result.rows_total += 1;
    const index = col;
    const num = (name: string): number | null => (index.has(name) ? parseNumber(row.fields[index.get(name) ?? -1]) : null);
    const date = normalizeDate(row.fields[index.get('date') ?? -1]);
    const open = num('open'); const high = num('high'); const low = num('low');
    const close = num('close'); const volume = num('volume'); const amount = num('amount');
    if (date === null) { reject(result, row.line, `invalid date ${JSON.stringify(row.fields[index.get('date') ?? -1])}`); continue; }
    if (open === 0 && high === 0 && low === 0 && volume === 0 && close !== null && close > 0) {
      const dateProblem = checkTradeDate(date);
      if (dateProblem) { reject(result, row.line, dateProblem); continue; }
      addRecord(result, 'halts', { stock_code: code, trade_date: date, last_close: close, market_cap: null, shares_outstanding: null }, row.line);
      result.rows_ok += 1;
      continue;
    }
    const estimate = volume !== null && high !== null && low !== null && close !== null ? Math.round((volume * (high + low + close)) / 3) : Number.NaN;
    const bar: DailyBar = {
      stock_code: code, trade_date: date, open_price: open ?? 0, high_price: high ?? 0, low_price: low ?? 0,
      close_price: close ?? 0, volume: volume ?? Number.NaN, trading_value: amount ?? estimate,
      market_cap: null, shares_outstanding: null,
    };
    const problem = checkBar(bar);
    if (problem) reject(result, row.line, problem);
    else { addRecord(result, 'bars', bar, row.line); result.rows_ok += 1; }
  }
  if (col === null) throw fileError(file, 'ohlcv', 'empty file');
  return result;
}

/** Loader for per-issue OHLCV history files. */
export const ohlcvLoader: Loader = {
  format: 'ohlcv',
  description: 'per-issue price history: Date,Open,High,Low,Close,Volume[,Change|Amount]',
  detect(_fileName, head) {
    const cols = sniffHeader(head).map((c) => c.toLowerCase());
    return REQUIRED.every((c) => cols.includes(c)) && !cols.includes('updown') && !cols.includes('comp');
  },
  parse(text, file, options) {
    return enforceBadRowLimit(parseOhlcv(text, file, options), options);
  },
};
