/**
 * `fdr-listing`: the FinanceDataReader KRX cache's daily all-issue quotes
 * (`listing/YYYY-MM-DD.csv`; UTF-8 BOM, a leading unnamed index column). Row
 * handling is shared with the KRX website export, see quote-rows.ts.
 */
import { sniffHeader } from './csv.js';
import { parseQuoteFile } from './quote-rows.js';
import type { QuoteColumnNames } from './quote-rows.js';
import type { Loader } from './types.js';

const COLUMNS: QuoteColumnNames = {
  code: 'Code', name: 'Name', market: 'Market', dept: 'Dept', close: 'Close', open: 'Open', high: 'High',
  low: 'Low', volume: 'Volume', amount: 'Amount', marcap: 'Marcap', stocks: 'Stocks',
};

/** Loader for FinanceDataReader `listing/*.csv` quote files; the trade date comes from the file name unless given. */
export const fdrListingLoader: Loader = {
  format: 'fdr-listing',
  description: 'FinanceDataReader KRX daily all-issue quotes (listing/YYYY-MM-DD.csv)',
  detect(_fileName, head) {
    const cols = sniffHeader(head);
    return ['Code', 'ISU_CD', 'Name', 'Market', 'Close', 'Open', 'High', 'Low', 'Volume'].every((c) => cols.includes(c));
  },
  parse(text, file, options) {
    return parseQuoteFile(text, file, 'fdr-listing', COLUMNS, options);
  },
};
