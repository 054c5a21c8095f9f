/**
 * A local OpenDART following its protocol (OpenDART's development guide; public clients
 * FinanceData/OpenDartReader `dart_list.py` (corp_codes: the answer is a zip holding CORPCODE.xml,
 * an error an XML `<result><status>`) and `dart_finstate.py` (fnlttMultiAcnt.json when corp_code
 * holds commas), josw123/dart-fss `dart_fss/errors/checker.py` (the status codes) and
 * `dart_fss/api/finance/fnltt_multi_acnt.py`):
 * - `GET /api/corpCode.xml?crtfc_key=…` → a zip with CORPCODE.xml (`<result><list><corp_code>…`);
 * - `GET /api/fnlttMultiAcnt.json?crtfc_key=…&corp_code=a,b,…&bsns_year=YYYY&reprt_code=…` →
 *   `{"status":"000","message":"정상","list":[…]}` with amounts as comma-grouped strings, or
 *   `{"status":"013","message":"조회된 데이타가 없습니다."}` when none of the companies filed it;
 *   a financial company's reports are not in it (dart-fss: "상장법인(금융업 제외)");
 *   the key-accounts service answers only its fixed accounts (유동자산, 비유동자산, 자산총계, 유동부채,
 *   비유동부채, 부채총계, 자본금, 이익잉여금, 자본총계, 매출액, 영업이익, 법인세차감전 순이익, 당기순이익,
 *   총포괄손익): a report's cash flow, cash, borrowings or gross profit are in full statements only;
 * - `GET /api/fnlttSinglAcntAll.json?crtfc_key=…&corp_code=…&bsns_year=…&reprt_code=…&fs_div=CFS|OFS` →
 *   one company's full statements of that division, items with `account_id` and no `fs_div`, in
 *   OpenDartReader `finstate_all`'s field order (rcept_no, reprt_code, bsns_year, corp_code, sj_div,
 *   sj_nm, account_id, account_nm, account_detail, thstrm_nm, thstrm_amount, thstrm_add_amount,
 *   frmtrm_nm, frmtrm_amount, frmtrm_q_nm, frmtrm_q_amount, frmtrm_add_amount, ord, currency;
 *   dart-fss `fnltt_singl_acnt_all` takes the same four parameters); the cash-flow statement
 *   (`sj_div` CF) is year to date in thstrm_amount in every report; 013 when it has none.
 * Errors as OpenDART words them: 010 an unknown key, 020 over the per-day limit (counted per KST day
 * of the fake's clock), 021 more than 100 companies, 100 a missing or bad field. Failures are
 * injected per call (`fail`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeZip } from './zip-writer.js';

/** A company of the list. */
export interface FakeDartCompany {
  corp_code: string;
  corp_name: string;
  /** '' for an unlisted company (the real file has a blank). */
  stock_code: string;
  modify_date?: string;
}

/** One filed report of one company: its accounts as [this period, year to date]. */
export interface FakeDartReport {
  corp_code: string;
  bsns_year: number;
  reprt_code: '11013' | '11012' | '11014' | '11011';
  rcept_no: string;
  /** Which statements it answers: consolidated, separate, or both (separate amounts halved). */
  fs: 'CFS' | 'OFS' | 'both';
  accounts: Record<string, [number, number?]>;
  /** A financial company's report: in full statements only, not in the key accounts. */
  fullOnly?: boolean;
}

/** What the fake answers instead, for one call. */
export type DartInjected =
  | { kind: 'status'; status: number; body?: string; contentType?: string }
  | { kind: 'html' }
  | { kind: 'truncated' }
  | { kind: 'dart'; status: string; message: string };

/** Options of the fake. */
export interface FakeDartOptions {
  keys: string[];
  companies: FakeDartCompany[];
  reports: FakeDartReport[];
  /** Calls per key per KST day before 020 (default: unlimited). */
  dailyLimit?: number;
  /** The fake's clock (the quota's day), default Date.now. */
  now?: () => number;
}

