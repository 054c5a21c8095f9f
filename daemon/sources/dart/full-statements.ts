/**
 * Which full statements (fnlttSinglAcntAll.json) one company needs in a run, and what its unit's
 * content is once they are in.
 *
 * The key accounts (fnlttMultiAcnt.json) give a hundred companies per call but only their fixed
 * accounts: no cash-flow statement, no cash, no borrowings, no gross profit. Those come from the
 * company's full statements, one call per company, report and division. Asking for them on every
 * run would cost the whole market's quarters every evening, so a full statement is asked for once
 * per disclosure: the key accounts name each report's receipt number (rcept_no), and a report
 * whose receipt number was fetched in full before (the run's ledger of company-quarters) is not
 * asked for again. A correction is filed under a new receipt number, so it is fetched in full once
 * too. A company the key accounts leave out (a financial company) has no receipt number to go by:
 * its report is asked for once it is due, until it is answered.
 */
import { periodKey, type CompanyItems, type KeyAccountItem } from './key-accounts.js';
import { reportDeadline, type ReportPeriod } from './periods.js';

/** What is known of one company-quarter's full statement from earlier runs: its ledger key → the receipt number fetched. */
export type FullLedger = ReadonlyMap<string, string>;

/** One full statement to ask for: the period, the divisions in the order to try, and the receipt number it answers for (null: not known before asking). */
export interface FullRequest {
  period: ReportPeriod;
  ledgerKey: string;
  divisions: readonly ('CFS' | 'OFS')[];
  rceptNo: string | null;
}

/** The ledger key of one company-quarter. */
export function ledgerKey(stockCode: string, p: ReportPeriod): string {
  return `${stockCode}:${periodKey(p)}`;
}

/** The receipt number and division of the statements the key accounts chose for a report, or null. */
function keyReport(items: readonly KeyAccountItem[] | undefined): { rceptNo: string; fsDiv: 'CFS' | 'OFS' } | null {
  if (!items || items.length === 0) return null;
  const fsDiv = items.some((i) => i.fs_div === 'CFS') ? 'CFS' : 'OFS';
  const rceptNo = items.find((i) => i.fs_div === fsDiv && i.rcept_no)?.rcept_no;
  return rceptNo ? { rceptNo, fsDiv } : null;
}

/**
 * The full statements a company needs in a run ending `to`, and the receipt numbers already in
 * effect (from the ledger) for the periods not asked for again.
 */
export function fullRequests(stockCode: string, periods: readonly ReportPeriod[], company: CompanyItems | undefined, ledger: FullLedger, to: string): { requests: FullRequest[]; inEffect: Map<string, string> } {
  const requests: FullRequest[] = [];
  const inEffect = new Map<string, string>();
  for (const p of periods) {
    const key = ledgerKey(stockCode, p);
    const known = ledger.get(key);
    const filed = keyReport(company?.get(periodKey(p)));
    if (filed) {
      if (known === filed.rceptNo) inEffect.set(key, known);
      // The division the key accounts answered first; the other only if that one has no full statement.
      else requests.push({ period: p, ledgerKey: key, divisions: filed.fsDiv === 'CFS' ? ['CFS', 'OFS'] : ['OFS', 'CFS'], rceptNo: filed.rceptNo });
    } else if (known !== undefined) inEffect.set(key, known);
    else if (reportDeadline(p) <= to) requests.push({ period: p, ledgerKey: key, divisions: ['CFS', 'OFS'], rceptNo: null });
  }
  return { requests, inEffect };
}

