/**
 * Authenticated requests whose answer is not JSON (CSV screens, the NDJSON market
 * export): the body is handed over as a stream. Error answers are still the spec's JSON
 * envelope and become the same CliError as in api-client.ts; a stale access token is
 * renewed once, like the JSON client does.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'undici';
import type { TokenPair } from '../../../daemon/contract/users.js';
import { API_PREFIX, createApiClient, errorFromResponse, unreachable, type HttpMethod } from './api-client.js';
import { CliError, HINTS, LOCAL_CODES } from '../session/errors.js';
import type { Session } from '../session/session.js';
import { createTokenSource } from '../session/token-source.js';

/** One streamed call. */
export interface StreamRequest {
  method?: HttpMethod;
  /** Absolute path, e.g. `/api/v1/admin/export`. */
  path: string;
  body?: unknown;
  /** The Accept header, e.g. `text/csv`. */
  accept: string;
  /** Longest wait for the headers and between two body chunks (default 120 s). */
  timeoutMs?: number;
}

/** A successful streamed answer. */
export interface StreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: AsyncIterable<Buffer>;
}

function isStaleToken(body: unknown): boolean {
  const reason = (body as { error?: { details?: { reason?: unknown } } } | undefined)?.error?.details?.reason;
  return reason === 'expired' || reason === 'invalid';
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Send `req` with the profile's access token and return the body as a stream.
 * @throws CliError NOT_LOGGED_IN without saved credentials, the server's error for an
 *   error answer, or "daemon unreachable"
 */
export async function streamRequest(session: Session, req: StreamRequest): Promise<StreamResponse> {
  const timeoutMs = req.timeoutMs ?? 120_000;
  const anonymous = createApiClient({ baseUrl: session.baseUrl });
  const tokens = createTokenSource({
    store: session.store,
    profile: session.profile,
    refresh: async (refreshToken) =>
      (await anonymous.request<TokenPair>({ method: 'POST', path: `${API_PREFIX}/auth/refresh`, body: { refresh_token: refreshToken }, auth: false })).data,
  });
  const send = async (token: string) => {
    const headers: Record<string, string> = { accept: req.accept, authorization: `Bearer ${token}` };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await request(session.baseUrl + req.path, {
        method: req.method ?? 'GET',
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (err) {
      throw unreachable(session.baseUrl, err, timeoutMs);
    }
  };

  const token = await tokens.accessToken();
  if (!token) throw new CliError({ code: LOCAL_CODES.NOT_LOGGED_IN, message: `not logged in (profile ${session.profile})`, hint: HINTS.login });
  let res = await send(token);
  if (res.statusCode === 401) {
    const body = parseMaybeJson(await res.body.text());
    const renewed = isStaleToken(body) ? await tokens.renew(token) : undefined;
    if (!renewed) throw errorFromResponse({ status: 401, body }, session.baseUrl);
    res = await send(renewed);
  }
  if (res.statusCode >= 400) {
    const header = res.headers['x-request-id'];
    const body = parseMaybeJson(await res.body.text());
    throw errorFromResponse({ status: res.statusCode, body, requestId: typeof header === 'string' ? header : undefined }, session.baseUrl);
  }
  return { status: res.statusCode, headers: res.headers, body: res.body };
}
