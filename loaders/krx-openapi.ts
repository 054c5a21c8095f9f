/**
 * `krx-openapi`: answers of the KRX Open API (openapi.krx.co.kr, served from
 * data-dbg.krx.co.kr/svc/apis/…): `{"OutBlock_1": [ … ]}` with every value a string.
 *
 * - Daily trades (`sto/stk_bydd_trd`, `sto/ksq_bydd_trd`): BAS_DD, ISU_CD (the 6-character
 *   short code), ISU_NM, MKT_NM, SECT_TP_NM (소속부), TDD_CLSPRC, CMPPREVDD_PRC, FLUC_RT,
 *   TDD_OPNPRC, TDD_HGPRC, TDD_LWPRC, ACC_TRDVOL, ACC_TRDVAL, MKTCAP, LIST_SHRS. These are the
 *   columns of the portal's all-issue quote table that the FinanceDataReader cache copies
 *   (Code, Name, Market, Dept, Close, …, Stocks), so a row is mapped by the same code as a
 *   `fdr-listing` / `krx-quotes` row (quote-rows.ts): same bars, halts, flags, designations.
 * - Issue base info (`sto/stk_isu_base_info`, `sto/ksq_isu_base_info`): ISU_CD (ISIN),
 *   ISU_SRT_CD, ISU_NM, ISU_ABBRV, ISU_ENG_NM, LIST_DD, MKT_TP_NM, SECUGRP_NM, SECT_TP_NM,
 *   KIND_STKCERT_TP_NM, PARVAL, LIST_SHRS: kept are the listing date and the English name.
 * - Index series (`idx/kospi_dd_trd`, `idx/kosdaq_dd_trd`): BAS_DD, IDX_CLSS, IDX_NM,
 *   CLSPRC_IDX, CMPPREVDD_IDX, FLUC_RT, OPNPRC_IDX, HGPRC_IDX, LWPRC_IDX, ACC_TRDVOL,
 *   ACC_TRDVAL, MKTCAP: one row per index of the family; the composite is `코스피` / `코스닥`.
 *
 * Field names as documented by KRX's Open API service pages and public clients
 * (kgcrom/cluefin `cluefin_openapi/krx/_stock_types.py`, `_index_types.py`).
 */
import type { IndexBar, Market } from '../daemon/kernel/records.js';
import { mapMarket, normalizeDate, parseNumber } from './fields.js';
import { parseQuoteRecords, type QuoteColumnNames } from './quote-rows.js';
import { enforceBadRowLimit, fileError } from './result.js';
import type { LoadResult, Loader, StockUpdate } from './types.js';
import { checkIndexBar } from './validate.js';

/** The daily-trade fields, by the quote row's logical column. */
export const KRX_TRADE_COLUMNS: QuoteColumnNames = {
  code: 'ISU_CD', name: 'ISU_NM', market: 'MKT_NM', dept: 'SECT_TP_NM', close: 'TDD_CLSPRC', open: 'TDD_OPNPRC',
  high: 'TDD_HGPRC', low: 'TDD_LWPRC', volume: 'ACC_TRDVOL', amount: 'ACC_TRDVAL', marcap: 'MKTCAP', stocks: 'LIST_SHRS',
};

/** The composite index's IDX_NM in each family's answer. */
export const KRX_COMPOSITE_NAMES: Readonly<Record<Market, string>> = { KOSPI: '코스피', KOSDAQ: '코스닥' };

/** YYYYMMDD of a YYYY-MM-DD date (the API's `basDd` and `BAS_DD`). */
export function basDd(date: string): string {
  return date.replaceAll('-', '');
}

/**
 * The rows of an answer. @throws AppError INVALID_REQUEST when the body is not `{"OutBlock_1": [...]}`
 */
export function outBlock(answer: unknown, file: string): unknown[] {
  const rows = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>).OutBlock_1 : undefined;
  if (!Array.isArray(rows)) throw fileError(file, 'krx-openapi', 'not a KRX Open API answer (no OutBlock_1 array)');
  return rows;
}

/**
 * One market's daily trades of `tradeDate` (rows of another BAS_DD are rejected). The 5% rule is
 * left to the caller, who decides it over the whole date. @throws AppError INVALID_REQUEST for a body that is no answer
 */
