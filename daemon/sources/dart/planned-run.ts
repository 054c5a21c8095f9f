/**
 * One OpenDART run over the listed companies the daemon holds (by stock code, in order): the key
 * accounts fetched a hundred companies per call, one call per period, on the first company of
 * each batch; then, per company, the full statements of the disclosures not fetched in full by an
 * earlier run (the parts ledger), and the company's unit of records.
 */
import type { CorpCode } from './corp-codes.js';
import { DART_SERVICES, type DartClient } from './client.js';
import { companyStatements, groupByCompany, periodKey, type CompanyItems, type KeyAccountItem } from './key-accounts.js';
import { fullRequests } from './full-statements.js';
import { reportPeriods, type ReportPeriod } from './periods.js';
import type { FetchedUnit, PlanContext, PlannedRun } from '../driver.js';
import { ProviderError } from '../provider-http.js';

/** How a run fetches. */
export interface DartRunOptions {
  /** Companies per key-accounts call (at most 100). */
  batchSize: number;
  /** Fetch full statements once per disclosure. */
  fullStatements: boolean;
}

/** The listed companies among `stored`, one corp code per stock code (the latest modified when listed twice). */
function listed(companies: readonly CorpCode[], stored: ReadonlySet<string>): Map<string, CorpCode> {
  const byStock = new Map<string, CorpCode>();
  for (const c of companies) {
    if (c.stock_code === '' || !stored.has(c.stock_code)) continue;
    const known = byStock.get(c.stock_code);
    if (!known || c.modify_date > known.modify_date) byStock.set(c.stock_code, c);
  }
  return new Map([...byStock.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** What one company's full statements add to its unit. */
interface FullFetched {
  fetched: Map<string, KeyAccountItem[]>;
  inEffect: Map<string, string>;
  parts: { unit: string; hash: string }[];
}

/** The full statements of one company's disclosures not fetched in full before (per the ledger `context.parts`). */
async function fetchFullStatements(client: DartClient, stock: string, corp: string, periods: readonly ReportPeriod[], company: CompanyItems | undefined, context: PlanContext, to: string, signal?: AbortSignal): Promise<FullFetched> {
  const fetched = new Map<string, KeyAccountItem[]>();
  const parts: { unit: string; hash: string }[] = [];
  const wanted = fullRequests(stock, periods, company, context.parts, to);
  const inEffect = wanted.inEffect;
  for (const r of wanted.requests) {
    const items = await client.fullStatements(corp, r.period, r.divisions, signal);
    fetched.set(periodKey(r.period), items);
    // Recorded under the receipt number the key accounts named (what the next run compares), even
    // when it has no full statement (013): asking again would cost a call every run for the same answer.
    const rcept = r.rceptNo ?? items.find((i) => i.rcept_no)?.rcept_no;
    if (rcept) {
      inEffect.set(r.ledgerKey, rcept);
      parts.push({ unit: r.ledgerKey, hash: rcept });
    }
  }
  return { fetched, inEffect, parts };
}

/** Plan a run from `from` to `to`: its units are the listed companies among those the daemon holds. */
export async function planDartRun(client: DartClient, options: DartRunOptions, from: string, to: string, context: PlanContext, signal?: AbortSignal): Promise<PlannedRun> {
  const periods = reportPeriods(from, to);
  const byStock = listed(await client.corpCodes(signal), context.stored);
  const units = [...byStock.keys()];
  const position = new Map(units.map((u, i) => [u, i]));
  /** The key accounts of the batch fetched last, by corp code. */
  let batchItems = new Map<string, CompanyItems>();
  let batchUnits = new Set<string>();

  async function fetchBatch(first: string, batchSignal?: AbortSignal): Promise<void> {
    const start = position.get(first) ?? 0;
    const batch = units.slice(start, start + options.batchSize);
    const corpCodesOf = batch.map((s) => byStock.get(s)!.corp_code).join(',');
    const grouped = new Map<string, CompanyItems>();
    for (const p of periods) {
      const items = await client.callJson(DART_SERVICES.keyAccounts, { corp_code: corpCodesOf, bsns_year: String(p.year), reprt_code: p.reprt_code }, batchSignal);
      groupByCompany(items, p, grouped);
    }
    batchItems = grouped;
    batchUnits = new Set(batch);
  }

  /** One company: its key accounts, and the full statements of the disclosures not fetched in full before. */
  async function fetchCompany(stock: string, unitSignal?: AbortSignal): Promise<FetchedUnit> {
    if (!batchUnits.has(stock)) await fetchBatch(stock, unitSignal);
    const corp = byStock.get(stock)!.corp_code;
    const company = batchItems.get(corp);
    const full: FullFetched = options.fullStatements
      ? await fetchFullStatements(client, stock, corp, periods, company, context, to, unitSignal)
      : { fetched: new Map(), inEffect: new Map(), parts: [] };
    const { batch: result, hash } = companyStatements(stock, corp, company, { fetched: full.fetched, inEffect: full.inEffect });
    return { unit: stock, batches: [result], hash, parts: full.parts };
  }

  return {
    units,
    // The key accounts (amortised over a batch, paid by its first company) and, at most, two divisions of full statements per period.
    callsPerUnit: periods.length * 3,
    async fetchUnit(stock, unitSignal) {
      if (!position.has(stock)) throw new ProviderError('refused', 'NOT_LISTED', `${stock} is not a listed company of OpenDART's list`);
      return fetchCompany(stock, unitSignal);
    },
  };
}
