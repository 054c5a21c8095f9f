/**
 * A small JSON client for the load-test setup steps (register, log in, lift a user's tier,
 * list stocks, read /v1/ws/stats, post ticks). Load itself goes through autocannon and ws.
 */

/** An answer of the API. */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** A setup request the API refused or that failed on the way. */
export class ApiCallError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number | null,
    detail: string,
  ) {
    super(`${method} ${path} ${status === null ? 'failed' : `→ ${status}`}: ${detail}`);
    this.name = 'ApiCallError';
  }
}

/** Options of one call. */
export interface CallOptions {
  method?: string;
  json?: unknown;
  token?: string | null;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A bound client for one base URL. */
export interface ApiClient {
  readonly base: string;
  /** Any answer (no status check). @throws ApiCallError when the request cannot be made */
  call<T = unknown>(path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /** A 2xx answer's body. @throws ApiCallError for any other status */
  ok<T = unknown>(path: string, options?: CallOptions): Promise<T>;
}

function describe(body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as { error?: { code?: string; message?: string }; message?: string; detail?: string };
    if (b.error) return `${b.error.code ?? ''} ${b.error.message ?? ''}`.trim();
    if (b.message) return `${b.message}${b.detail ? ` (${b.detail})` : ''}`;
  }
  return typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body).slice(0, 200);
}

/** Create a client of `base` (e.g. http://127.0.0.1:8000). */
export function createApiClient(base: string): ApiClient {
  async function call<T>(path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    const method = options.method ?? (options.json === undefined ? 'GET' : 'POST');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(base + path, { method, headers, body: options.json === undefined ? undefined : JSON.stringify(options.json), signal });
    } catch (err) {
      throw new ApiCallError(method, path, null, `${(err as Error).message} (is the daemon running at ${base}?)`);
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: body as T };
  }
  return {
    base,
    call,
    async ok<T>(path: string, options: CallOptions = {}): Promise<T> {
      const res = await call<T>(path, options);
      if (res.status < 200 || res.status > 299) {
        throw new ApiCallError(options.method ?? (options.json === undefined ? 'GET' : 'POST'), path, res.status, describe(res.body));
      }
      return res.body;
    },
  };
}

/** The access token of a login answer (`data.access_token`, or the bare top-level shape). */
export function accessTokenOf(body: unknown): string {
  const b = body as { data?: { access_token?: unknown }; access_token?: unknown } | null;
  const token = b?.data?.access_token ?? b?.access_token;
  if (typeof token !== 'string') throw new Error('login answer carries no access_token');
  return token;
}