/** A running fake. */
export interface FakeDart {
  url: string;
  /** Calls received, in order (the key left out). */
  calls: { service: string; params: Record<string, string> }[];
  /** Every raw request line received (to check where the key travels). */
  requestLines: string[];
  fail(service: string, ...failures: DartInjected[]): void;
  onCall?: (service: string, params: Record<string, string>) => void;
  reports: FakeDartReport[];
  close(): Promise<void>;
}

const MESSAGES: Record<string, string> = {
  '000': '정상',
  '010': '등록되지 않은 키입니다.',
  '013': '조회된 데이타가 없습니다.',
  '020': '요청 제한을 초과하였습니다.',
  '021': '조회 가능한 회사 개수가 초과하였습니다.(최대 100건)',
  '100': '필드의 부적절한 값입니다. 필드 설명에 없는 값을 사용한 경우에 발생하는 메시지입니다.',
};

const BS = new Set(['유동자산', '비유동자산', '자산총계', '유동부채', '비유동부채', '부채총계', '자본금', '이익잉여금', '자본총계', '현금및현금성자산', '장기차입금']);
/** The accounts the key-accounts service answers (OpenDART's 다중회사 주요계정 list); any other is in full statements only. */
const KEY_ACCOUNTS = new Set(['유동자산', '비유동자산', '자산총계', '유동부채', '비유동부채', '부채총계', '자본금', '이익잉여금', '자본총계', '매출액', '영업이익', '법인세차감전 순이익', '당기순이익', '총포괄손익']);
/** Full statements' taxonomy ids (OpenDART's account_id) and statements of the accounts the fake knows. */
const FULL_ACCOUNTS: Record<string, [string, string]> = {
  매출액: ['ifrs-full_Revenue', 'CIS'], 영업이익: ['dart_OperatingIncomeLoss', 'CIS'], 당기순이익: ['ifrs-full_ProfitLoss', 'CIS'],
  자산총계: ['ifrs-full_Assets', 'BS'], 부채총계: ['ifrs-full_Liabilities', 'BS'], 자본총계: ['ifrs-full_Equity', 'BS'],
  현금및현금성자산: ['ifrs-full_CashAndCashEquivalents', 'BS'], 영업활동현금흐름: ['ifrs-full_CashFlowsFromUsedInOperatingActivities', 'CF'],
  매출총이익: ['ifrs-full_GrossProfit', 'CIS'], 장기차입금: ['ifrs-full_LongtermBorrowings', 'BS'], 유동자산: ['ifrs-full_CurrentAssets', 'BS'],
  유동부채: ['ifrs-full_CurrentLiabilities', 'BS'], 이익잉여금: ['ifrs-full_RetainedEarnings', 'BS'], 자본금: ['ifrs-full_IssuedCapital', 'BS'],
};
const REPORT_NAMES: Record<string, string> = { '11013': '1분기', '11012': '반기', '11014': '3분기', '11011': '' };
const SJ_NAMES: Record<string, string> = { BS: '재무상태표', IS: '손익계산서', CIS: '포괄손익계산서', CF: '현금흐름표', SCE: '자본변동표' };

const won = (n: number) => n.toLocaleString('en-US');
const kstDay = (ms: number) => new Date(ms + 9 * 3_600_000).toISOString().slice(0, 10);

function corpCodeXml(companies: readonly FakeDartCompany[]): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const rows = companies.map((c) => `    <list>\n        <corp_code>${c.corp_code}</corp_code>\n        <corp_name>${esc(c.corp_name)}</corp_name>\n        <corp_eng_name>${esc(c.corp_name)} CO.,LTD</corp_eng_name>\n        <stock_code>${c.stock_code === '' ? ' ' : c.stock_code}</stock_code>\n        <modify_date>${c.modify_date ?? '20250101'}</modify_date>\n    </list>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<result>\n${rows.join('\n')}\n</result>\n`;
}

