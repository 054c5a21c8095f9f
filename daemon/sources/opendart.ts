/**
 * The OpenDART source (opendart.fss.or.kr, Korea's electronic disclosure system): quarterly
 * statements of every listed company the daemon holds, each with the date the market learned it.
 *
 * Protocol (OpenDART's development guide; public clients FinanceData/OpenDartReader `dart_list.py`,
 * `dart_finstate.py` and josw123/dart-fss `dart_fss/api`): `GET <base>/<service>?crtfc_key=<40-char key>&…`.
 * - `corpCode.xml`: a zip holding CORPCODE.xml, every company's 8-digit corp_code and, when
 *   listed, its 6-character stock_code. An error comes instead as XML `<result><status>…`.
 * - `fnlttMultiAcnt.json?corp_code=<up to 100, comma-separated>&bsns_year=YYYY&reprt_code=…`: the key
 *   accounts of many companies per call (daemon/sources/dart/key-accounts.ts).
 * - `fnlttSinglAcntAll.json?corp_code=…&bsns_year=…&reprt_code=…&fs_div=CFS|OFS`: one company's full
 *   statements, the only place for the cash-flow statement, cash, borrowings and gross profit
 *   (the key accounts are a fixed list without them). Asked for once per disclosure: for each
 *   company-quarter whose receipt number (from the key accounts) was not fetched in full before,
 *   in the division the key accounts answered; for a company the key accounts leave out (they
 *   exclude financial companies — dart-fss's `fnltt_multi_acnt` docstring says "상장법인(금융업
 *   제외)") once its report's deadline has passed, consolidated first, separate on 013
 *   (daemon/sources/dart/full-statements.ts).
 * - Every JSON answer carries `status` and `message`: 000 ok, 013 no data (not an error: a report
 *   not filed yet), 010 unregistered key, 011 key not usable, 012 IP not allowed, 901 key expired,
 *   020 over the request limit, 021 more than 100 companies, 100/101 a bad field or access,
 *   800 maintenance, 900 undefined error.
 * Limits: 20,000 calls a day per key (the guide's 020 text; older texts say 10,000: configuration),
 * and more than 1,000 calls a minute gets the IP blocked for 24 hours (dart-fss's request pacing
 * comment): calls are paced well below that.
 *
 * A run's units are the listed companies (by stock code, in order); each commits on its own with
 * the periods of the run (the four most recent quarters, and the Q3 report beside an annual one)
 * and the company-quarters whose full statements it fetched (the parts ledger). Key accounts are
 * fetched a hundred companies per call, one call per period; a run resumed after a quota stop or
 * a crash refetches only the companies not committed yet. So a backfill costs one full-statement
 * call per company-quarter, and a daily run only the disclosures filed since the last one.
 * The calls are in dart/client.ts, a run's plan in dart/planned-run.ts.
 */
import type { SourceCheck, SourceTestResult } from '../contract/sources.js';
import type { CorpCode } from './dart/corp-codes.js';
import { createDartClient, DART_SERVICES, type DartClient } from './dart/client.js';
import { planDartRun } from './dart/planned-run.js';
import { period } from './dart/periods.js';
import type { SourceDriver } from './driver.js';
import { ProviderError, type ProviderHttp } from './provider-http.js';
import { kstDate, minutesOfDay } from './status-store.js';

/** The services this source calls, and what OpenDART's status means for a run. */
export { DART_SERVICES, dartFailure } from './dart/client.js';

/** Most corp codes one key-accounts call takes (more answers 021). */
export const DART_MAX_BATCH = 100;

/** Options of the OpenDART source. */
export interface DartSourceOptions {
  /** The key (crtfc_key); absent: the source is not configured. Never logged, never answered. */
  apiKey: string | undefined;
  /** Base URL without a trailing slash. */
  baseUrl: string;
  http: ProviderHttp;
  /** KST time (HH:MM) of the daily run: a day's run is expected by then. */
  runTime: string;
  /** Minutes after runTime before a missing run counts as stale. */
  staleGraceMinutes: number;
  dailyCalls: number;
  /** Companies per key-accounts call (at most 100). */
  batchSize: number;
  /** Largest CORPCODE.xml inflated (bytes): a bigger one is refused as a zip bomb. */
  maxXmlBytes: number;
  /** Fetch full statements once per disclosure (cash flow, cash, borrowings, gross profit; a company the key accounts leave out). */
  fullStatements: boolean;
}

const MS_PER_MIN = 60_000;

/** One call per service: the company list, and one company's last annual key accounts. */
async function testSource(client: DartClient, nowMs: number): Promise<SourceTestResult> {
  const checks: SourceCheck[] = [];
  const fail = (service: string, err: unknown) => {
    const e = err instanceof ProviderError ? err : new ProviderError('transient', 'ERROR', (err as Error).message);
    checks.push({ service, ok: false, code: e.code, message: e.message, apply_for: null });
  };
  let sample: CorpCode | undefined;
  try {
    const companies = await client.corpCodes();
    const withStock = companies.filter((c) => c.stock_code !== '');
    sample = withStock.find((c) => c.stock_code === '005930') ?? withStock[0];
    checks.push({ service: DART_SERVICES.corpCode, ok: true, code: null, message: `${companies.length} companies, ${withStock.length} listed`, apply_for: null });
  } catch (err) {
    fail(DART_SERVICES.corpCode, err);
  }
  const annual = period(Number(kstDate(nowMs).slice(0, 4)) - 1, 4);
  try {
    // The last annual report of one listed company (Samsung Electronics when listed): one call.
    const items = await client.callJson(DART_SERVICES.keyAccounts, { corp_code: sample?.corp_code ?? '00126380', bsns_year: String(annual.year), reprt_code: annual.reprt_code });
    checks.push({ service: DART_SERVICES.keyAccounts, ok: true, code: null, message: items.length > 0 ? `${items.length} accounts of ${sample?.corp_name ?? '00126380'} for ${annual.year}` : `no ${annual.year} annual report yet (013)`, apply_for: null });
  } catch (err) {
    fail(DART_SERVICES.keyAccounts, err);
  }
  return { name: 'dart', ok: checks.every((c) => c.ok), checks };
}

/** Create the OpenDART source. */
export function createDartSource(options: DartSourceOptions): SourceDriver {
  const { apiKey, http } = options;
  const runMinutes = minutesOfDay(options.runTime);
  const client = createDartClient({ apiKey, baseUrl: options.baseUrl, http, maxXmlBytes: options.maxXmlBytes });
  const run = { batchSize: Math.max(1, Math.min(DART_MAX_BATCH, options.batchSize)), fullStatements: options.fullStatements };

  return {
    name: 'dart',
    kind: 'financials',
    configured: Boolean(apiKey),
    callsPerUnit: 5,
    dailyCalls: options.dailyCalls,
    // Filings are searchable the day they are received: a run covers up to today (KST).
    lastPublished: (nowMs) => kstDate(nowMs),
    // The day whose evening run should be done by now: today once the run's time and grace have passed.
    expectedLatest: (nowMs) => kstDate(nowMs - (runMinutes + options.staleGraceMinutes) * MS_PER_MIN),
    units: () => [],
    scheduledRange: (nowMs) => ({ from: kstDate(nowMs), to: kstDate(nowMs) }),
    plan: (from, to, context, signal) => planDartRun(client, run, from, to, context, signal),

    fetchUnit() {
      return Promise.reject(new ProviderError('refused', 'NOT_PLANNED', 'OpenDART units are fetched through a planned run'));
    },

    test: (nowMs) => testSource(client, nowMs),

    close: () => http.close(),
  };
}
