/**
 * Outbound HTTP for notifications (undici), safe against server-side request forgery:
 *
 * - Every connection to a user's URL resolves its host itself and connects only to an address
 *   the address policy allows (the lookup hands the socket the checked address, so a DNS answer
 *   that changes between the check and the connection — rebinding — cannot smuggle a private
 *   address in). IP-literal hosts are checked before the request (no lookup happens for them).
 * - Plain HTTP only to addresses the operator allowed; HTTPS otherwise.
 * - Redirects are not followed (a 3xx is the answer), at most `maxResponseBytes` of an answer are
 *   read, and one attempt (connect, send, answer) is bounded by `timeoutMs` whatever the receiver does.
 *
 * Operator-configured endpoints (the Telegram Bot API base URL) are trusted: no address check.
 */
import { MAX_URL_LENGTH } from '../contract/notify.js';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import type { AddressPolicy } from './address-policy.js';

/** Resolves a host name to its addresses (dns.lookup's answer). */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

/** Options of createOutbound. */
export interface OutboundOptions {
  policy: AddressPolicy;
  /** One attempt's hard limit, connect to last byte read. */
  timeoutMs: number;
  /** Most bytes of an answer read (the rest is dropped). */
  maxResponseBytes?: number;
  /** Name resolution (tests inject one to play DNS rebinding); default the system resolver. */
  resolve?: Resolver;
}

/** What a receiver answered. */
export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The first `maxResponseBytes` of the answer, as text. */
  body: string;
  durationMs: number;
}

