/**
 * The remote-target guard: a load test goes to loopback addresses only, unless the caller
 * says `allowRemote` (a load test against someone else's server is an attack). Decided from
 * the URL alone, without DNS: a name other than `localhost` is remote, whatever it resolves to.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { invalidRequest } from '../daemon/errors.js';

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback; `localhost` and `*.localhost` (RFC 6761). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIPv4(host)) return host.split('.')[0] === '127';
  if (isIPv6(host)) {
    if (host === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(host)) return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
    if (mapped) return mapped[1]!.split('.')[0] === '127';
    // ::ffff:7f00:1 is how URL parsing writes ::ffff:127.0.0.1.
    const hex = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(host);
    return hex !== null && parseInt(hex[1]!, 16) >> 8 === 0x7f;
  }
  return false;
}

/**
 * Normalised base URL (no trailing slash) of a target that may be load-tested.
 * @throws AppError INVALID_REQUEST for a non-http(s) URL, or a non-loopback host without `allowRemote`
 */
export function checkTarget(url: string, allowRemote: boolean): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidRequest(`not a URL: ${url}`, { url: 'must be an http:// or https:// URL' });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalidRequest(`unsupported scheme ${parsed.protocol} in ${url}`, { url: 'must be an http:// or https:// URL' });
  }
  if (!allowRemote && !isLoopbackHost(parsed.hostname)) {
    throw invalidRequest(
      `refusing to load-test ${parsed.origin}: not a loopback address. Pass --allow-remote to target a remote deployment you are allowed to load`,
      { url: 'only loopback targets (127.0.0.0/8, ::1, localhost) without allowRemote' },
    );
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

/** The WebSocket base URL (ws:// or wss://) of an http(s) base URL. */
export function wsBase(httpBase: string): string {
  return httpBase.replace(/^http/, 'ws');
}
