/**
 * OpenDART's calls (protocol in daemon/sources/opendart.ts): the URL carrying the key, JSON
 * answers read in OpenDART's terms (013 is an empty list, any other status but 000 a failure
 * of its kind), the company list out of its zip, and one company's full statements.
 */
import { parseCorpCodes, parseStatusXml, type CorpCode } from './corp-codes.js';
import type { KeyAccountItem } from './key-accounts.js';
import type { ReportPeriod } from './periods.js';
import { readZipEntry, ZipError } from './zip.js';
import { answerJson, ProviderError, type ProviderHttp, type RawAnswer } from '../provider-http.js';

/** The services this source calls. */
export const DART_SERVICES = {
  corpCode: 'corpCode.xml',
  keyAccounts: 'fnlttMultiAcnt.json',
  fullStatements: 'fnlttSinglAcntAll.json',
} as const;

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

/** The status of a JSON error body, or null. */
function jsonStatus(text: string): { status: string; message: string } | null {
  try {
    const json = JSON.parse(text) as { status?: unknown; message?: unknown };
    return typeof json.status === 'string' ? { status: json.status, message: typeof json.message === 'string' ? json.message : '' } : null;
  } catch {
    return null;
  }
}

/** The list of a JSON answer (empty for 013), or the failure in OpenDART's terms. */
function listOf(answer: RawAnswer, service: string): KeyAccountItem[] {
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
}

/** The companies of a corpCode.xml answer: its zip's CORPCODE.xml, or OpenDART's error. */
async function companiesOf(answer: RawAnswer, service: string, maxXmlBytes: number): Promise<CorpCode[]> {
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
    const list = await parseCorpCodes(await readZipEntry(answer.bytes, 'CORPCODE.xml', maxXmlBytes));
    if (list.length === 0) throw new ProviderError('transient', 'EMPTY', `${service}: the company list is empty`, service);
    return list;
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    const what = err instanceof ZipError ? 'the zip is unreadable' : 'CORPCODE.xml is unreadable';
    throw new ProviderError('transient', 'BAD_ANSWER', `${service}: ${what}: ${(err as Error).message}`, service);
  }
}

/** Where and how the client calls. */
export interface DartClientOptions {
  /** The key (crtfc_key); absent: every call fails with NO_KEY. */
  apiKey: string | undefined;
  /** Base URL without a trailing slash. */
  baseUrl: string;
  http: ProviderHttp;
  /** Largest CORPCODE.xml inflated (bytes): a bigger one is refused as a zip bomb. */
  maxXmlBytes: number;
}

/** OpenDART's calls. @throws ProviderError from each */
export interface DartClient {
  /** One JSON call: the list (empty for 013). */
  callJson(service: string, params: Record<string, string>, signal?: AbortSignal): Promise<KeyAccountItem[]>;
  /** The company list. */
  corpCodes(signal?: AbortSignal): Promise<CorpCode[]>;
  /** One company's full statements for a period: the first division answered, or none (013 for each). */
  fullStatements(corp: string, p: ReportPeriod, divisions: readonly string[], signal?: AbortSignal): Promise<KeyAccountItem[]>;
}

/** Create the client. */
export function createDartClient(options: DartClientOptions): DartClient {
  const { apiKey, baseUrl, http } = options;

  function url(service: string, params: Record<string, string>): string {
    if (!apiKey) throw new ProviderError('auth', 'NO_KEY', 'no OpenDART key: set STOCKSCREEN_DART_API_KEY', service);
    // The key travels in the query, as OpenDART requires: the URL is never logged or put in a message.
    return `${baseUrl}/${service}?${new URLSearchParams({ crtfc_key: apiKey, ...params }).toString()}`;
  }

  const client: DartClient = {
    callJson(service, params, signal) {
      return http.get(url(service, params), { Accept: 'application/json' }, (answer) => listOf(answer, service), signal);
    },
    corpCodes(signal) {
      const service = DART_SERVICES.corpCode;
      return http.get(url(service, {}), { Accept: 'application/zip, application/xml' }, (answer) => companiesOf(answer, service, options.maxXmlBytes), signal);
    },
    async fullStatements(corp, p, divisions, signal) {
      for (const fsDiv of divisions) {
        const items = await client.callJson(DART_SERVICES.fullStatements, { corp_code: corp, bsns_year: String(p.year), reprt_code: p.reprt_code, fs_div: fsDiv }, signal);
        if (items.length > 0) return items.map((i) => ({ ...i, corp_code: i.corp_code ?? corp, fs_div: fsDiv }));
      }
      return [];
    },
  };
  return client;
}
