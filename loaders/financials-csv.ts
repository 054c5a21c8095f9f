/**
 * `financials-csv`: quarterly statements, `code, fiscal_year, fiscal_quarter`
 * followed by any FinancialQuarter field names as columns (revenue,
 * operating_profit, net_profit, total_assets, equity, gross_profit, …).
 * Flow items are for the quarter alone; an optional `disclosed_on` (YYYY-MM-DD) is the
 * date the statement became public. Blank cells and absent columns give
 * null; unknown columns are ignored.
 */
import type { FinancialQuarter } from '../daemon/kernel/records.js';
import { OPTIONAL_FINANCIAL_FIELDS } from '../daemon/kernel/records.js';
import { csvRows, sniffHeader } from './csv.js';
import { parseNumber } from './fields.js';
import { addRecord, emptyResult, enforceBadRowLimit, fileError, reject } from './result.js';
import type { LoadResult, Loader } from './types.js';
import { checkCode } from './validate.js';

/** The numeric fields of FinancialQuarter, core first. */
export const FINANCIAL_VALUE_FIELDS = [
  'revenue', 'operating_profit', 'net_profit', 'total_assets', 'equity', ...OPTIONAL_FINANCIAL_FIELDS,
] as const;
/** One numeric FinancialQuarter field. */
export type FinancialValueField = (typeof FINANCIAL_VALUE_FIELDS)[number];

/** A FinancialQuarter with every value null. */
export function blankFinancial(code: string, year: number, quarter: number): FinancialQuarter {
  const fq = { stock_code: code, fiscal_year: year, fiscal_quarter: quarter } as FinancialQuarter;
  for (const f of FINANCIAL_VALUE_FIELDS) fq[f] = null;
  return fq;
}

/** Reason when year/quarter are out of range, else null. */
export function checkPeriod(year: number, quarter: number): string | null {
  if (!Number.isInteger(year) || year < 1980 || year > 2100) return `invalid fiscal year ${year}`;
  if (!Number.isInteger(quarter) || quarter < 1 || quarter > 4) return `invalid fiscal quarter ${quarter}`;
  return null;
}

function parseFinancials(text: string, file: string): LoadResult {
  const result = emptyResult('financials-csv', file);
  let col: Map<string, number> | null = null;
  for (const row of csvRows(text)) {
    if (col === null) {
      col = new Map(row.fields.map((h, i) => [h.trim().toLowerCase(), i] as const).reverse());
      const missing = ['code', 'fiscal_year', 'fiscal_quarter'].filter((c) => !col?.has(c));
      if (missing.length > 0) throw fileError(file, 'financials-csv', `missing columns: ${missing.join(', ')}`, { missing });
      continue;
    }
    const index = col;
    const cell = (name: string): string | undefined => (index.has(name) ? row.fields[index.get(name) ?? -1] : undefined);
    result.rows_total += 1;
    const code = (cell('code') ?? '').trim();
    const year = Number(cell('fiscal_year'));
    const quarter = Number(cell('fiscal_quarter'));
    const problem = checkCode(code) ?? checkPeriod(year, quarter);
    if (problem) { reject(result, row.line, problem); continue; }
    const fq = blankFinancial(code, year, quarter);
    const bad = FINANCIAL_VALUE_FIELDS.find((f) => {
      const v = parseNumber(cell(f));
      fq[f] = v;
      return Number.isNaN(v);
    });
    if (bad) { reject(result, row.line, `non-numeric ${bad} ${JSON.stringify(cell(bad))}`); continue; }
    // The date the statement became public (as-of screens use it from then on).
    const disclosed = (cell('disclosed_on') ?? '').trim();
    if (disclosed !== '' && !/^\d{4}-\d{2}-\d{2}$/.test(disclosed)) { reject(result, row.line, `disclosed_on ${JSON.stringify(disclosed)} is not a date YYYY-MM-DD`); continue; }
    if (disclosed !== '') fq.disclosed_on = disclosed;
    addRecord(result, 'financials', fq, row.line);
    result.rows_ok += 1;
  }
  if (col === null) throw fileError(file, 'financials-csv', 'empty file');
  return result;
}

/** Loader for quarterly statement CSVs using the FinancialQuarter field names. */
export const financialsCsvLoader: Loader = {
  format: 'financials-csv',
  description: 'quarterly financials: code, fiscal_year, fiscal_quarter, <FinancialQuarter fields>…',
  detect(_fileName, head) {
    const cols = sniffHeader(head).map((c) => c.toLowerCase());
    return ['code', 'fiscal_year', 'fiscal_quarter'].every((c) => cols.includes(c));
  },
  parse(text, file, options) {
    return enforceBadRowLimit(parseFinancials(text, file), options);
  },
};
