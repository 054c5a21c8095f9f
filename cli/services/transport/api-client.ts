/**
 * A small typed HTTP client for the daemon over undici: base URL, bearer token, JSON
 * bodies, the spec's error envelope mapped to CliError, and one transparent token
 * renewal when the server rejects an expired or invalid access token.
 */
import type { Readable } from 'node:stream';
import { request } from 'undici';
import { CliError, HINTS, LOCAL_CODES, codeForStatus, rateLimitError } from '../session/errors.js';

/** Supplies access tokens and renews them (see token-source.ts). */
export interface TokenSource {
  /** The saved access token, if logged in. */
  accessToken(): Promise<string | undefined>;
  /** A fresh access token after `rejected` was refused, or undefined when renewal is impossible. */
  renew(rejected: string): Promise<string | undefined>;
}

/** HTTP methods the API uses. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** One call. */
export interface ApiRequest {
  method?: HttpMethod;
  /** Absolute path, e.g. `/api/v1/users/me` or `/health`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** JSON body; a function is evaluated on every attempt (so a retry after renewal sees fresh state). */
  body?: unknown;
  /** Extra request headers (e.g. Idempotency-Key), sent on every attempt. */
  headers?: Readonly<Record<string, string>>;
  /** Send the bearer token (default true); without a saved token the call fails with exit code 4. */
  auth?: boolean;
  /** Return HTTP error responses instead of throwing (health probes read 503 bodies). */
  allowError?: boolean;
  /**
   * A raw body streamed as `application/octet-stream` instead of `body` (uploads); `open` is
   * called on every attempt (a retry after token renewal sends the bytes again).
   */
  stream?: { open(): Readable; length: number };
  /**
   * What a write that got no answer in time may have done, for the error (e.g. "the account may
   * have been created — try `stockscreen login`"). Writes without one say that the request may
   * still have been carried out; a read that timed out changed nothing.
   */
  ifTimedOut?: string;
}

/** A parsed response. */
export interface ApiResponse<T> {
  status: number;
  /** Exactly the JSON the server sent (undefined for an empty body). */
  body: unknown;
  /** `body.data` for an envelope, else the body itself. */
  data: T;
  requestId?: string;
}

/** The client. */
export interface ApiClient {
  readonly baseUrl: string;
  /** @throws CliError for an error response, an unreachable daemon or a non-JSON answer */
  request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>>;
}

/** Options of createApiClient. */
export interface ApiClientOptions {
  baseUrl: string;
  tokens?: TokenSource;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** The error for a call that needs a token when none is saved (default: "not logged in"). */
  missingToken?: () => CliError;
}

/** Prefix of the REST API (spec: mounted under /api/v1 and /v1). */
export const API_PREFIX = '/api/v1';

interface RawResponse {
  status: number;
  body: unknown;
  requestId?: string;
  /** `Retry-After` of a 429 (seconds), when sent. */
  retryAfter?: string;
}

