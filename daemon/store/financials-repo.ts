/**
 * Quarterly financial statements repository, plus the statement amounts as filed
 * (OpenDART reports) that quarters are derived from across files.
 */
import type { ReportedAmount } from '../kernel/financial-reports.js';
import { OPTIONAL_FINANCIAL_FIELDS, type FinancialQuarter } from '../kernel/records.js';
import { bulkUpsert } from './bulk.js';
import type { Db, Queryable } from './db.js';
import { LIVE_TABLES, type MarketTableNames } from './market-tables.js';

const COLUMNS = [
  'stock_code', 'fiscal_year', 'fiscal_quarter', 'revenue', 'operating_profit', 'net_profit', 'total_assets', 'equity',
  ...OPTIONAL_FINANCIAL_FIELDS, 'disclosed_on',
] as const;
const REPORT_COLUMNS = ['stock_code', 'fiscal_year', 'fiscal_quarter', 'field', 'kind', 'amount', 'ytd'] as const;

/** Financials repository. */
export interface FinancialsRepo {
  /**
   * Insert or update quarters. A null field never overwrites a stored value (a blank
   * cell, or a figure that could not be derived, is "unknown", not "clear it").
   */
  upsert(q: Queryable, rows: readonly FinancialQuarter[]): Promise<number>;
  /** Newest first. */
  forStock(code: string, limit: number): Promise<FinancialQuarter[]>;
  /** Every stock's quarters, oldest first (only `codes` when given). */
  all(codes?: readonly string[]): Promise<Map<string, FinancialQuarter[]>>;
  /** Stored quarters of the given `code|year` keys, read in `q`. */
  quartersOf(q: Queryable, years: ReadonlySet<string>): Promise<FinancialQuarter[]>;
  /** Insert or replace filed amounts (one per stock, year, quarter, field). */
  upsertReports(q: Queryable, amounts: readonly ReportedAmount[]): Promise<number>;
  /** Stored filed amounts of the given `code|year` keys, read in `q`. */
  reportsOf(q: Queryable, years: ReadonlySet<string>): Promise<ReportedAmount[]>;
}

/** The distinct codes of `code|year` keys. */
function codesOf(years: ReadonlySet<string>): string[] {
  return [...new Set([...years].map((k) => k.slice(0, k.indexOf('|'))))];
}

/** Create the financials repository. */
export function createFinancialsRepo(db: Db, t: MarketTableNames = LIVE_TABLES): FinancialsRepo {
  const inYears = <T extends { stock_code: string; fiscal_year: number }>(rows: T[], years: ReadonlySet<string>) =>
    rows.filter((r) => years.has(`${r.stock_code}|${r.fiscal_year}`));
  return {
    upsert: (q, rows) =>
      bulkUpsert(
        q,
        { table: t.financials, columns: COLUMNS, key: ['stock_code', 'fiscal_year', 'fiscal_quarter'], keepStoredOverNull: true },
        rows.map((r) => COLUMNS.map((c) => r[c] ?? null)),
      ),
    forStock: (code, limit) =>
      db.all<FinancialQuarter>(`SELECT * FROM ${t.financials} WHERE stock_code = ? ORDER BY fiscal_year DESC, fiscal_quarter DESC LIMIT ?`, [code, limit]),
    async all(codes) {
      const rows = codes
        ? await db.all<FinancialQuarter>(`SELECT * FROM ${t.financials} WHERE ${db.dialect.inTextList('stock_code')} ORDER BY stock_code, fiscal_year, fiscal_quarter`, [db.dialect.textList(codes)])
        : await db.all<FinancialQuarter>(`SELECT * FROM ${t.financials} ORDER BY stock_code, fiscal_year, fiscal_quarter`);
      const out = new Map<string, FinancialQuarter[]>();
      for (const r of rows) {
        let list = out.get(r.stock_code);
        if (!list) out.set(r.stock_code, (list = []));
        list.push(r);
      }
      return out;
    },
    async quartersOf(q, years) {
      if (years.size === 0) return [];
      const rows = await q.all<FinancialQuarter>(`SELECT * FROM ${t.financials} WHERE ${q.dialect.inTextList('stock_code')}`, [q.dialect.textList(codesOf(years))]);
      return inYears(rows, years);
    },
    upsertReports: (q, amounts) =>
      bulkUpsert(
        q,
        { table: t.financial_reports, columns: REPORT_COLUMNS, key: ['stock_code', 'fiscal_year', 'fiscal_quarter', 'field'] },
        amounts.map((a) => REPORT_COLUMNS.map((c) => a[c])),
      ),
    async reportsOf(q, years) {
      if (years.size === 0) return [];
      const rows = await q.all<ReportedAmount>(`SELECT ${REPORT_COLUMNS.join(', ')} FROM ${t.financial_reports} WHERE ${q.dialect.inTextList('stock_code')}`, [q.dialect.textList(codesOf(years))]);
      return inYears(rows, years);
    },
  };
}
