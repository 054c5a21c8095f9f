/**
 * OpenDART's report periods: a business year and a report code (11013 Q1, 11012 half year,
 * 11014 Q3, 11011 the annual report), and which of them a run fetches.
 */
import { REPORT_QUARTER } from '../../../loaders/dart-mapping.js';

/** One periodic report of a business year. */
export interface ReportPeriod {
  year: number;
  quarter: 1 | 2 | 3 | 4;
  /** OpenDART's reprt_code. */
  reprt_code: string;
}

/** The first business year OpenDART's statement services serve. */
export const DART_FIRST_YEAR = 2015;

const CODE_OF: Record<number, string> = Object.fromEntries(Object.entries(REPORT_QUARTER).map(([code, q]) => [q, code]));
const END_OF: Record<number, string> = { 1: '03-31', 2: '06-30', 3: '09-30', 4: '12-31' };

/** The period of `year`'s `quarter`. */
export function period(year: number, quarter: 1 | 2 | 3 | 4): ReportPeriod {
  return { year, quarter, reprt_code: CODE_OF[quarter]! };
}

/** The last day of the period (YYYY-MM-DD), for a December fiscal year. */
export function periodEnd(p: ReportPeriod): string {
  return `${p.year}-${END_OF[p.quarter]!}`;
}

function previous(p: ReportPeriod): ReportPeriod {
  return p.quarter === 1 ? period(p.year - 1, 4) : period(p.year, (p.quarter - 1) as 1 | 2 | 3);
}

/**
 * The periods a run covers, oldest first: every quarter that ended before `to` and on or after
 * `from`, and at least the four most recent that ended before `to`. Beside each annual report
 * comes its year's Q3 report: Q4 alone is the annual figure less the Q3 report's year to date.
 * Years before OpenDART's first are left out.
 */
export function reportPeriods(from: string, to: string): ReportPeriod[] {
  const [y, m] = to.split('-').map(Number) as [number, number];
  // The quarter `to` falls in has not ended (a quarter's last day is not over before `to`).
  let p = previous(period(y, (Math.floor((m - 1) / 3) + 1) as 1 | 2 | 3 | 4));
  const chosen: ReportPeriod[] = [];
  while (p.year >= DART_FIRST_YEAR && (chosen.length < 4 || periodEnd(p) >= from)) {
    chosen.push(p);
    p = previous(p);
  }
  const key = (x: ReportPeriod) => `${x.year}-${x.quarter}`;
  const have = new Set(chosen.map(key));
  for (const annual of chosen.filter((x) => x.quarter === 4)) {
    const q3 = period(annual.year, 3);
    if (!have.has(key(q3)) && q3.year >= DART_FIRST_YEAR) {
      chosen.push(q3);
      have.add(key(q3));
    }
  }
  return chosen.sort((a, b) => a.year - b.year || a.quarter - b.quarter);
}

/**
 * The statutory deadline of a period's report (a December fiscal year): 45 days after a quarter's
 * end, 90 after the year's. After it, a listed company's missing report is not "not filed yet".
 */
export function reportDeadline(p: ReportPeriod): string {
  const end = Date.parse(`${periodEnd(p)}T00:00:00Z`);
  return new Date(end + (p.quarter === 4 ? 90 : 45) * 86_400_000).toISOString().slice(0, 10);
}