/** Create a client for the daemon at `baseUrl`. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function send(req: ApiRequest, token: string | undefined): Promise<RawResponse> {
    const url = buildUrl(baseUrl, req.path, req.query);
    const headers: Record<string, string> = { ...req.headers, accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const bodyValue = typeof req.body === 'function' ? await (req.body as () => unknown)() : req.body;
    if (bodyValue !== undefined) headers['content-type'] = 'application/json';
    if (req.stream) Object.assign(headers, { 'content-type': 'application/octet-stream', 'content-length': String(req.stream.length) });
    let res;
    try {
      res = await request(url, {
        method: req.method ?? 'GET',
        headers,
        body: req.stream ? req.stream.open() : bodyValue === undefined ? undefined : JSON.stringify(bodyValue),
        // An upload takes as long as its bytes take: the timeout is for answers, not transfers.
        signal: req.stream ? undefined : AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw unreachable(baseUrl, err, timeoutMs, req);
    }
    const text = await res.body.text();
    const header = res.headers['x-request-id'];
    const retryAfter = res.headers['retry-after'];
    return {
      status: res.statusCode,
      body: parseJson(text, res.statusCode, baseUrl),
      requestId: typeof header === 'string' ? header : undefined,
      ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
    };
  }

  return {
    baseUrl,
    async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
      const auth = req.auth ?? true;
      const token = auth ? await options.tokens?.accessToken() : undefined;
      if (auth && !token) {
        throw options.missingToken?.() ?? new CliError({ code: LOCAL_CODES.NOT_LOGGED_IN, message: 'not logged in' });
      }
      let raw = await send(req, token);
      if (raw.status === 401 && token && options.tokens && isStaleToken(raw.body)) {
        const renewed = await options.tokens.renew(token);
        if (renewed) raw = await send(req, renewed);
      }
      if (raw.status >= 400 && !req.allowError) throw errorFromResponse(raw, baseUrl);
      return { status: raw.status, body: raw.body, data: unwrapData<T>(raw.body), requestId: envelopeRequestId(raw.body) ?? raw.requestId };
    },
  };
}

function buildUrl(baseUrl: string, path: string, query: ApiRequest['query']): string {
  const url = new URL(baseUrl + path);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

function parseJson(text: string, status: number, baseUrl: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CliError({
      code: status >= 400 ? codeForStatus(status) : LOCAL_CODES.BAD_RESPONSE,
      status,
      message: `${baseUrl} answered HTTP ${status} with a body that is not JSON`,
      hint: 'check that --url points at stockscreend',
    });
  }
}

/** True for a 401 the server gave because the token expired or is not valid (not revoked, not missing). */
function isStaleToken(body: unknown): boolean {
  const reason = (body as { error?: { details?: { reason?: unknown } } } | undefined)?.error?.details?.reason;
  return reason === 'expired' || reason === 'invalid';
}

function unwrapData<T>(body: unknown): T {
  if (body && typeof body === 'object' && (body as { status?: unknown }).status === 'success' && 'data' in body) {
    return (body as { data: T }).data;
  }
  return body as T;
}

function envelopeRequestId(body: unknown): string | undefined {
  const id = (body as { meta?: { request_id?: unknown } } | undefined)?.meta?.request_id;
  return typeof id === 'string' ? id : undefined;
}

/** Map an HTTP error response (spec error envelope, or anything else) to a CliError. */
export function errorFromResponse(raw: RawResponse, baseUrl: string): CliError {
  const envelope = raw.body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined;
  const error = envelope?.error;
  const requestId = envelopeRequestId(raw.body) ?? raw.requestId;
  if (raw.status === 429 && !error) return rateLimitError(raw.body, raw.retryAfter, requestId);
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    const details = error.details && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : {};
    return new CliError({ code: error.code, message: error.message, status: raw.status, requestId, details });
  }
  return new CliError({ code: codeForStatus(raw.status), status: raw.status, requestId, message: `${baseUrl} answered HTTP ${raw.status}` });
}

const CONNECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET']);

function systemCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown }; errors?: { code?: unknown }[] } | undefined;
  const code = e?.code ?? e?.cause?.code ?? e?.errors?.[0]?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The "daemon unreachable" error: the URL tried and how to start the daemon. For a write (`req`
 * with a method other than GET) that timed out, it says what may have happened: the daemon may
 * have carried it out after the CLI stopped waiting.
 */
export function unreachable(baseUrl: string, err: unknown, timeoutMs: number, req?: Pick<ApiRequest, 'method' | 'ifTimedOut'>): CliError {
  const name = (err as { name?: unknown } | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    const write = req?.method !== undefined && req.method !== 'GET';
    const happened = write ? `; ${req.ifTimedOut ?? 'it may still have been carried out — check before repeating it'}` : '';
    return new CliError({
      code: 'TIMEOUT',
      message: `${write ? 'the request timed out: ' : ''}no answer from stockscreend at ${baseUrl} within ${timeoutMs / 1000} s${happened}`,
      hint: `check the daemon with \`stockscreen daemon status\``,
    });
  }
  const code = systemCode(err);
  if (code && !CONNECT_CODES.has(code)) {
    return new CliError({ code, message: `request to ${baseUrl} failed: ${(err as Error).message}` });
  }
  return new CliError({ code: code ?? 'UNREACHABLE', message: `cannot reach stockscreend at ${baseUrl}`, hint: HINTS.start });
}
