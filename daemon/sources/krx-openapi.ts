/**
 * The KRX Open API source (openapi.krx.co.kr; production base https://data-dbg.krx.co.kr/svc/apis).
 * A key is issued per account and each service needs its own approval (이용신청); a call to a
 * service the key is not approved for answers HTTP 401 with
 * `{"respMsg":"Unauthorized API Call","respCode":"401"}` (seen for `sto/stk_isu_base_info` in
 * github.com/NomaDamas/k-skill/issues/99). Requests are `GET <base>/<service>?basDd=YYYYMMDD` with the key in
 * the `AUTH_KEY` header (kgcrom/cluefin `cluefin_openapi/krx/_client.py`); answers are
 * `{"OutBlock_1": [...]}`, every value a string. One call is one date of one whole market.
 * A day's data is published the next morning, never the same day. Terms quoted publicly:
 * 10,000 calls per key per day, non-commercial use, a key valid one year.
 */
import { createHash } from 'node:crypto';
import type { SourceCheck, SourceTestResult } from '../contract/sources.js';
import { addDays, isTradingDay, previousTradingDay, tradingDaysBetween } from '../kernel/krx-calendar.js';
import type { RecordsBatch } from '../market/market-data-service.js';
import { basDd, outBlock, parseKrxBaseInfo, parseKrxIndex, parseKrxTrades } from '../../loaders/krx-openapi.js';
import type { FetchedUnit, SourceDriver } from './driver.js';
import { answerJson, ProviderError, type ProviderHttp, type RawAnswer } from './provider-http.js';
import { kstDate, minutesOfDay } from './status-store.js';

/** The services this source calls, with the name KRX's service list gives each (what to apply for). */
export const KRX_SERVICES = {
  kospiTrades: { path: 'sto/stk_bydd_trd', title: '유가증권 일별매매정보 (KOSPI daily trades)' },
  kosdaqTrades: { path: 'sto/ksq_bydd_trd', title: '코스닥 일별매매정보 (KOSDAQ daily trades)' },
  kospiIndex: { path: 'idx/kospi_dd_trd', title: 'KOSPI 시리즈 일별시세정보 (KOSPI index series)' },
  kosdaqIndex: { path: 'idx/kosdaq_dd_trd', title: 'KOSDAQ 시리즈 일별시세정보 (KOSDAQ index series)' },
  kospiBase: { path: 'sto/stk_isu_base_info', title: '유가증권 종목기본정보 (KOSPI issue base info)' },
  kosdaqBase: { path: 'sto/ksq_isu_base_info', title: '코스닥 종목기본정보 (KOSDAQ issue base info)' },
} as const;

type Service = (typeof KRX_SERVICES)[keyof typeof KRX_SERVICES];

/** Options of the KRX source. */
export interface KrxSourceOptions {
  /** The key; absent: the source is not configured. Never logged, never answered. */
  apiKey: string | undefined;
  /** Base URL without a trailing slash. */
  baseUrl: string;
  http: ProviderHttp;
  /** KST time (HH:MM) by which the previous trading day's data is out. */
  publishTime: string;
  /** Minutes after publishTime before a missing date counts as stale (the daily run's time plus its retries). */
  staleGraceMinutes: number;
  dailyCalls: number;
}

const MS_PER_MIN = 60_000;

/** KST date of `ms` shifted back by `minutes`. */
function kstDateBefore(ms: number, minutes: number): string {
  return kstDate(ms - minutes * MS_PER_MIN);
}

/** What a failed answer means, in KRX's words when it gave them. */
function failureOf(answer: RawAnswer, service: Service): ProviderError {
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(answer.text) as unknown;
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
  } catch { /* an HTML page or nothing: the status says enough */ }
  const code = typeof body.respCode === 'string' ? body.respCode : `HTTP_${answer.status}`;
  const said = typeof body.respMsg === 'string' ? body.respMsg : `HTTP ${answer.status}`;
  if (answer.status === 401 || answer.status === 403 || code === '401') {
    return new ProviderError('auth', code, `${service.path}: ${said} — the key is wrong, expired, or not approved for this service: apply for "${service.title}" at openapi.krx.co.kr`, service.path);
  }
  if (answer.status === 429) return new ProviderError('quota', code, `${service.path}: ${said} — the key's daily call limit is used up`, service.path);
  if (answer.status >= 500) return new ProviderError('transient', code, `${service.path}: ${said}`, service.path);
  return new ProviderError('refused', code, `${service.path}: ${said}`, service.path);
}

/** The JSON and text of an answer for `service` on `date`. @throws ProviderError when refused, without OutBlock_1, or (`requireRows`) empty */
function checkedAnswer(answer: RawAnswer, service: Service, date: string, requireRows: boolean): { json: unknown; text: string } {
  if (answer.status !== 200) throw failureOf(answer, service);
  const json = answerJson(answer, service.path);
  if (typeof json === 'object' && json !== null && typeof (json as Record<string, unknown>).respCode === 'string' && !('OutBlock_1' in json)) {
    throw failureOf({ ...answer, status: (json as Record<string, unknown>).respCode === '401' ? 401 : 400 }, service);
  }
  let rows: unknown[];
  try {
    rows = outBlock(json, service.path);
  } catch {
    throw new ProviderError('transient', 'BAD_ANSWER', `${service.path}: the answer has no OutBlock_1`, service.path);
  }
  if (requireRows && rows.length === 0) throw new ProviderError('transient', 'EMPTY', `${service.path}: no rows for ${date}, a trading day (not published yet, or an outage)`, service.path);
  return { json, text: answer.text };
}

