/**
 * When a statement becomes usable in an as-of screen. A loaded disclosure date wins;
 * without one, the statutory deadline of the Financial Investment Services and Capital Markets
 * Act (자본시장법 §159-160): a quarterly or half-year report within 45 days of the quarter's
 * end, the annual report within 90 days of the fiscal year's end.
 */

/** Days after a quarter's end (Q1–Q3) a quarterly report is due. */
export const QUARTER_REPORT_DAYS = 45;
/** Days after the fiscal year's end the annual report (Q4) is due. */
export const ANNUAL_REPORT_DAYS = 90;

/**
 * The last day of fiscal quarter `quarter` of `fiscalYear` (YYYY-MM-DD). The fiscal year ends in
 * `settleMonth` (default December) of `fiscalYear`; quarter k ends 3·(4−k) months earlier.
 */
export function quarterEnd(fiscalYear: number, quarter: number, settleMonth: number | null = 12): string {
  const month0 = (settleMonth ?? 12) - 3 * (4 - quarter); // 1-based month, may be ≤ 0
  const year = month0 <= 0 ? fiscalYear - 1 : fiscalYear;
  const month = month0 <= 0 ? month0 + 12 : month0;
  const last = new Date(Date.UTC(year, month, 0)); // day 0 of the next month = last day of `month`
  return last.toISOString().slice(0, 10);
}

/**
 * Deadlines computed so far, by year, quarter and settlement month: reading the history asks for
 * one per stored statement (tens of thousands, a few hundred distinct), and the date arithmetic
 * was a quarter of that read's time on the daemon's thread. A few entries per fiscal year.
 */
const deadlines = new Map<string, string>();

/** The statutory disclosure deadline of a quarter's statement (see the file comment). */
export function disclosureDeadline(fiscalYear: number, quarter: number, settleMonth: number | null = 12): string {
  const key = `${fiscalYear}|${quarter}|${settleMonth ?? 12}`;
  const known = deadlines.get(key);
  if (known !== undefined) return known;
  const end = new Date(`${quarterEnd(fiscalYear, quarter, settleMonth)}T00:00:00Z`);
  end.setUTCDate(end.getUTCDate() + (quarter === 4 ? ANNUAL_REPORT_DAYS : QUARTER_REPORT_DAYS));
  const deadline = end.toISOString().slice(0, 10);
  // Bounded by what is stored: years times quarters times twelve months, unless asked for nonsense.
  if (deadlines.size < 10_000) deadlines.set(key, deadline);
  return deadline;
}
