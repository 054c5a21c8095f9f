/**
 * One attempt to one channel, by type, and what the answer means:
 *
 * - webhook: the frozen JSON body, signed (Standard Webhooks); 2xx is success.
 * - telegram: Bot API `POST <api>/bot<token>/sendMessage {chat_id, text}`; `{"ok":true}` is success;
 *   429 carries `parameters.retry_after` (seconds); 401 (bad token), 403 (bot blocked or removed)
 *   and 400 "chat not found" will not get better.
 * - slack: incoming webhook `POST {text}`; 200 "ok"; 404 channel_not_found, 410 channel_is_archived.
 * - discord: execute webhook `POST {content, allowed_mentions: {parse: []}}` (no @everyone pings);
 *   204; 429 with `retry_after` (seconds, fractional) and Retry-After; a 404 means the webhook was deleted.
 * - email: SMTP through nodemailer; a 4xx reply or a connection failure is retried, a 5xx reply is not.
 *
 * Common rules: 408, 429 and 5xx (and timeouts, network failures) are retried, honouring
 * Retry-After; every other 4xx, and 3xx (redirects are not followed), is permanent; a receiver
 * that said it wants no more (410 Gone, a deleted webhook or chat) also switches its channel off.
 * No error text ever holds a URL or a token.
 */
import type { Transporter } from 'nodemailer';
import type { ChannelRecord } from '../store/channels-repo.js';
import type { WebhookBody } from '../contract/notify.js';
import { TEXT_LIMITS, renderText, subjectOf } from './messages.js';
import { OutboundError, type Outbound, type OutboundResponse } from './outbound.js';
import { signWebhook } from './signing.js';

/** What one attempt came to. */
export interface AttemptResult {
  ok: boolean;
  /** HTTP status, or the SMTP reply code; null when no answer came. */
  statusCode: number | null;
  error: string | null;
  /** Retrying cannot help. */
  permanent: boolean;
  /** The receiver asked to wait at least this long. */
  retryAfterMs?: number;
  /** The receiver refused for good: switch the channel off, saying this. */
  disable?: string;
}

/** One delivery attempt's inputs. */
export interface SendInput {
  channel: ChannelRecord;
  deliveryId: string;
  /** The frozen body (webhooks send these bytes). */
  body: string;
  parsed: WebhookBody;
  now: number;
}

/** What the senders need. */
export interface SenderDeps {
  outbound: Outbound;
  /** Base URL of the Telegram Bot API. */
  telegramApiUrl: string;
  /** SMTP transport (absent: e-mail channels cannot send). */
  mail?: Transporter;
  mailFrom: string;
  /** One attempt's hard limit (the SMTP exchange too). */
  timeoutMs: number;
  userAgent: string;
}

/** Send one attempt. Never throws. */
export type Sender = (input: SendInput) => Promise<AttemptResult>;

