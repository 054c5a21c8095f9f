/**
 * `fdr-desc`: FinanceDataReader's descriptive listing (`desc/*.csv`: Code, Name,
 * Market, Sector, Industry, Products, ListingDate, SettleMonth, …).
 * Yields stock updates only: name, market, board (the `Sector` column holds the
 * KOSDAQ board), industry (the KSIC name in `Industry`), sector (approximated
 * from the KSIC name, see sectors.ts), listing_date and settle_month ('12월' → 12).
 * The file has no English names: name_english is left out of the update so an
 * English name from another source is kept. Blank cells are omitted.
 */
import { csvRows, headerIndex, sniffHeader } from './csv.js';
import { mapMarket, normalizeDate } from './fields.js';
import { KONEX_SKIP_REASON } from './quote-rows.js';
import { addRecord, emptyResult, enforceBadRowLimit, fileError, reject, skip } from './result.js';
import { sectorForIndustry } from './sectors.js';
import type { LoadResult, Loader, StockUpdate } from './types.js';
import { checkCode } from './validate.js';

const REQUIRED = ['Code', 'Name', 'Market', 'Industry', 'ListingDate', 'SettleMonth'] as const;

function parseDesc(text: string, file: string): LoadResult {
  const result = emptyResult('fdr-desc', file);
  let col: Map<string, number> | null = null;
  for (const row of csvRows(text)) {
    if (col === null) {
      col = headerIndex(row.fields);
      const missing = REQUIRED.filter((c) => !col?.has(c));
      if (missing.length > 0) throw fileError(file, 'fdr-desc', `missing columns: ${missing.join(', ')}`, { missing });
      continue;
    }
    const index = col;
    const cell = (name: string): string => (row.fields[index.get(name) ?? -1] ?? '').trim();
    result.rows_total += 1;
    const problem = mapDescRow(cell, row.line, result);
    if (problem) reject(result, row.line, problem);
  }
  if (col === null) throw fileError(file, 'fdr-desc', 'empty file');
  return result;
}

/** Adds one row's update; returns a rejection reason or null. */
function mapDescRow(cell: (name: string) => string, line: number, result: LoadResult): string | null {
  const market = mapMarket(cell('Market'));
  if (market === 'KONEX') { skip(result, KONEX_SKIP_REASON); return null; }
  if (market === null) return `unknown market ${JSON.stringify(cell('Market'))}`;
  const code = cell('Code');
  const problem = checkCode(code);
  if (problem) return problem;
  const update: StockUpdate = { code, market: market.market };
  const name = cell('Name');
  if (name !== '') update.name = name;
  const board = cell('Sector');
  if (market.global) update.board = 'KOSDAQ GLOBAL';
  else if (board !== '') update.board = board;
  const industry = cell('Industry');
  if (industry !== '') {
    update.industry = industry;
    update.sector = sectorForIndustry(industry, market.market);
  }
  const listing = cell('ListingDate');
  if (listing !== '') {
    const date = normalizeDate(listing);
    if (date === null) return `invalid listing date ${JSON.stringify(listing)}`;
    update.listing_date = date;
  }
  const settle = cell('SettleMonth');
  if (settle !== '') {
    const month = Number(/^(\d{1,2})\s*월?$/.exec(settle)?.[1]);
    if (!(month >= 1 && month <= 12)) return `invalid settle month ${JSON.stringify(settle)}`;
    update.settle_month = month;
  }
  addRecord(result, 'stocks', update, line);
  result.rows_ok += 1;
  return null;
}

/** Loader for FinanceDataReader `desc/*.csv` descriptive listings. */
export const fdrDescLoader: Loader = {
  format: 'fdr-desc',
  description: 'FinanceDataReader KRX descriptive listing (desc/*.csv: industry, listing date, settle month)',
  detect(_fileName, head) {
    const cols = sniffHeader(head);
    return REQUIRED.every((c) => cols.includes(c));
  },
  parse(text, file, options) {
    return enforceBadRowLimit(parseDesc(text, file), options);
  },
};
