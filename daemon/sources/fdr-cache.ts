/**
 * FinanceDataReader's KRX cache over HTTP (`fdr`): a keyless, third-party source for operators
 * without a KRX Open API key. FinanceDataReader (0.9.110 and later) reads KRX end-of-day data from
 * a public GitHub repository that its author fills from KRX on a schedule
 * (github.com/FinanceData/fdr_krx_data_cache, README "수집 데이터": `data/listing/krx/` every
 * listed issue's quotes per trading day, `data/index/{symbol}/` each index per trading day, e.g.
 * `data/index/kq11/2026-03-09.csv`), served raw at
 * `https://raw.githubusercontent.com/FinanceData/fdr_krx_data_cache/master/data`. One unit is one
 * trading date: `<base>/listing/krx/<date>.csv` (required) and `<base>/index/ks11/<date>.csv`,
 * `<base>/index/kq11/<date>.csv` (KOSPI and KOSDAQ composites; absent for a date, the date loads
 * without index rows). The files are parsed by the same loaders as a folder load (`fdr-listing`,
 * `fdr-index`), so the numbers are identical to loading the same files from disk.
 *
 * The cache is nobody's service: no key, no published quota or terms, no guarantee — it broke when
 * KRX's portal required a login and when its collector's password expired. Its data is KRX's.
 */
import { createHash } from 'node:crypto';
import type { SourceCheck, SourceTestResult } from '../contract/sources.js';
import { isTradingDay, previousTradingDay, tradingDaysBetween } from '../kernel/krx-calendar.js';
import { firstLine } from '../../loaders/text.js';
import { loaderFor, parseFile } from '../../loaders/registry.js';
import type { LoadResult } from '../../loaders/types.js';
import type { FetchedUnit, SourceDriver } from './driver.js';
import { ProviderError, type ProviderHttp, type RawAnswer } from './provider-http.js';
import { kstDate, minutesOfDay } from './status-store.js';

/** The public cache's base (documented; used only when the operator sets it). */
export const FDR_PUBLIC_CACHE_URL = 'https://raw.githubusercontent.com/FinanceData/fdr_krx_data_cache/master/data';

/** The files of one date, relative to the base. */
export const FDR_FILES = {
  listing: (date: string) => `listing/krx/${date}.csv`,
  kospi: (date: string) => `index/ks11/${date}.csv`,
  kosdaq: (date: string) => `index/kq11/${date}.csv`,
} as const;

/** Options of the FDR cache source. */
export interface FdrSourceOptions {
  /** Base URL without a trailing slash; absent: the source is not configured (no outbound call). */
  baseUrl: string | undefined;
  http: ProviderHttp;
  /** KST time (HH:MM) by which the cache holds the day's final file (it refreshes during the trading day). */
  publishTime: string;
  staleGraceMinutes: number;
  dailyCalls: number;
}

const MS_PER_MIN = 60_000;

/** The trading day on or before `date`. */
function tradingDayOnOrBefore(date: string): string {
  return isTradingDay(date) ? date : previousTradingDay(date);
}

/** Why an answer is not the file: an HTML page (a proxy's or GitHub's error page), a cut-off body, another document. */
function badBody(answer: RawAnswer, path: string, looksRight: (head: string) => boolean): ProviderError | null {
  const text = answer.text.replace(/^\uFEFF/, '');
  if (/html/i.test(answer.contentType) || /^\s*</.test(text)) return new ProviderError('transient', 'BAD_ANSWER', `${path}: the server answered an HTML page (HTTP ${answer.status})`, path);
  if (!looksRight(firstLine(text))) return new ProviderError('transient', 'BAD_ANSWER', `${path}: the answer is not the cache's CSV (unexpected header)`, path);
  // The cache's files are written by pandas, which ends every row with a newline: a body without one was cut off.
  if (!text.endsWith('\n')) return new ProviderError('transient', 'BAD_ANSWER', `${path}: the answer was cut off (no final newline)`, path);
  return null;
}