/** Build the sender of every channel type. */
export function createSender(deps: SenderDeps): Sender {
  const json = (extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', 'user-agent': deps.userAgent, ...extra });

  async function http(url: string, headers: Record<string, string>, body: string, trusted: boolean, read: (res: OutboundResponse) => AttemptResult, secrets: readonly string[]): Promise<AttemptResult> {
    try {
      return read(await deps.outbound.post(url, { headers, body, trusted }));
    } catch (err) {
      if (err instanceof OutboundError) {
        // A URL that became unsafe (its DNS now points inside) will not become safe by retrying.
        return { ok: false, statusCode: null, error: scrub(err.message, secrets), permanent: err.kind === 'refused' };
      }
      return { ok: false, statusCode: null, error: scrub((err as Error).message ?? 'send failed', secrets), permanent: false };
    }
  }

  const byType: Record<ChannelRecord['type'], Sender> = {
    async webhook({ channel, deliveryId, body }) {
      // The attempt's wall-clock time: receivers check it against their own clock (a 5-minute tolerance).
      const signed = signWebhook(channel.secret ?? '', deliveryId, Date.now(), body);
      return http(channel.target, json({ ...signed }), body, false, (res) => byStatus(res, undefined), []);
    },
    async telegram({ channel, parsed }) {
      const token = channel.secret ?? '';
      const url = `${deps.telegramApiUrl.replace(/\/+$/, '')}/bot${token}/sendMessage`;
      const payload = JSON.stringify({ chat_id: channel.target, text: renderText(parsed, TEXT_LIMITS.telegram), link_preview_options: { is_disabled: true } });
      return http(url, json(), payload, true, (res) => telegramResult(res, token), [token]);
    },
    async slack({ channel, parsed }) {
      const payload = JSON.stringify({ text: renderText(parsed, TEXT_LIMITS.slack) });
      return http(channel.target, json(), payload, false, (res) => byStatus(res, res.status === 404 || res.status === 410 ? `Slack answered ${res.status} ${oneLine(res.body)}` : undefined), [channel.target]);
    },
    async discord({ channel, parsed }) {
      const payload = JSON.stringify({ content: renderText(parsed, TEXT_LIMITS.discord), allowed_mentions: { parse: [] } });
      return http(channel.target, json(), payload, false, (res) => discordResult(res), [channel.target]);
    },
    async email({ channel, deliveryId, parsed }) {
      if (!deps.mail) return { ok: false, statusCode: null, error: 'no SMTP server configured (STOCKSCREEN_SMTP_URL)', permanent: false };
      try {
        const sent = deps.mail.sendMail({
          from: deps.mailFrom, to: channel.target, subject: subjectOf(parsed), text: renderText(parsed, TEXT_LIMITS.email),
          // The same Message-ID on every attempt: mail systems drop a duplicate of a message they already took.
          messageId: `<${deliveryId}@stockscreen>`, headers: { 'X-Stockscreen-Delivery': deliveryId },
        });
        const info = (await withTimeout(sent, deps.timeoutMs)) as { response?: string };
        return { ok: true, statusCode: Number(/^(\d{3})/.exec(info.response ?? '')?.[1] ?? 250), error: null, permanent: false };
      } catch (err) {
        const e = err as { responseCode?: number; code?: string; message?: string };
        if (typeof e.responseCode === 'number') {
          return { ok: false, statusCode: e.responseCode, error: oneLine(e.message ?? `SMTP ${e.responseCode}`), permanent: e.responseCode >= 500 };
        }
        return { ok: false, statusCode: null, error: e.code === 'TIMEOUT' ? `no answer within ${deps.timeoutMs} ms` : `SMTP ${e.code ?? 'error'}: ${oneLine(e.message ?? '')}`, permanent: false };
      }
    },
  };
  return (input) => byType[input.channel.type](input);
}

/** The common reading of an HTTP answer. */
export function byStatus(res: OutboundResponse, disable: string | undefined): AttemptResult {
  const status = res.status;
  if (status >= 200 && status < 300) return { ok: true, statusCode: status, error: null, permanent: false };
  const retryAfterMs = retryAfter(res.headers['retry-after']);
  const error = `HTTP ${status}${res.body ? `: ${oneLine(res.body)}` : ''}`;
  if (status === 408 || status === 429 || status >= 500) return { ok: false, statusCode: status, error, permanent: false, retryAfterMs };
  if (status === 410) return { ok: false, statusCode: status, error, permanent: true, disable: disable ?? 'the receiver answered 410 Gone' };
  if (status >= 300 && status < 400) return { ok: false, statusCode: status, error: `${error} (redirects are not followed: update the URL)`, permanent: true };
  return { ok: false, statusCode: status, error, permanent: true, disable };
}

function telegramResult(res: OutboundResponse, token: string): AttemptResult {
  let answer: { ok?: boolean; description?: string; error_code?: number; parameters?: { retry_after?: number } } = {};
  try {
    answer = JSON.parse(res.body) as typeof answer;
  } catch {
    // not JSON (a proxy's page): read by status
  }
  if (res.status === 200 && answer.ok === true) return { ok: true, statusCode: 200, error: null, permanent: false };
  const error = scrub(`Telegram ${res.status}: ${oneLine(answer.description ?? res.body)}`, [token]);
  const base = byStatus(res, undefined);
  if (res.status === 429) return { ...base, error, retryAfterMs: secondsToMs(answer.parameters?.retry_after) ?? base.retryAfterMs };
  if (res.status === 401) return { ...base, error, disable: 'Telegram refused the bot token (401)' };
  if (res.status === 403 || (res.status === 400 && /chat not found/i.test(answer.description ?? ''))) return { ...base, error, disable: `Telegram: ${oneLine(answer.description ?? 'forbidden')}` };
  return { ...base, error };
}

function discordResult(res: OutboundResponse): AttemptResult {
  const base = byStatus(res, res.status === 404 ? 'Discord answered 404: the webhook was deleted' : undefined);
  if (res.status !== 429) return base;
  try {
    const retry = secondsToMs((JSON.parse(res.body) as { retry_after?: number }).retry_after);
    return retry === undefined ? base : { ...base, retryAfterMs: Math.max(retry, base.retryAfterMs ?? 0) };
  } catch {
    return base;
  }
}

/** Retry-After: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return secondsToMs(Number(v));
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function secondsToMs(s: number | undefined): number | undefined {
  return typeof s === 'number' && Number.isFinite(s) && s >= 0 ? Math.ceil(s * 1000) : undefined;
}

/** One line of at most 200 characters, no control characters. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 200);
}

/** `text` with every secret in it cut out. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 8) out = out.split(s).join('[redacted]');
  return out;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'TIMEOUT' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
