/**
 * The KIS REST calls the feed makes: the access token, the WebSocket approval key and the
 * multi-stock current price (formats in ./protocol.ts). The app key and secret go in request
 * bodies and headers only; they never appear in an error message or a log line.
 */
import { KIS, errorOf, multiPriceQuery } from './protocol.js';

/** A failed provider call: the HTTP status and the provider's error code, when it gave one. */
export class KisApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
  ) {
    super(message);
    this.name = 'KisApiError';
  }
  /** More calls a second than the key allows (EGW00201): wait and retry. */
  get rateLimited(): boolean {
    return this.code === KIS.rateLimited;
  }
  /** The access token expired or was revoked: get another one. */
  get tokenExpired(): boolean {
    return this.code === KIS.tokenExpired;
  }
}

/** An issued access token. */
export interface KisToken {
  token: string;
  /** ms epoch after which the token is no longer valid. */
  expiresAt: number;
}

/** Settings of the REST client. */
export interface KisRestOptions {
  restUrl: string;
  appKey: string;
  appSecret: string;
  /** One call's time limit (default 10 s). */
  timeoutMs?: number;
  now(): number;
}

/** The REST calls. */
export interface KisRest {
  /** Issue an access token. @throws KisApiError (EGW00133 when asked twice within a minute) */
  issueToken(): Promise<KisToken>;
  /** Issue a WebSocket approval key. @throws KisApiError */
  approvalKey(): Promise<string>;
  /** Current prices of up to 30 codes: the answer's `output` rows, unchecked. @throws KisApiError */
  multiPrice(token: string, codes: readonly string[]): Promise<unknown[]>;
}

/** Create the REST client. */
export function createKisRest(options: KisRestOptions): KisRest {
  const base = options.restUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const json = { 'content-type': 'application/json; charset=utf-8', accept: 'text/plain', charset: 'UTF-8' };

  async function call(path: string, init: RequestInit): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      // Only the cause's name: a message could quote the URL, never a secret, but keep it short.
      throw new KisApiError(0, null, `KIS unreachable (${(err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err as Error).message})`);
    }
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      throw new KisApiError(res.status, null, `KIS answered HTTP ${res.status} with a body that is not JSON`);
    }
    const { code, message } = errorOf(body);
    const rtCd = (body as { rt_cd?: unknown } | null)?.rt_cd;
    if (!res.ok || (rtCd !== undefined && rtCd !== '0')) {
      throw new KisApiError(res.status, code, `KIS ${path} failed: HTTP ${res.status}${code ? ` ${code}` : ''}${message ? ` ${message}` : ''}`);
    }
    return body;
  }

  return {
    async issueToken() {
      const body = (await call(KIS.tokenPath, {
        method: 'POST', headers: json,
        body: JSON.stringify({ grant_type: 'client_credentials', appkey: options.appKey, appsecret: options.appSecret }),
      })) as Record<string, unknown>;
      if (typeof body?.access_token !== 'string' || body.access_token === '') throw new KisApiError(200, null, 'KIS token answer without access_token');
      const expiresIn = Number(body.expires_in);
      const until = typeof body.access_token_token_expired === 'string' ? Date.parse(`${body.access_token_token_expired.replace(' ', 'T')}+09:00`) : NaN;
      const expiresAt = Number.isFinite(until) ? until : options.now() + (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : 86_400_000);
      return { token: body.access_token, expiresAt };
    },
    async approvalKey() {
      const body = (await call(KIS.approvalPath, {
        method: 'POST', headers: json,
        body: JSON.stringify({ grant_type: 'client_credentials', appkey: options.appKey, secretkey: options.appSecret }),
      })) as Record<string, unknown>;
      if (typeof body?.approval_key !== 'string' || body.approval_key === '') throw new KisApiError(200, null, 'KIS approval answer without approval_key');
      return body.approval_key;
    },
    async multiPrice(token, codes) {
      const body = (await call(`${KIS.multiPricePath}?${multiPriceQuery(codes)}`, {
        method: 'GET',
        headers: { ...json, authorization: `Bearer ${token}`, appkey: options.appKey, appsecret: options.appSecret, tr_id: KIS.multiPriceTrId, custtype: 'P' },
      })) as Record<string, unknown>;
      const output = body?.output;
      if (!Array.isArray(output)) throw new KisApiError(200, (body?.msg_cd as string) ?? null, 'KIS multi-price answer without an output list');
      return output;
    },
  };
}
