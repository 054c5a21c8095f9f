/**
 * Calls to a data provider over HTTP (undici): a hard time limit per attempt, a cap on the
 * answer's size (read before parsing), pacing between calls, every attempt counted (the
 * provider counts them against the key's daily quota), and retries with exponential backoff and
 * jitter for what may pass (5xx, a timeout, a connection failure, an HTML error page or another
 * body that is not the answer). What cannot pass by retrying (a wrong or unapproved key, the
 * quota) fails at once with the provider's own code and message.
 */
import { Agent, request } from 'undici';

/** Why a provider call failed, in the provider's terms where it gave them. */
export type ProviderFailure = 'auth' | 'quota' | 'transient' | 'refused';

/** A failed provider call: `code` is the provider's (KRX `401`, OpenDART `020`) or ours (`HTTP_503`, `TIMEOUT`, `BAD_ANSWER`, `EMPTY`). */
export class ProviderError extends Error {
  constructor(readonly failure: ProviderFailure, readonly code: string, message: string, readonly service: string | null = null) {
    super(message);
    this.name = 'ProviderError';
  }

  /** Worth trying again within the run. */
  get retryable(): boolean {
    return this.failure === 'transient';
  }
}

/** An answer as received: status, content type and the body (already size-checked), as text and as bytes (an archive). */
export interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
  bytes: Buffer;
}

/** Options of createProviderHttp. */
export interface ProviderHttpOptions {
  /** One attempt's limit (connect, headers and body), ms. */
  timeoutMs: number;
  /** Further attempts after the first for a transient failure. */
  retries: number;
  /** First retry's delay (ms); each further one doubles, with ±25 % jitter. */
  backoffMs: number;
  /** Largest answer read (bytes); a longer one is a transient BAD_ANSWER. */
  maxBytes: number;
  /** Least time between two calls of this client (ms). */
  minIntervalMs: number;
  /** Told of every attempt made (the daily call count). */
  onCall?: () => void | Promise<void>;
}

/** A provider's HTTP client. */
export interface ProviderHttp {
  /**
   * GET `url` and turn the answer into a value with `interpret` (which throws or rejects with
   * ProviderError for an answer that is not one), retrying transient failures.
   * @throws ProviderError after the last attempt, or at once when not retryable
   */
  get<T>(url: string, headers: Record<string, string>, interpret: (answer: RawAnswer) => T | Promise<T>, signal?: AbortSignal): Promise<T>;
  close(): Promise<void>;
}

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal?.aborted) return reject(signal.reason as Error);
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason as Error); }, { once: true });
});

/** Create a client; `close()` ends its connections. */
export function createProviderHttp(options: ProviderHttpOptions): ProviderHttp {
  const agent = new Agent({ connectTimeout: options.timeoutMs, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs, connections: 4 });
  let nextCallAt = 0;

  async function pace(signal?: AbortSignal): Promise<void> {
    const wait = nextCallAt - Date.now();
    nextCallAt = Math.max(Date.now(), nextCallAt) + options.minIntervalMs;
    if (wait > 0) await sleep(wait, signal);
  }

  async function once(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<RawAnswer> {
    await pace(signal);
    await options.onCall?.();
    // The whole attempt (not only each phase) is bounded: a server that trickles bytes is a timeout too.
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const both = signal ? AbortSignal.any([signal, deadline]) : deadline;
    try {
      const res = await request(url, { method: 'GET', headers, dispatcher: agent, signal: both });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > options.maxBytes) {
          res.body.destroy();
          throw new ProviderError('transient', 'BAD_ANSWER', `answer larger than ${options.maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      const contentType = String(res.headers['content-type'] ?? '');
      const bytes = Buffer.concat(chunks);
      return { status: res.statusCode, contentType, text: bytes.toString('utf8'), bytes };
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      if (signal?.aborted) throw err;
      const e = err as Error & { code?: string };
      if (deadline.aborted || /Timeout/i.test(e.name) || /TIMEOUT/.test(e.code ?? '')) {
        throw new ProviderError('transient', 'TIMEOUT', `no complete answer within ${options.timeoutMs} ms`);
      }
      throw new ProviderError('transient', 'UNREACHABLE', `cannot reach the provider (${e.code ?? e.message})`);
    }
  }

  return {
    async get(url, headers, interpret, signal) {
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await interpret(await once(url, headers, signal));
        } catch (err) {
          if (!(err instanceof ProviderError) || !err.retryable || attempt >= options.retries) throw err;
          const base = options.backoffMs * 2 ** attempt;
          await sleep(base * (0.75 + Math.random() * 0.5), signal);
        }
      }
    },
    close: () => agent.close(),
  };
}

/** The answer as JSON, or a transient BAD_ANSWER naming what came instead (an HTML error page, a cut-off body). */
export function answerJson(answer: RawAnswer, service: string): unknown {
  try {
    return JSON.parse(answer.text);
  } catch {
    const kind = /html/i.test(answer.contentType) || /^\s*</.test(answer.text) ? 'an HTML page' : 'a body that is not JSON';
    throw new ProviderError('transient', 'BAD_ANSWER', `${service}: the provider answered ${kind} (HTTP ${answer.status})`, service);
  }
}
