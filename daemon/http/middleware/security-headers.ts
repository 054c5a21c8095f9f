/**
 * The response header policy (README "Threat model"), set before any route runs so that
 * errors, 404s and 503s carry it too:
 * - every response: `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`,
 *   `X-Frame-Options: DENY` and a Content-Security-Policy. API answers are data, never a
 *   page: `default-src 'none'; frame-ancestors 'none'` (OWASP REST Security Cheat Sheet).
 * Set by the route table, never by matching paths here: the documentation routes declare
 * their page's policy and the auth and account routes `Cache-Control: no-store` in their
 * `headers` (see api.ts), which the route's first step sets.
 * - the documentation pages (/docs, /redoc): a strict policy for pages whose assets are all
 *   served by this daemon (routes/docs.ts): scripts, styles, images and fonts from this
 *   origin only, no inline script, no framing, no forms, the API reachable only here.
 *   Styles may be inline (both UIs set style attributes); ReDoc's bundle also compiles
 *   JSON schemas at run time (ajv's `new Function`) and starts its search worker from a
 *   blob, so its page allows 'unsafe-eval' and blob: workers, and Swagger UI's does not.
 * - authentication answers (`/auth/*`: login, register, refresh, logout) and `/users/*`:
 *   `Cache-Control: no-store` (tokens and account data stay out of every cache).
 */
import type { RequestHandler } from 'express';

/** The policy of JSON, text and asset responses. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

const DOCS_BASE = [
  "default-src 'none'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
];

/** The policy of the Swagger UI page (/docs). */
export const SWAGGER_CSP = [...DOCS_BASE, "script-src 'self'"].join('; ');
/** The policy of the ReDoc page (/redoc). */
export const REDOC_CSP = [...DOCS_BASE, "script-src 'self' 'unsafe-eval'", "worker-src 'self' blob:"].join('; ');

/** The headers of routes whose answers hold tokens or account data. */
export const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/** Set the header policy on every response (mount first, before any route). */
export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', API_CSP);
    next();
  };
}