/** Create the FDR cache source. */
export function createFdrSource(options: FdrSourceOptions): SourceDriver {
  const { baseUrl, http } = options;
  const publishMinutes = minutesOfDay(options.publishTime);
  const publishedAt = (ms: number, extraMinutes: number): string => tradingDayOnOrBefore(kstDate(ms - (publishMinutes + extraMinutes) * MS_PER_MIN));
  const listingLoader = loaderFor('fdr-listing');
  const indexLoader = loaderFor('fdr-index');

  /** GET one file: its text, or null for a 404 when `optional`. */
  async function file(path: string, optional: boolean, looksRight: (head: string) => boolean, signal?: AbortSignal): Promise<string | null> {
    if (!baseUrl) throw new ProviderError('refused', 'NOT_CONFIGURED', 'no FinanceDataReader cache URL: set STOCKSCREEN_FDR_CACHE_URL', path);
    return http.get(`${baseUrl}/${path}`, { Accept: 'text/csv, text/plain, */*' }, (answer) => {
      if (answer.status === 404) {
        if (optional) return null;
        throw new ProviderError('refused', 'NOT_FOUND', `${path}: not in the cache (HTTP 404) — not published yet, or the cache has no file for that date`, path);
      }
      if (answer.status >= 500 || answer.status === 429 || answer.status === 408) throw new ProviderError('transient', `HTTP_${answer.status}`, `${path}: HTTP ${answer.status}`, path);
      if (answer.status !== 200) throw new ProviderError('refused', `HTTP_${answer.status}`, `${path}: HTTP ${answer.status}`, path);
      const bad = badBody(answer, path, looksRight);
      if (bad) throw bad;
      return answer.text;
    }, signal);
  }
  const isListing = (head: string) => listingLoader.detect('listing.csv', head);
  const isIndex = (head: string) => indexLoader.detect('index.csv', head);

  return {
    name: 'fdr',
    kind: 'eod',
    configured: Boolean(baseUrl),
    callsPerUnit: 3,
    dailyCalls: options.dailyCalls,
    lastPublished: (nowMs) => publishedAt(nowMs, 0),
    expectedLatest: (nowMs) => publishedAt(nowMs, options.staleGraceMinutes),
    units: (from, to) => tradingDaysBetween(from, to),

    async fetchUnit(date, signal) {
      if (!isTradingDay(date)) throw new ProviderError('refused', 'NOT_TRADING_DAY', `${date} is not a KRX trading day`);
      const listing = (await file(FDR_FILES.listing(date), false, isListing, signal))!;
      const kospi = await file(FDR_FILES.kospi(date), true, isIndex, signal);
      const kosdaq = await file(FDR_FILES.kosdaq(date), true, isIndex, signal);
      const hash = createHash('sha256');
      for (const text of [listing, kospi, kosdaq]) hash.update(text ?? '-').update('\0');
      const quotes: LoadResult = parseFile(listing, `fdr:${FDR_FILES.listing(date)}`, { tradeDate: date }, 'fdr-listing');
      for (const [text, market, path] of [[kospi, 'KOSPI', FDR_FILES.kospi(date)], [kosdaq, 'KOSDAQ', FDR_FILES.kosdaq(date)]] as const) {
        if (text === null) continue;
        const index = parseFile(text, `fdr:${path}`, { market }, 'fdr-index');
        // A daily index file holds its date's row; anything else in it is not this unit's.
        quotes.index.push(...index.index.filter((b) => b.trade_date === date));
      }
      return { unit: date, batches: [quotes], hash: hash.digest('hex') } satisfies FetchedUnit;
    },

    async test(nowMs): Promise<SourceTestResult> {
      const date = publishedAt(nowMs, 0);
      const checks: SourceCheck[] = [];
      for (const [path, optional, looksRight] of [[FDR_FILES.listing(date), false, isListing], [FDR_FILES.kospi(date), false, isIndex], [FDR_FILES.kosdaq(date), false, isIndex]] as const) {
        try {
          const text = await file(path, optional, looksRight);
          const rows = Math.max(0, (text ?? '').trimEnd().split('\n').length - 1);
          checks.push({ service: path, ok: true, code: null, message: `${rows} rows`, apply_for: null });
        } catch (err) {
          const e = err instanceof ProviderError ? err : new ProviderError('transient', 'ERROR', (err as Error).message);
          checks.push({ service: path, ok: false, code: e.code, message: e.message, apply_for: null });
        }
      }
      return { name: 'fdr', ok: checks.every((c) => c.ok), checks };
    },

    close: () => http.close(),
  };
}
