/**
 * The rate-limit middleware (spec "Limits"), mounted ahead of the versioned routers:
 * classify the request by route template (exempt? endpoint limit?), identify the caller
 * (user by a valid token, else client address), check every applicable counter in one
 * Redis round trip, then set the headers and either continue or answer 429.
 * Fails open: a Redis error or a reply slower than `timeout_ms` lets the request through.
 */
import type { Request, RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { throttledWarning } from '../../infra/throttled-warning.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../infra/clock.js';
import type { Metrics } from '../../infra/metrics.js';
import { decide, peekHeaders, staticHeaders, type Verdict } from '../../ratelimit/decision.js';
import { classifyRequest, compileEndpointRules, addressKey, planChecks, type CheckSpec, type Identity } from '../../ratelimit/policy.js';
import { createRateLimitStore, type WindowResult } from '../../ratelimit/store.js';
import type { TokenRef } from '../../auth/revocations.js';
import { API_PREFIXES } from '../app.js';
import { bearerToken, identifyCaller, type AuthGuardDeps } from './auth.js';

/** Collaborators of the rate limiter. */
export interface RateLimiterDeps {
  /** The API-side command connection (fails fast when Redis is down). */
  redis: Redis;
  /** Prefixed key builder, e.g. RedisFactory.key. */
  key: (...parts: string[]) => string;
  config: Config['rate_limit'];
  logger: Logger;
  metrics: Metrics;
  /** Time source for the windows; omit in production to use Redis TIME (one clock for all daemons). */
  clock?: Clock;
  authGuard: AuthGuardDeps;
  /**
   * The Redis key of a token's revocation mark (Revocations.key): read in the counters' call and
   * left on `req.tokenRevoked`, so an authenticated request costs one Redis command, not two.
   */
  revocationKey?: (token: TokenRef) => string;
  /** True when the request will be served without work worth counting (a result-cache hit); may answer synchronously. */
  isFreeRequest?: (req: Request) => boolean | Promise<boolean>;
}

/** The limiter: one middleware for `beforeApi`. */
export interface RateLimiter {
  middleware: RequestHandler;
}

/** How often a fail-open warning may be logged (the rest are counted in it). */

/**
 * Create the rate limiter (a pass-through when `config.enabled` is false).
 * @throws Error when an `endpoints` key is malformed
 */
export function createRateLimiter(deps: RateLimiterDeps): RateLimiter {
  const { config, metrics } = deps;
  const rules = compileEndpointRules(config.endpoints);
  if (!config.enabled) return { middleware: (_req, _res, next) => next() };
  const store = createRateLimitStore(deps.redis);
  const warn = throttledWarning(deps.logger, 'rate limit store unavailable: allowing requests (fail open)');

  /** The caller, and the key of its token's revocation mark when it has a signed token. */
  async function identify(req: Request): Promise<{ identity: Identity; probe?: string }> {
    const address = () => ({ identity: { kind: 'address', address: addressKey(req.ip ?? req.socket.remoteAddress) } as const });
    if (!bearerToken(req)) return address();
    try {
      // The token's revocation is read in the counters' call: a signed but logged-out token is
      // therefore counted against its user; the route answers 401.
      const user = await identifyCaller(deps.authGuard, req);
      // Read with the account by identifyCaller (null while the database is unreachable: the tier's default applies).
      const custom = user.tier === 'enterprise' ? (req.customRateLimit ?? null) : null;
      return { identity: { kind: 'user', id: user.id, tier: user.tier, customPerHour: custom }, probe: deps.revocationKey?.(user) };
    } catch {
      // An invalid token only makes the caller anonymous here; the route's guard answers 401.
      return address();
    }
  }

  const freeCheckFailed = (err: unknown) => {
    deps.logger.warn({ err: (err as Error).message }, 'rate limit: isFreeRequest failed; counting the request');
    return false;
  };
  /** Whether the request is free; synchronous when the check is (most requests: no promise, no await). */
  function isFree(req: Request): boolean | Promise<boolean> {
    if (!deps.isFreeRequest) return false;
    try {
      const free = deps.isFreeRequest(req);
      return typeof free === 'boolean' ? free : free.catch(freeCheckFailed);
    } catch (err) {
      return freeCheckFailed(err);
    }
  }
  // Bound once: labelling a counter on every request hashes its labels each time.
  const decided = {
    allowed: metrics.rateLimitDecisions.labels({ decision: 'allowed', limit: 'none' }),
    free: metrics.rateLimitDecisions.labels({ decision: 'free', limit: 'none' }),
    failedOpen: metrics.rateLimitDecisions.labels({ decision: 'failed_open', limit: 'none' }),
  };

  const middleware: RequestHandler = async (req, res, next) => {
    const kind = classifyRequest(req.method, req.originalUrl.split('?', 1)[0]!, rules, API_PREFIXES);
    if (kind.exempt) return next();
    const { identity, probe } = await identify(req);
    if (req.rateLimitExempt === true) return next(); // issue 20: a load-test exemption is not counted
    const checks = planChecks(config, identity, kind.endpoint, deps.key);
    const freeCheck = isFree(req);
    const free = typeof freeCheck === 'boolean' ? freeCheck : await freeCheck;
    let result: WindowResult;
    try {
      const nowMs = deps.clock?.now();
      result = await withTimeout(free ? store.peek(checks, nowMs, probe) : store.hit(checks, nowMs, probe), config.timeout_ms);
      // Without an answer (fail open below), authenticate looks the revocation up itself.
      if (result.probed !== undefined) req.tokenRevoked = result.probed;
    } catch (err) {
      decided.failedOpen.inc();
      warn((err as Error).message);
      setHeaders(res, staticHeaders(checks));
      return next();
    }
    if (free) {
      decided.free.inc();
      setHeaders(res, peekHeaders(checks, result));
      return next();
    }
    const verdict = decide(checks, result, identity);
    setHeaders(res, verdict.headers);
    if (verdict.allowed) {
      decided.allowed.inc();
      return next();
    }
    reject(res, verdict, metrics);
  };

  return { middleware };
}

/** Plain string headers straight onto the response (express's res.set re-checks each for content-type and charset). */
function setHeaders(res: Parameters<RequestHandler>[1], headers: Record<string, string>): void {
  for (const name in headers) res.setHeader(name, headers[name]!);
}

function reject(res: Parameters<RequestHandler>[1], verdict: Verdict, metrics: Metrics): void {
  metrics.rateLimitDecisions.inc({ decision: 'rejected', limit: (verdict.rejectedBy as CheckSpec).kind });
  res.status(429).json(verdict.body);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rate limit store did not answer within ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
