/**
 * `listing-csv`: a plain stock master list, `Code, Name, Market, Sector,
 * Industry, ListingDate, Shares[, NameEnglish]` (header names compared without
 * case or underscores, so `listing_date` and `name_english` work too).
 * Every non-blank cell is part of the update; blank cells are omitted.
 */
import { csvRows, sniffHeader } from './csv.js';
import { mapMarket, normalizeDate, parseNumber } from './fields.js';
import { KONEX_SKIP_REASON } from './quote-rows.js';
import { addRecord, emptyResult, enforceBadRowLimit, fileError, reject, skip } from './result.js';
import type { LoadResult, Loader, StockUpdate } from './types.js';
import { checkCode } from './validate.js';

const REQUIRED = ['code', 'name', 'market', 'sector', 'industry', 'listingdate', 'shares'] as const;

/** Header name → comparable key (lower case, no underscores or spaces). */
export function looseKey(name: string): string {
  return name.trim().toLowerCase().replace(/[_\s]/g, '');
}

function looseIndex(header: string[]): Map<string, number> {
  const map = new Map<string, number>();
  header.forEach((h, i) => { if (!map.has(looseKey(h))) map.set(looseKey(h), i); });
  return map;
}

function mapListingRow(cell: (key: string) => string, line: number, result: LoadResult): string | null {
  const market = mapMarket(cell('market'));
  if (market === 'KONEX') { skip(result, KONEX_SKIP_REASON); return null; }
  if (market === null) return `unknown market ${JSON.stringify(cell('market'))}`;
  const code = cell('code');
  const problem = checkCode(code);
  if (problem) return problem;
  const update: StockUpdate = { code, market: market.market, is_preferred: !code.endsWith('0') };
  if (market.global) update.board = 'KOSDAQ GLOBAL';
  const texts = [['name', 'name'], ['sector', 'sector'], ['industry', 'industry'], ['nameenglish', 'name_english']] as const;
  for (const [key, field] of texts) if (cell(key) !== '') update[field] = cell(key);
  if (cell('listingdate') !== '') {
    const date = normalizeDate(cell('listingdate'));
    if (date === null) return `invalid listing date ${JSON.stringify(cell('listingdate'))}`;
    update.listing_date = date;
  }
  if (cell('shares') !== '') {
    const shares = parseNumber(cell('shares'));
    if (shares === null || !Number.isInteger(shares) || shares < 0) return `invalid shares ${JSON.stringify(cell('shares'))}`;
    update.shares_outstanding = shares;
  }
  addRecord(result, 'stocks', update, line);
  result.rows_ok += 1;
  return null;
}

function parseListing(text: string, file: string): LoadResult {
  const result = emptyResult('listing-csv', file);
  let col: Map<string, number> | null = null;
  for (const row of csvRows(text)) {
    if (col === null) {
      col = looseIndex(row.fields);
      const missing = REQUIRED.filter((c) => !col?.has(c));
      if (missing.length > 0) throw fileError(file, 'listing-csv', `missing columns: ${missing.join(', ')}`, { missing });
      continue;
    }
    const index = col;
    result.rows_total += 1;
    const problem = mapListingRow((key) => (row.fields[index.get(key) ?? -1] ?? '').trim(), row.line, result);
    if (problem) reject(result, row.line, problem);
  }
  if (col === null) throw fileError(file, 'listing-csv', 'empty file');
  return result;
}

/** Loader for plain stock master lists. */
export const listingCsvLoader: Loader = {
  format: 'listing-csv',
  description: 'stock master list: Code, Name, Market, Sector, Industry, ListingDate, Shares[, NameEnglish]',
  detect(_fileName, head) {
    const cols = sniffHeader(head).map(looseKey);
    return REQUIRED.every((c) => cols.includes(c));
  },
  parse(text, file, options) {
    return enforceBadRowLimit(parseListing(text, file), options);
  },
};