/** The items of one report, in the API's field order. */
function items(r: FakeDartReport, company: FakeDartCompany): Record<string, string>[] {
  const divs = r.fs === 'both' ? ['CFS', 'OFS'] : [r.fs];
  const out: Record<string, string>[] = [];
  for (const fs of divs) {
    let ord = 0;
    for (const [name, [amount, ytd]] of Object.entries(r.accounts)) {
      if (!KEY_ACCOUNTS.has(name)) continue;
      const scale = fs === 'OFS' && r.fs === 'both' ? 0.5 : 1;
      const bs = BS.has(name);
      out.push({
        rcept_no: r.rcept_no, bsns_year: String(r.bsns_year), stock_code: company.stock_code, reprt_code: r.reprt_code,
        account_nm: name, fs_div: fs, fs_nm: fs === 'CFS' ? '연결재무제표' : '재무제표', sj_div: bs ? 'BS' : 'IS', sj_nm: bs ? '재무상태표' : '손익계산서',
        thstrm_nm: `제 56 기${REPORT_NAMES[r.reprt_code]}`, thstrm_dt: `${r.bsns_year}.12.31`, thstrm_amount: won(Math.round(amount * scale)),
        ...(ytd !== undefined && !bs ? { thstrm_add_amount: won(Math.round(ytd * scale)) } : {}),
        frmtrm_nm: '제 55 기', frmtrm_dt: `${r.bsns_year - 1}.12.31`, frmtrm_amount: won(Math.round(amount * scale * 0.9)),
        ord: String(++ord), currency: 'KRW', corp_code: r.corp_code,
      });
    }
  }
  return out;
}

/** The full-statement items of one report in one division. */
function fullItems(r: FakeDartReport, fs: string): Record<string, string>[] {
  let ord = 0;
  return Object.entries(r.accounts).map(([name, [amount, ytd]]) => {
    const [accountId, sj] = FULL_ACCOUNTS[name] ?? [`entity_${name}`, 'BS'];
    const scale = fs === 'OFS' && r.fs === 'both' ? 0.5 : 1;
    const quarterly = r.reprt_code !== '11011';
    // The cash-flow statement is year to date in thstrm_amount (no thstrm_add_amount); income items
    // of a quarterly report give the three months there and the year to date in thstrm_add_amount.
    const current = sj === 'CF' ? (ytd ?? amount) : amount;
    return {
      rcept_no: r.rcept_no, reprt_code: r.reprt_code, bsns_year: String(r.bsns_year), corp_code: r.corp_code, sj_div: sj, sj_nm: SJ_NAMES[sj] ?? sj,
      account_id: accountId, account_nm: name, account_detail: '-', thstrm_nm: `제 17 기${REPORT_NAMES[r.reprt_code]}`, thstrm_amount: won(Math.round(current * scale)),
      ...(ytd !== undefined && quarterly && (sj === 'IS' || sj === 'CIS') ? { thstrm_add_amount: won(Math.round(ytd * scale)) } : {}),
      frmtrm_nm: '제 16 기', frmtrm_amount: won(Math.round(current * scale * 0.9)),
      ...(quarterly && sj !== 'BS' ? { frmtrm_q_nm: '제 16 기', frmtrm_q_amount: won(Math.round(current * scale * 0.9)) } : {}),
      ord: String(++ord), currency: 'KRW',
    };
  });
}

