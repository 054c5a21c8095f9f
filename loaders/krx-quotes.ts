/**
 * `krx-quotes`: the KRX data portal's 전종목 시세 CSV (Korean headers; EUC-KR/CP949
 * or UTF-8 with or without BOM — decoding happens before `parse`). The trade
 * date comes from the option or the file name (any YYYYMMDD or YYYY-MM-DD).
 */
import { sniffHeader } from './csv.js';
import { parseQuoteFile } from './quote-rows.js';
import type { QuoteColumnNames } from './quote-rows.js';
import type { Loader } from './types.js';

const COLUMNS: QuoteColumnNames = {
  code: '종목코드', name: '종목명', market: '시장구분', dept: '소속부', close: '종가', open: '시가', high: '고가',
  low: '저가', volume: '거래량', amount: '거래대금', marcap: '시가총액', stocks: '상장주식수',
};

/** Loader for the KRX website's all-issue daily quotes export. */
export const krxQuotesLoader: Loader = {
  format: 'krx-quotes',
  description: 'KRX data portal 전종목 시세 CSV (Korean headers, EUC-KR or UTF-8)',
  detect(_fileName, head) {
    const cols = sniffHeader(head);
    return ['종목코드', '종목명', '종가', '시가', '고가', '저가', '거래량'].every((c) => cols.includes(c));
  },
  parse(text, file, options) {
    return parseQuoteFile(text, file, 'krx-quotes', COLUMNS, options);
  },
};
