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
 */
import type { SourceCheck, SourceTestResult } from '../contract/sources.js';
import { parseCorpCodes, parseStatusXml, type CorpCode } from './dart/corp-codes.js';
import { companyStatements, groupByCompany, periodKey, type CompanyItems, type KeyAccountItem } from './dart/key-accounts.js';
import { fullRequests } from './dart/full-statements.js';
import { period, reportPeriods, type ReportPeriod } from './dart/periods.js';
import { readZipEntry, ZipError } from './dart/zip.js';
import type { FetchedUnit, PlanContext, PlannedRun, SourceDriver } from './driver.js';
import { answerJson, ProviderError, type ProviderHttp, type RawAnswer } from './provider-http.js';
import { kstDate, minutesOfDay } from './status-store.js';

/** The services this source calls. */
export const DART_SERVICES = {
  corpCode: 'corpCode.xml',
  keyAccounts: 'fnlttMultiAcnt.json',
  fullStatements: 'fnlttSinglAcntAll.json',
} as const;

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

/** What OpenDART's status means for the run, with its own code and message. */
export function dartFailure(status: string, message: string, service: string): ProviderError {
  const said = `${service}: ${status} ${message}`.trim();
  switch (status) {
    case '010': case '011': case '901':
      return new ProviderError('auth', status, `${said} — the key is not registered or not usable: check STOCKSCREEN_DART_API_KEY at opendart.fss.or.kr (인증키 신청/관리)`, service);
    case '012':
      return new ProviderError('auth', status, `${said} — this server's IP is not allowed for the key: register it at opendart.fss.or.kr`, service);
    case '020':
      return new ProviderError('quota', status, `${said} — the key's daily request limit is used up`, service);
    case '800': case '900':
      return new ProviderError('transient', status, said, service);
    default:
      return new ProviderError('refused', status, said, service);
  }
}

/** HTTP status failures before the body is read. */
function httpFailure(answer: RawAnswer, service: string): ProviderError | null {
  if (answer.status === 200) return null;
  const transient = answer.status >= 500 || answer.status === 429 || answer.status === 408;
  return new ProviderError(transient ? 'transient' : 'refused', `HTTP_${answer.status}`, `${service}: HTTP ${answer.status}`, service);
}

