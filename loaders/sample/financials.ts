/**
 * Eight quarters of statements per sample issue, with every optional field.
 * Sector profiles set margins, asset turnover, leverage and valuation; each
 * issue is one of four kinds: normal (profitable), loss (loss in every
 * quarter), turnaround (losses a year ago, profits in the latest four
 * quarters) or decline (the reverse). Equity rolls forward by net profit minus
 * dividends, so the balance sheet ties out (assets = liabilities + equity).
 */
import { addDays } from '../../daemon/kernel/krx-calendar.js';
import type { FinancialQuarter } from '../../daemon/kernel/records.js';
import { createRng } from './prng.js';
import type { Rng } from './prng.js';
import type { SampleIssue } from './universe.js';

/** A fiscal period (calendar quarters: every sample issue settles in December). */
export interface FiscalPeriod { year: number; quarter: number }

/** How an issue's profits develop over the eight quarters. */
export type FundamentalsKind = 'normal' | 'loss' | 'turnaround' | 'decline';

const QUARTER_END = ['03-31', '06-30', '09-30', '12-31'] as const;
const SEASONAL = [-0.03, 0, 0, 0.05] as const;

/**
 * The `count` most recent quarters reported by `endDate`, oldest first; a quarter
 * counts as reported 60 days after its end (the quarterly filing deadline is 45,
 * annual reports follow within 90).
 */
export function reportedQuarters(endDate: string, count = 8): FiscalPeriod[] {
  const out: FiscalPeriod[] = [];
  let year = Number(endDate.slice(0, 4));
  let quarter = 4;
  while (out.length < count) {
    if (addDays(`${year}-${QUARTER_END[quarter - 1]}`, 60) <= endDate) out.push({ year, quarter });
    quarter -= 1;
    if (quarter === 0) { quarter = 4; year -= 1; }
  }
  return out.reverse();
}

function pickKind(rng: Rng, issue: SampleIssue): FundamentalsKind {
  if (issue.record.is_administrative) return 'loss';
  const r = rng.next();
  const loss = issue.profile.lossProb;
  if (r < loss) return 'loss';
  if (r < loss + 0.06) return 'turnaround';
  if (r < loss + 0.1) return 'decline';
  return 'normal';
}

/** Operating margin of quarter k (0 = oldest of 8) for a kind. */
function margin(rng: Rng, kind: FundamentalsKind, k: number, base: number, bio: boolean): number {
  const profit = (): number => Math.max(0.004, base * (1 + 0.15 * rng.normal()));
  const loss = (): number => -(bio ? rng.uniform(0.3, 1.5) : rng.uniform(0.02, 0.25));
  if (kind === 'normal') return profit();
  if (kind === 'loss') return loss();
  const recent = k >= 4;
  return (kind === 'turnaround') === recent ? profit() : -rng.uniform(0.02, 0.15);
}

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/** Eight quarters for `issue` given its last close; [] for preferred classes (statements belong to the common issue). */
export function generateFinancials(seed: number | string, issue: SampleIssue, lastClose: number, periods: readonly FiscalPeriod[]): FinancialQuarter[] {
  if (issue.record.is_preferred) return [];
  const rng = createRng(seed, 'financials', issue.record.code);
  const p = issue.profile;
  const shares = issue.record.shares_outstanding ?? 1;
  const kind = pickKind(rng, issue);
  const equityLatest = (lastClose * shares) / (p.pbr * Math.exp(0.5 * rng.normal()) * (kind === 'loss' ? 1.3 : 1));
  const leverage = Math.max(1.05, p.leverage * Math.exp(0.15 * rng.normal()));
  const annualRevenue = equityLatest * leverage * p.turnover * Math.exp(0.3 * rng.normal());
  const growth = clamp(0.06 + 0.15 * rng.normal(), -0.4, 0.8);
  const baseMargin = Math.max(0.01, Math.abs(p.opMargin + p.opMarginSd * rng.normal()));
  const payer = (kind === 'normal' || kind === 'decline') && rng.chance(p.divProb);
  const quarterlyPayer = payer && issue.record.market === 'KOSPI' && lastClose * shares > 5e12 && rng.chance(0.5);
  const payout = rng.uniform(0.15, 0.45);
  const n = periods.length;

  const rev: number[] = []; const op: number[] = []; const net: number[] = []; const gross: number[] = [];
  periods.forEach((period, k) => {
    const r = (annualRevenue / 4) * (1 + growth) ** ((k - (n - 1)) / 4) * (1 + (SEASONAL[period.quarter - 1] ?? 0) + 0.04 * rng.normal());
    const m = margin(rng, kind, k, baseMargin, p.sector === '바이오');
    rev.push(r);
    op.push(r * m);
    net.push(m > 0 ? r * m * rng.uniform(0.6, 0.85) : r * m * rng.uniform(0.9, 1.3));
    gross.push(r * Math.max(p.grossMargin * (1 + 0.1 * rng.normal()), m + 0.05));
  });
  const dps = periods.map((period, k) => {
    if (!payer) return 0;
    if (quarterlyPayer) return Math.max(0, Math.round((payout * net[k]!) / shares / 5) * 5);
    if (period.quarter !== 4) return 0;
    const yearNet = net.slice(Math.max(0, k - 3), k + 1).reduce((a, b) => a + b, 0);
    return Math.max(0, Math.round((payout * yearNet) / shares / 5) * 5);
  });
  const equity = new Array<number>(n);
  equity[n - 1] = equityLatest;
  for (let k = n - 1; k > 0; k -= 1) equity[k - 1] = Math.max(1e8, equity[k]! - net[k]! + dps[k]! * shares);

  const paidIn = equityLatest * (kind === 'loss' ? rng.uniform(0.8, 1.6) : rng.uniform(0.1, 0.5));
  const caShare = rng.uniform(0.3, 0.6); const clShare = rng.uniform(0.35, 0.6); const ltdShare = rng.uniform(0.1, 0.3);
  const cashShare = rng.uniform(0.15, 0.45);
  return periods.map((period, k) => {
    const eq = Math.round(equity[k]!);
    const assets = Math.round(eq * leverage * (1 + 0.02 * rng.normal()));
    const liabilities = assets - eq;
    const currentAssets = Math.round(assets * caShare * (1 + 0.03 * rng.normal()));
    return {
      stock_code: issue.record.code, fiscal_year: period.year, fiscal_quarter: period.quarter,
      revenue: Math.round(rev[k]!), operating_profit: Math.round(op[k]!), net_profit: Math.round(net[k]!),
      total_assets: assets, equity: eq, gross_profit: Math.round(gross[k]!),
      operating_cash_flow: Math.round(net[k]! + rev[k]! * (rng.uniform(0.03, 0.08) + 0.04 * rng.normal())),
      total_liabilities: liabilities, current_assets: currentAssets,
      current_liabilities: Math.round(liabilities * clShare), long_term_debt: Math.round(liabilities * ltdShare),
      cash: Math.round(currentAssets * cashShare), retained_earnings: Math.round(eq - paidIn),
      shares_outstanding: shares, dividends_per_share: dps[k]!,
    };
  });
}
