/**
 * OpenDART's key accounts of many companies (fnlttMultiAcnt.json, 다중회사 주요계정): one call per
 * report period for up to 100 corp codes (comma-separated), answering
 * `{"status":"000","message":"정상","list":[{rcept_no, bsns_year, corp_code, stock_code, reprt_code,
 * account_nm, fs_div, fs_nm, sj_div, sj_nm, thstrm_nm, thstrm_dt, thstrm_amount, thstrm_add_amount, …}]}`,
 * amounts as strings with commas. Quarterly reports give the three months in thstrm_amount and the
 * year to date in thstrm_add_amount; the annual report the year. A company with consolidated
 * statements answers both CFS (연결) and OFS (별도) items: the consolidated ones are used, the
 * separate ones only for a company without consolidated statements. rcept_no's first eight digits
 * are the receipt date — when the market learned the figures, from which as-of screens may use them.
 *
 * Each company's items become one response of the dart-json loader's shape, so the accounts are
 * mapped exactly as an OpenDART file load maps them (loaders/dart-mapping.ts, matched by name: key
 * accounts carry no account_id). Full statements (fnlttSinglAcntAll.json, one company and one
 * division per call, items with account_id: every account, the cash-flow statement included)
 * take the place of a period's key accounts when fetched.
 */
import { createHash } from 'node:crypto';
import { parseFile } from '../../../loaders/registry.js';
import type { LoadResult } from '../../../loaders/types.js';
import { period, type ReportPeriod } from './periods.js';

/** One item of a key-accounts answer (the fields read). */
export interface KeyAccountItem {
  rcept_no?: string;
  bsns_year?: string;
  corp_code?: string;
  stock_code?: string;
  reprt_code?: string;
  /** Full statements only (the IFRS/DART taxonomy id); key accounts have none. */
  account_id?: string;
  account_nm?: string;
  /** Key accounts answer it per item; full statements are asked for one division (the caller sets it). */
  fs_div?: string;
  sj_div?: string;
  thstrm_amount?: string;
  thstrm_add_amount?: string;
}

/** The receipt date (YYYY-MM-DD) of a rcept_no (14 digits: YYYYMMDD + a serial), or null. */
export function receiptDate(rceptNo: string | undefined): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})\d{6}$/.exec(rceptNo ?? '');
  if (!m) return null;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  const t = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== date ? null : date;
}

/** The items of one company and one report: consolidated when it has them, else separate. */
function preferredStatements(items: readonly KeyAccountItem[]): KeyAccountItem[] {
  return items.some((i) => i.fs_div === 'CFS') ? items.filter((i) => i.fs_div === 'CFS') : items.filter((i) => i.fs_div === 'OFS');
}

/** One company's items across the periods of a run, as answered (per period, in the API's order). */
export type CompanyItems = Map<string, KeyAccountItem[]>;

/** The key of a period in CompanyItems. */
export function periodKey(p: ReportPeriod): string {
  return `${p.year}-${p.reprt_code}`;
}

/** Group an answer's items by corp_code into `into` under the period's key. */
export function groupByCompany(items: readonly KeyAccountItem[], p: ReportPeriod, into: Map<string, CompanyItems>): void {
  const key = periodKey(p);
  for (const item of items) {
    // An item of another report or year than asked for is not this period's.
    if (!item.corp_code || item.reprt_code !== p.reprt_code || item.bsns_year !== String(p.year)) continue;
    let company = into.get(item.corp_code);
    if (!company) into.set(item.corp_code, (company = new Map()));
    let list = company.get(key);
    if (!list) company.set(key, (list = []));
    list.push(item);
  }
}

/** Full statements joined to a company's key accounts (daemon/sources/dart/full-statements.ts). */
export interface FullStatements {
  /** The full statements fetched in this run, by period key: they replace that period's key accounts. */
  fetched: ReadonlyMap<string, KeyAccountItem[]>;
  /** Every company-quarter whose full statement is in (fetched now or before) → its receipt number. */
  inEffect: ReadonlyMap<string, string>;
}

/**
 * One company's statements from its key accounts and full statements: the filed amounts and the
 * quarters derivable from them, each quarter with the receipt date of the report it comes from
 * (Q4: the annual report's), and a hash of what was answered (equal hashes: nothing changed). The
 * hash covers the key accounts and the receipt numbers of the full statements in effect, not
 * their items: a run that does not fetch a full statement again (its receipt number is known)
 * hashes the same as the run that fetched it.
 * @throws AppError INVALID_REQUEST when more than 5 % of its mapped items are malformed (the loaders' rule)
 */
export function companyStatements(stockCode: string, corpCode: string, company: CompanyItems | undefined, full?: FullStatements): { batch: LoadResult; hash: string } {
  const hash = createHash('sha256').update(`${stockCode}|${corpCode}\0`);
  for (const key of [...(company?.keys() ?? [])].sort()) {
    for (const item of preferredStatements(company!.get(key)!)) {
      hash.update(JSON.stringify([item.rcept_no, item.bsns_year, item.reprt_code, item.fs_div, item.sj_div, item.account_id, item.account_nm, item.thstrm_amount, item.thstrm_add_amount])).update('\n');
    }
  }
  for (const [key, rcept] of [...(full?.inEffect ?? new Map<string, string>()).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) hash.update(`full|${key}|${rcept}\n`);
  const merged: CompanyItems = new Map(company ?? []);
  for (const [key, items] of full?.fetched ?? []) if (items.length > 0) merged.set(key, items);
  const list: KeyAccountItem[] = [];
  const disclosed = new Map<string, string>();
  for (const key of [...merged.keys()].sort()) {
    const chosen = preferredStatements(merged.get(key)!);
    for (const item of chosen) list.push({ ...item, stock_code: stockCode });
    const first = chosen.find((i) => receiptDate(i.rcept_no) !== null);
    if (first) disclosed.set(`${first.bsns_year}-${first.reprt_code}`, receiptDate(first.rcept_no)!);
  }
  const file = `dart:fnlttMultiAcnt:${stockCode}`;
  const batch = parseFile(JSON.stringify({ status: list.length > 0 ? '000' : '013', message: '', list }), file, { code: stockCode }, 'dart-json');
  for (const q of batch.financials) {
    const on = disclosed.get(`${q.fiscal_year}-${period(q.fiscal_year, q.fiscal_quarter as 1 | 2 | 3 | 4).reprt_code}`);
    if (on) q.disclosed_on = on;
  }
  return { batch, hash: hash.digest('hex') };
}
