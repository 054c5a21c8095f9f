/**
 * Financial statements as filed (OpenDART reports), and the derivation of
 * quarter-alone figures from them. A filing carries, per account:
 * - `flow` (P&L): Q1–Q3 reports the three months alone (and the year to date),
 *   the annual report the full year, so Q4 = annual − (Q1 + Q2 + Q3);
 * - `ytd` (cash flow): every report is year to date, so a quarter = its report −
 *   the previous report;
 * - `stock` (balance sheet): the value at the period end.
 *
 * Reports of one year usually arrive in separate files (the API returns one report
 * per request), so the amounts are kept as filed and a quarter is derived from
 * every report of its year known so far; where a report is missing, the stored
 * quarter-alone figures stand in for it (e.g. statements loaded from a CSV).
 * Pure functions, no I/O.
 */
import type { FinancialQuarter } from './records.js';

/** A numeric field of FinancialQuarter. */
export type FinancialField = Exclude<keyof FinancialQuarter, 'stock_code' | 'fiscal_year' | 'fiscal_quarter' | 'disclosed_on'>;

/** How a filed amount relates to the quarter it closes (see the file comment). */
export type ReportedKind = 'flow' | 'ytd' | 'stock';

/** One account of one filed report. */
export interface ReportedAmount {
  stock_code: string;
  fiscal_year: number;
  /** The quarter the report closes: 1–3 quarterly reports, 4 the annual report. */
  fiscal_quarter: number;
  field: FinancialField;
  kind: ReportedKind;
  /** As filed: flow Q1–Q3 three months, flow Q4 the full year; ytd year to date; stock at the period end. */
  amount: number;
  /** flow Q1–Q3: the year to date when the filing gives it, else null. */
  ytd: number | null;
}

const QUARTER_FIELDS: readonly FinancialField[] = [
  'revenue', 'operating_profit', 'net_profit', 'total_assets', 'equity', 'gross_profit', 'operating_cash_flow',
  'total_liabilities', 'current_assets', 'current_liabilities', 'long_term_debt', 'cash', 'retained_earnings',
  'shares_outstanding', 'dividends_per_share',
];

/** A FinancialQuarter with every value null. */
export function emptyQuarter(code: string, year: number, quarter: number): FinancialQuarter {
  const fq = { stock_code: code, fiscal_year: year, fiscal_quarter: quarter } as FinancialQuarter;
  for (const f of QUARTER_FIELDS) fq[f] = null;
  return fq;
}

const periodKey = (code: string, year: number, quarter: number) => `${code}|${year}|${quarter}`;

/** The (code, year) pairs that `amounts` touch, as `code|year` keys. */
export function reportYears(amounts: readonly { stock_code: string; fiscal_year: number }[]): Set<string> {
  return new Set(amounts.map((a) => `${a.stock_code}|${a.fiscal_year}`));
}

/**
 * Quarter-alone statements for every (code, year, quarter) that has at least one
 * filed amount. A field stays null when it cannot be derived (e.g. Q4 revenue
 * without the first three quarters, filed or stored): storage keeps what it has.
 * `stored` are quarters already in storage, used where a report is missing.
 */
export function deriveQuarters(amounts: readonly ReportedAmount[], stored: readonly FinancialQuarter[] = []): FinancialQuarter[] {
  const filed = new Map<string, Map<FinancialField, ReportedAmount>>();
  for (const a of amounts) {
    const key = periodKey(a.stock_code, a.fiscal_year, a.fiscal_quarter);
    let fields = filed.get(key);
    if (!fields) filed.set(key, (fields = new Map()));
    fields.set(a.field, a);
  }
  const storedBy = new Map(stored.map((q) => [periodKey(q.stock_code, q.fiscal_year, q.fiscal_quarter), q]));
  const get = (code: string, year: number, quarter: number, field: FinancialField) => filed.get(periodKey(code, year, quarter))?.get(field);
  const storedValue = (code: string, year: number, quarter: number, field: FinancialField) => storedBy.get(periodKey(code, year, quarter))?.[field] ?? null;

  /** Year to date through `quarter` of a cash-flow field: filed, else built from stored quarters. */
  const ytdThrough = (code: string, year: number, quarter: number, field: FinancialField): number | null => {
    if (quarter === 0) return 0;
    const own = get(code, year, quarter, field);
    if (own) return own.amount;
    const before = ytdThrough(code, year, quarter - 1, field);
    const alone = storedValue(code, year, quarter, field);
    return before !== null && alone !== null ? before + alone : null;
  };

  const value = (a: ReportedAmount): number | null => {
    const { stock_code: code, fiscal_year: year, fiscal_quarter: quarter, field } = a;
    if (a.kind === 'stock') return a.amount;
    if (a.kind === 'ytd') {
      const before = ytdThrough(code, year, quarter - 1, field);
      return before === null ? null : a.amount - before;
    }
    if (quarter < 4) return a.amount;
    const q3 = get(code, year, 3, field);
    if (q3?.ytd != null) return a.amount - q3.ytd;
    const parts = [1, 2, 3].map((q) => get(code, year, q, field)?.amount ?? storedValue(code, year, q, field));
    return parts.every((p) => p !== null) ? a.amount - parts.reduce<number>((s, p) => s + (p ?? 0), 0) : null;
  };

  const out: FinancialQuarter[] = [];
  for (const [key, fields] of [...filed.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const [code, year, quarter] = key.split('|') as [string, string, string];
    const fq = emptyQuarter(code, Number(year), Number(quarter));
    for (const a of fields.values()) fq[a.field] = value(a);
    out.push(fq);
  }
  return out;
}