export function parseKrxTrades(answer: unknown, file: string, tradeDate: string): LoadResult {
  const want = basDd(tradeDate);
  return parseQuoteRecords(outBlock(answer, file), file, 'krx-openapi', KRX_TRADE_COLUMNS, tradeDate, (r) =>
    r.BAS_DD === undefined || r.BAS_DD === want ? null : `BAS_DD ${JSON.stringify(r.BAS_DD)} is not ${want}`);
}

/**
 * The composite index of `market` on `tradeDate` from an index-family answer.
 * @throws AppError INVALID_REQUEST when the composite's row is missing or invalid
 */
export function parseKrxIndex(answer: unknown, file: string, market: Market, tradeDate: string): IndexBar {
  const name = KRX_COMPOSITE_NAMES[market];
  const row = outBlock(answer, file).find((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && (r as Record<string, unknown>).IDX_NM === name);
  if (!row) throw fileError(file, 'krx-openapi', `no ${name} (${market} composite) row`);
  const text = (k: string): string | undefined => (typeof row[k] === 'string' ? (row[k] as string) : undefined);
  if (row.BAS_DD !== undefined && row.BAS_DD !== basDd(tradeDate)) throw fileError(file, 'krx-openapi', `${name}: BAS_DD ${String(row.BAS_DD)} is not ${basDd(tradeDate)}`);
  const bar: IndexBar = {
    market, trade_date: tradeDate,
    open: parseNumber(text('OPNPRC_IDX')), high: parseNumber(text('HGPRC_IDX')), low: parseNumber(text('LWPRC_IDX')),
    close: parseNumber(text('CLSPRC_IDX')) ?? Number.NaN, volume: parseNumber(text('ACC_TRDVOL')), trading_value: parseNumber(text('ACC_TRDVAL')),
  };
  const problem = [bar.open, bar.high, bar.low, bar.volume, bar.trading_value].some((v) => Number.isNaN(v)) ? 'non-numeric value' : checkIndexBar(bar);
  if (problem) throw fileError(file, 'krx-openapi', `${name}: ${problem}`);
  return bar;
}

/**
 * Listing dates and English names of an issue base-info answer (KOSPI/KOSDAQ issues; blank
 * values are unknown, not cleared). Rows without a usable short code are passed over.
 * @throws AppError INVALID_REQUEST for a body that is no answer
 */
export function parseKrxBaseInfo(answer: unknown, file: string): StockUpdate[] {
  const updates: StockUpdate[] = [];
  for (const row of outBlock(answer, file)) {
    if (typeof row !== 'object' || row === null) continue;
    const r = row as Record<string, unknown>;
    const str = (k: string): string => (typeof r[k] === 'string' ? (r[k] as string).trim() : '');
    const code = str('ISU_SRT_CD');
    const market = mapMarket(str('MKT_TP_NM'));
    if (!/^[0-9A-Z]{6}$/.test(code) || market === null || market === 'KONEX') continue;
    const update: StockUpdate = { code };
    const listed = normalizeDate(str('LIST_DD'));
    if (listed) update.listing_date = listed;
    if (str('ISU_ENG_NM') !== '') update.name_english = str('ISU_ENG_NM');
    if (Object.keys(update).length > 1) updates.push(update);
  }
  return updates;
}

/** A saved daily-trades answer read as a file: the trade date from the option, else the rows' BAS_DD. */
export const krxOpenApiLoader: Loader = {
  format: 'krx-openapi',
  description: 'KRX Open API daily-trades answer saved as JSON ({"OutBlock_1": [...]}, sto/stk_bydd_trd or sto/ksq_bydd_trd)',
  detect(_fileName, head) {
    return /"OutBlock_1"/.test(head) && /"TDD_CLSPRC"/.test(head);
  },
  parse(text, file, options) {
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch (err) {
      throw fileError(file, 'krx-openapi', `invalid JSON: ${(err as Error).message}`);
    }
    const first = outBlock(answer, file)[0] as Record<string, unknown> | undefined;
    const date = options.tradeDate ?? normalizeDate(typeof first?.BAS_DD === 'string' ? first.BAS_DD : undefined);
    if (!date) throw fileError(file, 'krx-openapi', 'no trade date: give one or keep BAS_DD in the rows');
    return enforceBadRowLimit(parseKrxTrades(answer, file, date), options);
  },
};