/** Create the OpenDART source. */
export function createDartSource(options: DartSourceOptions): SourceDriver {
  const { apiKey, baseUrl, http } = options;
  const runMinutes = minutesOfDay(options.runTime);
  const batchSize = Math.max(1, Math.min(DART_MAX_BATCH, options.batchSize));

  function url(service: string, params: Record<string, string>): string {
    if (!apiKey) throw new ProviderError('auth', 'NO_KEY', 'no OpenDART key: set STOCKSCREEN_DART_API_KEY', service);
    // The key travels in the query, as OpenDART requires: the URL is never logged or put in a message.
    return `${baseUrl}/${service}?${new URLSearchParams({ crtfc_key: apiKey, ...params }).toString()}`;
  }

  /** One JSON call: the list (empty for 013), or the failure in OpenDART's terms. */
  function callJson(service: string, params: Record<string, string>, signal?: AbortSignal): Promise<KeyAccountItem[]> {
    return http.get(url(service, params), { Accept: 'application/json' }, (answer) => {
      const bad = httpFailure(answer, service);
      if (bad) throw bad;
      const json = answerJson(answer, service) as { status?: unknown; message?: unknown; list?: unknown } | null;
      if (typeof json !== 'object' || json === null || typeof json.status !== 'string') {
        throw new ProviderError('transient', 'BAD_ANSWER', `${service}: the answer has no status`, service);
      }
      if (json.status === '013') return [];
      if (json.status !== '000') throw dartFailure(json.status, typeof json.message === 'string' ? json.message : '', service);
      if (!Array.isArray(json.list)) throw new ProviderError('transient', 'BAD_ANSWER', `${service}: status 000 without a list`, service);
      return json.list as KeyAccountItem[];
    }, signal);
  }

  /** The company list: the zip's CORPCODE.xml, or OpenDART's error. */
  function corpCodes(signal?: AbortSignal): Promise<CorpCode[]> {
    const service = DART_SERVICES.corpCode;
    return http.get(url(service, {}), { Accept: 'application/zip, application/xml' }, async (answer) => {
      const bad = httpFailure(answer, service);
      if (bad) throw bad;
      const isZip = answer.bytes.length >= 4 && answer.bytes[0] === 0x50 && answer.bytes[1] === 0x4b;
      if (!isZip) {
        const said = (await parseStatusXml(answer.text)) ?? jsonStatus(answer.text);
        if (said && said.status !== '000') throw dartFailure(said.status, said.message, service);
        const kind = /html/i.test(answer.contentType) || /^\s*<(!doctype|html)/i.test(answer.text) ? 'an HTML page' : 'a body that is not a zip';
        throw new ProviderError('transient', 'BAD_ANSWER', `${service}: the provider answered ${kind} (HTTP ${answer.status})`, service);
      }
      try {
        const list = await parseCorpCodes(await readZipEntry(answer.bytes, 'CORPCODE.xml', options.maxXmlBytes));
        if (list.length === 0) throw new ProviderError('transient', 'EMPTY', `${service}: the company list is empty`, service);
        return list;
      } catch (err) {
        if (err instanceof ProviderError) throw err;
        const what = err instanceof ZipError ? 'the zip is unreadable' : 'CORPCODE.xml is unreadable';
        throw new ProviderError('transient', 'BAD_ANSWER', `${service}: ${what}: ${(err as Error).message}`, service);
      }
    }, signal);
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

  /** One company's full statements for a period: the first division answered, or none (013 for each). */
  async function fullStatements(corp: string, p: ReportPeriod, divisions: readonly string[], signal?: AbortSignal): Promise<KeyAccountItem[]> {
    for (const fsDiv of divisions) {
      const items = await callJson(DART_SERVICES.fullStatements, { corp_code: corp, bsns_year: String(p.year), reprt_code: p.reprt_code, fs_div: fsDiv }, signal);
      if (items.length > 0) return items.map((i) => ({ ...i, corp_code: i.corp_code ?? corp, fs_div: fsDiv }));
    }
    return [];
  }

  async function plan(from: string, to: string, context: PlanContext, signal?: AbortSignal): Promise<PlannedRun> {
    const periods = reportPeriods(from, to);
    const byStock = listed(await corpCodes(signal), context.stored);
    const units = [...byStock.keys()];
    const position = new Map(units.map((u, i) => [u, i]));
    /** The key accounts of the batch fetched last, by corp code. */
    let batchItems = new Map<string, CompanyItems>();
    let batchUnits = new Set<string>();

    async function fetchBatch(first: string, batchSignal?: AbortSignal): Promise<void> {
      const start = position.get(first) ?? 0;
      const batch = units.slice(start, start + batchSize);
      const corpCodesOf = batch.map((s) => byStock.get(s)!.corp_code).join(',');
      const grouped = new Map<string, CompanyItems>();
      for (const p of periods) {
        const items = await callJson(DART_SERVICES.keyAccounts, { corp_code: corpCodesOf, bsns_year: String(p.year), reprt_code: p.reprt_code }, batchSignal);
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
      const fetched = new Map<string, KeyAccountItem[]>();
      const parts: { unit: string; hash: string }[] = [];
      let inEffect = new Map<string, string>();
      if (options.fullStatements) {
        const wanted = fullRequests(stock, periods, company, context.parts, to);
        inEffect = wanted.inEffect;
        for (const r of wanted.requests) {
          const items = await fullStatements(corp, r.period, r.divisions, unitSignal);
          fetched.set(periodKey(r.period), items);
          // Recorded under the receipt number the key accounts named (what the next run compares), even
          // when it has no full statement (013): asking again would cost a call every run for the same answer.
          const rcept = r.rceptNo ?? items.find((i) => i.rcept_no)?.rcept_no;
          if (rcept) {
            inEffect.set(r.ledgerKey, rcept);
            parts.push({ unit: r.ledgerKey, hash: rcept });
          }
        }
      }
      const { batch: result, hash } = companyStatements(stock, corp, company, { fetched, inEffect });
      return { unit: stock, batches: [result], hash, parts };
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
    plan,

    fetchUnit() {
      return Promise.reject(new ProviderError('refused', 'NOT_PLANNED', 'OpenDART units are fetched through a planned run'));
    },

    async test(nowMs): Promise<SourceTestResult> {
      const checks: SourceCheck[] = [];
      const fail = (service: string, err: unknown) => {
        const e = err instanceof ProviderError ? err : new ProviderError('transient', 'ERROR', (err as Error).message);
        checks.push({ service, ok: false, code: e.code, message: e.message, apply_for: null });
      };
      let sample: CorpCode | undefined;
      try {
        const companies = await corpCodes();
        const withStock = companies.filter((c) => c.stock_code !== '');
        sample = withStock.find((c) => c.stock_code === '005930') ?? withStock[0];
        checks.push({ service: DART_SERVICES.corpCode, ok: true, code: null, message: `${companies.length} companies, ${withStock.length} listed`, apply_for: null });
      } catch (err) {
        fail(DART_SERVICES.corpCode, err);
      }
      const annual = period(Number(kstDate(nowMs).slice(0, 4)) - 1, 4);
      try {
        // The last annual report of one listed company (Samsung Electronics when listed): one call.
        const items = await callJson(DART_SERVICES.keyAccounts, { corp_code: sample?.corp_code ?? '00126380', bsns_year: String(annual.year), reprt_code: annual.reprt_code });
        checks.push({ service: DART_SERVICES.keyAccounts, ok: true, code: null, message: items.length > 0 ? `${items.length} accounts of ${sample?.corp_name ?? '00126380'} for ${annual.year}` : `no ${annual.year} annual report yet (013)`, apply_for: null });
      } catch (err) {
        fail(DART_SERVICES.keyAccounts, err);
      }
      return { name: 'dart', ok: checks.every((c) => c.ok), checks };
    },

    close: () => http.close(),
  };
}

/** The status of a JSON error body, or null. */
function jsonStatus(text: string): { status: string; message: string } | null {
  try {
    const json = JSON.parse(text) as { status?: unknown; message?: unknown };
    return typeof json.status === 'string' ? { status: json.status, message: typeof json.message === 'string' ? json.message : '' } : null;
  } catch {
    return null;
  }
}