/** Why no answer came: refused by the policy, timed out, or a network failure. */
export class OutboundError extends Error {
  constructor(
    readonly kind: 'refused' | 'timeout' | 'network',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/** A POST to send. */
export interface OutboundRequest {
  headers: Record<string, string>;
  body: string;
  /** An operator-configured endpoint: no address policy. */
  trusted?: boolean;
}

/** The outbound client. */
export interface Outbound {
  /**
   * Check a URL a user gives (scheme, no credentials, where its host resolves) before it is saved.
   * @throws OutboundError('refused') naming the problem
   */
  vet(url: string): Promise<void>;
  /** POST once. @throws OutboundError when no answer came */
  post(url: string, req: OutboundRequest): Promise<OutboundResponse>;
  /** Close every connection; idempotent. */
  close(): Promise<void>;
}

/** Default of OutboundOptions.maxResponseBytes: enough for an error message, not for a flood. */
export const MAX_RESPONSE_BYTES = 4096;
/** Longest URL a channel may have (the wire contract's limit). */
export { MAX_URL_LENGTH } from '../contract/notify.js';

const REFUSED = 'ESTOCKSCREEN_REFUSED';

const systemResolver: Resolver = async (host) => dnsLookup(host, { all: true, verbatim: true });

/** Parse a webhook URL and check what can be checked without a lookup. @throws the refusal */
function parse(url: string): { u: URL; scheme: 'http' | 'https' } {
  if (url.length > MAX_URL_LENGTH) throw refused(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw refused('not a valid URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw refused('the URL must start with https://');
  if (u.username || u.password) throw refused('the URL must not carry a user name or password');
  if (!u.hostname) throw refused('the URL has no host');
  return { u, scheme: u.protocol === 'https:' ? 'https' : 'http' };
}

/** Create the outbound client. */
export function createOutbound(options: OutboundOptions): Outbound {
  const { policy, timeoutMs } = options;
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const resolve = options.resolve ?? systemResolver;

  /** The addresses of `host` a connection over `scheme` may use; throws when there is none. */
  async function allowedAddresses(host: string, scheme: 'http' | 'https'): Promise<{ address: string; family: number }[]> {
    let found: { address: string; family: number }[];
    try {
      found = await resolve(host);
    } catch {
      throw refused(`the host ${host} does not resolve`);
    }
    if (found.length === 0) throw refused(`the host ${host} does not resolve`);
    const verdicts = found.map((a) => ({ a, v: policy.check(a.address) }));
    const bad = verdicts.find(({ v }) => !v.ok);
    if (bad && !bad.v.ok) throw refused(`the host ${host} resolves to ${bad.v.reason}: refused (an operator may allow it with STOCKSCREEN_WEBHOOK_ALLOW_PRIVATE)`);
    if (scheme === 'http' && verdicts.some(({ v }) => v.ok && !v.http)) throw refused('plain http:// is only allowed to addresses the operator allows; use https://');
    return found;
  }

  /** A lookup for net.connect that only ever answers checked addresses (the pin). */
  function pinnedLookup(scheme: 'http' | 'https'): LookupFunction {
    return ((host: string, opts: { all?: boolean }, callback: (err: Error | null, address?: unknown, family?: number) => void) => {
      allowedAddresses(host, scheme).then(
        (addresses) => (opts.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)),
        (err: Error) => callback(err),
      );
    }) as LookupFunction;
  }

  const agentOptions = { connect: { timeout: timeoutMs }, keepAliveTimeout: 30_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  const agents: Record<'http' | 'https' | 'trusted', Agent> = {
    https: new Agent({ ...agentOptions, connect: { ...agentOptions.connect, lookup: pinnedLookup('https') } }),
    http: new Agent({ ...agentOptions, connect: { ...agentOptions.connect, lookup: pinnedLookup('http') } }),
    trusted: new Agent(agentOptions),
  };
  let closed: Promise<void> | undefined;

  /** An IP-literal host is checked here: no lookup will run for it. */
  function checkLiteral(host: string, scheme: 'http' | 'https'): void {
    const bare = host.replace(/^\[|\]$/g, '');
    if (!isIP(bare)) return;
    const v = policy.check(bare);
    if (!v.ok) throw refused(`the address is ${v.reason}: refused (an operator may allow it with STOCKSCREEN_WEBHOOK_ALLOW_PRIVATE)`);
    if (scheme === 'http' && !v.http) throw refused('plain http:// is only allowed to addresses the operator allows; use https://');
  }

  return {
    async vet(url) {
      const { u, scheme } = parse(url);
      const bare = u.hostname.replace(/^\[|\]$/g, '');
      if (isIP(bare)) return checkLiteral(u.hostname, scheme);
      await allowedAddresses(bare, scheme);
    },
    async post(url, req) {
      const started = Date.now();
      let dispatcher: Dispatcher = agents.trusted;
      if (!req.trusted) {
        const { u, scheme } = parse(url);
        checkLiteral(u.hostname, scheme);
        dispatcher = agents[scheme];
      }
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const res = await request(url, { method: 'POST', headers: req.headers, body: req.body, dispatcher, signal });
        const body = await readCapped(res.body, maxBytes);
        return { status: res.statusCode, headers: res.headers, body, durationMs: Date.now() - started };
      } catch (err) {
        throw classify(err, signal, timeoutMs);
      }
    },
    close() {
      closed ??= Promise.all(Object.values(agents).map((a) => a.close().catch(() => undefined))).then(() => undefined);
      return closed;
    },
  };
}

function refused(message: string): OutboundError {
  const err = new OutboundError('refused', message);
  (err as { code?: string }).code = REFUSED;
  return err;
}

/** Read at most `max` bytes of a body, then drop the rest (the socket is closed). */
async function readCapped(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    chunks.push(buf.subarray(0, max - size));
    size += buf.length;
    if (size >= max) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The kind of failure, with a message that names no URL (a Telegram URL holds the bot token). */
function classify(err: unknown, signal: AbortSignal, timeoutMs: number): OutboundError {
  if (err instanceof OutboundError) return err;
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === REFUSED) return new OutboundError('refused', e.message ?? e.cause?.message ?? 'refused');
  if (e.cause && (e.cause as { code?: string }).code === REFUSED) return new OutboundError('refused', e.cause.message ?? 'refused');
  if (signal.aborted || e.name === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new OutboundError('timeout', `no answer within ${timeoutMs} ms`);
  }
  return new OutboundError('network', code ? `network error (${code})` : 'network error');
}
