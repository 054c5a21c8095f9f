/**
 * `dart-json`: OpenDART fnlttSinglAcntAll responses (`{status, message, list:[…]}`,
 * or a JSON array of such responses, e.g. one year's four reports). Accounts
 * are mapped as documented in dart-mapping.ts. The result carries:
 * - `financial_reports`: every mapped amount as filed, per (bsns_year, reprt_code).
 *   Storage keeps them and derives the quarters of a year from all its reports
 *   loaded so far, so one report per file (how the API returns them) works in any
 *   order (daemon/kernel/financial-reports.ts);
 * - `financials`: the quarters derivable from this file alone —
 *   Q1/Q2/Q3 flow items: the report's three-month thstrm_amount;
 *   Q4 flow items: annual − (Q1 + Q2 + Q3), or annual − Q3's year-to-date
 *   thstrm_add_amount when given; null when neither is in the file;
 *   cash-flow items: this report's year-to-date − the previous report's;
 *   balance-sheet items: as reported at the quarter end.
 * The stock code comes from the option, else a `stock_code` field, else the file name.
 * "line" in a rejection is the item's 1-based position across all lists; an item
 * repeating an account already taken from the same report is skipped.
 */
import { deriveQuarters, type ReportedAmount } from '../daemon/kernel/financial-reports.js';
import { matchAccount, REPORT_QUARTER } from './dart-mapping.js';
import type { AccountRule } from './dart-mapping.js';
import { codeFromFileName, parseNumber } from './fields.js';
import { checkPeriod } from './financials-csv.js';
import { addRecord, emptyResult, enforceBadRowLimit, fileError, reject, skip } from './result.js';
import type { LoadOptions, LoadResult, Loader } from './types.js';
import { checkCode } from './validate.js';

/** The fields of one fnlttSinglAcntAll list item that the loader reads. */
export interface DartItem {
  reprt_code?: string; bsns_year?: string; sj_div?: string; account_id?: string; account_nm?: string;
  thstrm_amount?: string; thstrm_add_amount?: string; stock_code?: string;
}

/** One mapped account of one report, with the position of the item it came from. */
interface Filed { rule: AccountRule; amount: number; ytd: number | null; byId: boolean; line: number }
/** Reports of one issue keyed `${year}-${quarter}`, each field → the item used. */
type DartReports = Map<string, Map<AccountRule, Filed>>;

const NOT_USED = 'account not used by the service';
const DUPLICATE = 'account given twice in one report (the first, or the one with the standard account id, is used)';

interface DartResponse { status?: string; message?: string; list?: DartItem[] }

function responses(text: string, file: string): DartResponse[] {
  let parsed: unknown;
  try { parsed = JSON.parse(text); } catch (e) {
    throw fileError(file, 'dart-json', `not valid JSON: ${(e as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.filter((r): r is DartResponse => typeof r === 'object' && r !== null);
}

/** Collects mapped items into reports; counts/rejects the rest (a row either yields an amount, or is skipped or rejected). */
function collect(items: DartItem[], result: LoadResult, reports: DartReports, offset: number): void {
  items.forEach((item, i) => {
    const line = offset + i + 1;
    result.rows_total += 1;
    const quarter = REPORT_QUARTER[item.reprt_code ?? ''];
    const year = Number(item.bsns_year);
    if (quarter === undefined || checkPeriod(year, quarter)) {
      reject(result, line, `unknown report ${JSON.stringify(item.reprt_code)} / year ${JSON.stringify(item.bsns_year)}`);
      return;
    }
    const match = matchAccount(item.sj_div ?? '', item.account_id ?? '', item.account_nm ?? '');
    if (!match) { skip(result, NOT_USED); return; }
    const amount = parseNumber(item.thstrm_amount);
    const ytd = parseNumber(item.thstrm_add_amount);
    if (amount === null || Number.isNaN(amount) || Number.isNaN(ytd)) {
      reject(result, line, `non-numeric amount ${JSON.stringify(item.thstrm_amount)} for ${match.rule.field}`);
      return;
    }
    const key = `${year}-${quarter}`;
    const report = reports.get(key) ?? new Map<AccountRule, Filed>();
    reports.set(key, report);
    const known = report.get(match.rule);
    // An id match beats a name match; otherwise the first item (IS before CIS) wins. The other is a duplicate.
    if (known && (known.byId || !match.byId)) { skip(result, DUPLICATE); return; }
    if (known) { skip(result, DUPLICATE); result.rows_ok -= 1; }
    report.set(match.rule, { rule: match.rule, amount, ytd, byId: match.byId, line });
    result.rows_ok += 1;
  });
}

/** The collected reports as filed amounts of `code`, each with its item's position. */
function filedAmounts(code: string, reports: DartReports, result: LoadResult): void {
  for (const [key, report] of [...reports.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const [year, quarter] = key.split('-').map(Number) as [number, number];
    for (const f of report.values()) {
      const amount: ReportedAmount = { stock_code: code, fiscal_year: year, fiscal_quarter: quarter, field: f.rule.field, kind: f.rule.kind, amount: f.amount, ytd: f.ytd };
      addRecord(result, 'financial_reports', amount, f.line);
    }
  }
}

function parseDart(text: string, file: string, options: LoadOptions): LoadResult {
  const result = emptyResult('dart-json', file);
  const reports: DartReports = new Map();
  let code = options.code ?? null;
  for (const response of responses(text, file)) {
    if (response.status === '013') continue; // "조회된 데이타가 없습니다": no filing, not an error
    if (response.status !== '000' || !Array.isArray(response.list)) {
      throw fileError(file, 'dart-json', `OpenDART status ${String(response.status)}: ${String(response.message ?? 'no list')}`);
    }
    code ??= response.list.find((item) => item.stock_code)?.stock_code ?? null;
    collect(response.list, result, reports, result.rows_total);
  }
  code ??= codeFromFileName(file);
  if (code === null) throw fileError(file, 'dart-json', 'no stock code: pass code or name the file after it (e.g. 005930_2025.json)');
  const problem = checkCode(code);
  if (problem) throw fileError(file, 'dart-json', problem);
  filedAmounts(code, reports, result);
  // Quarters from this file alone (storage derives them again against reports loaded earlier).
  const firstLine = new Map<string, number>();
  result.financial_reports.forEach((a, i) => {
    const key = `${a.fiscal_year}-${a.fiscal_quarter}`;
    firstLine.set(key, Math.min(firstLine.get(key) ?? Infinity, result.lines.financial_reports[i] ?? Infinity));
  });
  for (const fq of deriveQuarters(result.financial_reports)) {
    addRecord(result, 'financials', fq, firstLine.get(`${fq.fiscal_year}-${fq.fiscal_quarter}`) ?? 0);
  }
  return result;
}

/** Loader for OpenDART fnlttSinglAcntAll JSON responses. */
export const dartJsonLoader: Loader = {
  format: 'dart-json',
  description: 'OpenDART fnlttSinglAcntAll responses (one response or an array of them)',
  detect(_fileName, head) {
    const start = head.trimStart();
    return (start.startsWith('{') || start.startsWith('[')) && /"status"\s*:/.test(head) && !/"kind"\s*:/.test(head);
  },
  parse(text, file, options) {
    return enforceBadRowLimit(parseDart(text, file, options), options);
  },
};
