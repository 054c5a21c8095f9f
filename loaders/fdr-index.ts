/**
 * `fdr-index`: KOSPI/KOSDAQ composite index series (`index/kospi/YYYY.csv`:
 * Date, Close, UpDown, Comp, Change, Open, High, Low, Volume, Amount, MarCap).
 * The market comes from the option, else from a `kospi`/`kosdaq` folder or file
 * name segment. UpDown, Comp, Change and MarCap are not kept.
 */
import type { IndexBar } from '../daemon/kernel/records.js';
import { csvRows, headerIndex, sniffHeader } from './csv.js';
import { marketFromPath, normalizeDate, parseNumber } from './fields.js';
import { emptyResult, enforceBadRowLimit, fileError, reject } from './result.js';
import type { LoadOptions, LoadResult, Loader } from './types.js';
import { checkIndexBar } from './validate.js';

const REQUIRED = ['Date', 'Close', 'Open', 'High', 'Low', 'Volume'] as const;

function parseIndex(text: string, file: string, options: LoadOptions): LoadResult {
  const market = options.market ?? marketFromPath(file);
  if (market === null) throw fileError(file, 'fdr-index', 'no market: pass market or put the file under a kospi/ or kosdaq/ folder');
  const result = emptyResult('fdr-index', file);
  let col: Map<string, number> | null = null;
  for (const row of csvRows(text)) {
    if (col === null) {
      col = headerIndex(row.fields);
      const missing = REQUIRED.filter((c) => !col?.has(c));
      if (missing.length > 0) throw fileError(file, 'fdr-index', `missing columns: ${missing.join(', ')}`, { missing });
      continue;
    }
    const index = col;
    const num = (name: string): number | null => parseNumber(row.fields[index.get(name) ?? -1]);
    result.rows_total += 1;
    const rawDate = row.fields[index.get('Date') ?? -1];
    const bar: IndexBar = {
      market, trade_date: normalizeDate(rawDate) ?? String(rawDate),
      open: num('Open'), high: num('High'), low: num('Low'), close: num('Close') ?? Number.NaN,
      volume: num('Volume'), trading_value: num('Amount'),
    };
    const problem = [bar.volume, bar.trading_value].some((v) => Number.isNaN(v)) ? 'non-numeric volume or amount' : checkIndexBar(bar);
    if (problem) reject(result, row.line, problem);
    else { result.index.push(bar); result.rows_ok += 1; }
  }
  if (col === null) throw fileError(file, 'fdr-index', 'empty file');
  return result;
}

/** Loader for FinanceDataReader KOSPI/KOSDAQ index series. */
export const fdrIndexLoader: Loader = {
  format: 'fdr-index',
  description: 'KOSPI/KOSDAQ composite index series (index/kospi/YYYY.csv, index/kosdaq/YYYY.csv)',
  detect(_fileName, head) {
    const cols = sniffHeader(head);
    return REQUIRED.every((c) => cols.includes(c)) && (cols.includes('UpDown') || cols.includes('Comp') || cols.includes('MarCap'));
  },
  parse(text, file, options) {
    return enforceBadRowLimit(parseIndex(text, file, options), options);
  },
};