/** Start the fake on a free port. */
export async function startFakeDart(options: FakeDartOptions): Promise<FakeDart> {
  const now = options.now ?? Date.now;
  const injected = new Map<string, DartInjected[]>();
  const used = new Map<string, number>();
  const fake: FakeDart = {
    url: '',
    calls: [],
    requestLines: [],
    reports: options.reports,
    fail(service, ...failures) {
      injected.set(service, [...(injected.get(service) ?? []), ...failures]);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  function json(res: ServerResponse, body: unknown): void {
    res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8' });
    res.end(JSON.stringify(body));
  }
  function status(res: ServerResponse, service: string, code: string, message = MESSAGES[code] ?? '정의되지 않은 오류가 발생하였습니다.'): void {
    if (service === 'corpCode.xml') {
      res.writeHead(200, { 'content-type': 'application/xml;charset=UTF-8' });
      res.end(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<result>\n<status>${code}</status>\n<message>${message}</message>\n</result>`);
    } else json(res, { status: code, message });
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    fake.requestLines.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
    const url = new URL(req.url ?? '/', 'http://fake');
    const service = url.pathname.replace(/^\/api\//, '');
    const params = Object.fromEntries([...url.searchParams.entries()].filter(([k]) => k !== 'crtfc_key'));
    fake.calls.push({ service, params });
    fake.onCall?.(service, params);
    const key = url.searchParams.get('crtfc_key') ?? '';
    if (!options.keys.includes(key)) return status(res, service, '010');
    const day = `${key}|${kstDay(now())}`;
    const count = (used.get(day) ?? 0) + 1;
    used.set(day, count);
    if (options.dailyLimit !== undefined && count > options.dailyLimit) return status(res, service, '020');
    const failure = injected.get(service)?.shift();
    if (failure) {
      if (failure.kind === 'dart') return status(res, service, failure.status, failure.message);
      if (failure.kind === 'status') {
        res.writeHead(failure.status, { 'content-type': failure.contentType ?? 'text/plain' });
        return void res.end(failure.body ?? '');
      }
      if (failure.kind === 'html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end('<!DOCTYPE html><html><head><title>OpenDART</title></head><body>시스템 점검 중입니다.</body></html>');
      }
    }
    let body: Buffer;
    let contentType: string;
    if (service === 'corpCode.xml') {
      body = writeZip([{ name: 'CORPCODE.xml', data: Buffer.from(corpCodeXml(options.companies), 'utf8') }]);
      contentType = 'application/x-msdownload';
    } else if (service === 'fnlttMultiAcnt.json') {
      const corps = (params.corp_code ?? '').split(',').filter((c) => c !== '');
      if (corps.length === 0 || !corps.every((c) => /^\d{8}$/.test(c)) || !/^\d{4}$/.test(params.bsns_year ?? '') || !(params.reprt_code! in REPORT_NAMES)) return status(res, service, '100');
      if (corps.length > 100) return status(res, service, '021');
      const list = corps.flatMap((corp) => {
        const company = options.companies.find((c) => c.corp_code === corp);
        const report = fake.reports.find((r) => r.corp_code === corp && String(r.bsns_year) === params.bsns_year && r.reprt_code === params.reprt_code && !r.fullOnly);
        return company && report ? items(report, company) : [];
      });
      if (list.length === 0) return status(res, service, '013');
      body = Buffer.from(JSON.stringify({ status: '000', message: '정상', list }), 'utf8');
      contentType = 'application/json;charset=UTF-8';
    } else if (service === 'fnlttSinglAcntAll.json') {
      const fs = params.fs_div ?? '';
      if (!/^\d{8}$/.test(params.corp_code ?? '') || !/^\d{4}$/.test(params.bsns_year ?? '') || !(params.reprt_code! in REPORT_NAMES) || !['CFS', 'OFS'].includes(fs)) return status(res, service, '100');
      const report = fake.reports.find((r) => r.corp_code === params.corp_code && String(r.bsns_year) === params.bsns_year && r.reprt_code === params.reprt_code && (r.fs === fs || r.fs === 'both'));
      if (!report) return status(res, service, '013');
      body = Buffer.from(JSON.stringify({ status: '000', message: '정상', list: fullItems(report, fs) }), 'utf8');
      contentType = 'application/json;charset=UTF-8';
    } else {
      res.writeHead(404, { 'content-type': 'text/html' });
      return void res.end('<html><body>Not Found</body></html>');
    }
    if (failure?.kind === 'truncated') body = body.subarray(0, Math.floor(body.length / 2));
    res.writeHead(200, { 'content-type': contentType });
    res.end(body);
  }

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  return fake;
}