/** Create the KRX Open API source. */
export function createKrxSource(options: KrxSourceOptions): SourceDriver {
  const { apiKey, baseUrl, http } = options;
  const publishMinutes = minutesOfDay(options.publishTime);

  /** The last trading day before the KST date of `ms − minutes`. */
  const publishedAt = (ms: number, extraMinutes: number): string => previousTradingDay(kstDateBefore(ms, publishMinutes + extraMinutes));

  /** One call; `requireRows`: an empty OutBlock_1 is a failure (a trading day has data). */
  async function call(service: Service, date: string, requireRows: boolean, signal?: AbortSignal): Promise<{ json: unknown; text: string }> {
    if (!apiKey) throw new ProviderError('auth', 'NO_KEY', 'no KRX Open API key: set STOCKSCREEN_KRX_API_KEY', service.path);
    const url = `${baseUrl}/${service.path}?basDd=${basDd(date)}`;
    return http.get(url, { AUTH_KEY: apiKey, Accept: 'application/json' }, (answer) => checkedAnswer(answer, service, date, requireRows), signal);
  }

  return {
    name: 'krx',
    kind: 'eod',
    configured: Boolean(apiKey),
    callsPerUnit: 4,
    dailyCalls: options.dailyCalls,
    lastPublished: (nowMs) => publishedAt(nowMs, 0),
    expectedLatest: (nowMs) => publishedAt(nowMs, options.staleGraceMinutes),
    units: (from, to) => tradingDaysBetween(from, to),

    async fetchUnit(date, signal) {
      if (!isTradingDay(date)) throw new ProviderError('refused', 'NOT_TRADING_DAY', `${date} is not a KRX trading day`);
      const hash = createHash('sha256');
      const kospi = await call(KRX_SERVICES.kospiTrades, date, true, signal);
      const kosdaq = await call(KRX_SERVICES.kosdaqTrades, date, true, signal);
      const kospiIdx = await call(KRX_SERVICES.kospiIndex, date, true, signal);
      const kosdaqIdx = await call(KRX_SERVICES.kosdaqIndex, date, true, signal);
      for (const a of [kospi, kosdaq, kospiIdx, kosdaqIdx]) hash.update(a.text).update('\0');
      const file = (s: Service) => `krx:${s.path}:${date}`;
      const first = parseKrxTrades(kospi.json, file(KRX_SERVICES.kospiTrades), date);
      const second = parseKrxTrades(kosdaq.json, file(KRX_SERVICES.kosdaqTrades), date);
      first.index.push(
        parseKrxIndex(kospiIdx.json, file(KRX_SERVICES.kospiIndex), 'KOSPI', date),
        parseKrxIndex(kosdaqIdx.json, file(KRX_SERVICES.kosdaqIndex), 'KOSDAQ', date),
      );
      return { unit: date, batches: [first, second], hash: hash.digest('hex') } satisfies FetchedUnit;
    },

    async fetchExtras(date, signal): Promise<RecordsBatch | null> {
      const stocks = [];
      for (const service of [KRX_SERVICES.kospiBase, KRX_SERVICES.kosdaqBase]) {
        const answer = await call(service, date, false, signal);
        stocks.push(...parseKrxBaseInfo(answer.json, `krx:${service.path}:${date}`));
      }
      return { stocks, bars: [], halts: [], financials: [], index: [] };
    },

    async test(nowMs) {
      const date = publishedAt(nowMs, 0);
      const checks: SourceCheck[] = [];
      for (const service of Object.values(KRX_SERVICES)) {
        try {
          const { json } = await call(service, date, false);
          const rows = outBlock(json, service.path).length;
          checks.push({ service: service.path, ok: true, code: null, message: `${rows} rows for ${date}`, apply_for: null });
        } catch (err) {
          const e = err instanceof ProviderError ? err : new ProviderError('transient', 'ERROR', (err as Error).message);
          checks.push({ service: service.path, ok: false, code: e.code, message: e.message, apply_for: e.failure === 'auth' ? service.title : null });
        }
      }
      return { name: 'krx', ok: checks.every((c) => c.ok), checks };
    },

    close: () => http.close(),
  };
}

/** The earliest date KRX's Open API serves (its data starts in 2010). */
export const KRX_FIRST_DATE = '2010-01-04';

/** Trading days of a window ending at `to`, at most `max` of them, starting after `after` (exclusive) when given. */
export function catchUpWindow(after: string | null, to: string, max: number): { from: string; to: string } | null {
  const start = after ? addDays(after, 1) : to;
  const days = tradingDaysBetween(start, to);
  if (days.length === 0) return null;
  const window = days.slice(-max);
  return { from: window[0]!, to: window[window.length - 1]! };
}
