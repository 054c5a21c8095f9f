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
  /** True when the request will be served without work worth counting (a result-cache hit). */
  isFreeRequest?: (req: Request) => Promise<boolean>;
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

  async function identify(req: Request): Promise<Identity> {
    const address = (): Identity => ({ kind: 'address', address: addressKey(req.ip ?? req.socket.remoteAddress) });
    if (!bearerToken(req)) return address();
    try {
      // Not awaiting the token's revocation lookup: it shares the counters' round trip. A
      // signed but logged-out token is therefore counted against its user; the route answers 401.
      const user = await identifyCaller(deps.authGuard, req);
      // Read with the account by identifyCaller (null while the database is unreachable: the tier's default applies).
      const custom = user.tier === 'enterprise' ? (req.customRateLimit ?? null) : null;
      return { kind: 'user', id: user.id, tier: user.tier, customPerHour: custom };
    } catch {
      // An invalid token only makes the caller anonymous here; the route's guard answers 401.
      return address();
    }
  }

  async function isFree(req: Request): Promise<boolean> {
    if (!deps.isFreeRequest) return false;
    try {
      return await deps.isFreeRequest(req);
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'rate limit: isFreeRequest failed; counting the request');
      return false;
    }
  }

  const middleware: RequestHandler = async (req, res, next) => {
    const kind = classifyRequest(req.method, req.originalUrl.split('?', 1)[0]!, rules, API_PREFIXES);
    if (kind.exempt) return next();
    const identity = await identify(req);
    const checks = planChecks(config, identity, kind.endpoint, deps.key);
    const free = await isFree(req);
    let result: WindowResult;
    try {
      const nowMs = deps.clock?.now();
      result = await withTimeout(free ? store.peek(checks, nowMs) : store.hit(checks, nowMs), config.timeout_ms);
    } catch (err) {
      metrics.rateLimitDecisions.inc({ decision: 'failed_open', limit: 'none' });
      warn((err as Error).message);
      res.set(staticHeaders(checks));
      return next();
    }
    if (free) {
      metrics.rateLimitDecisions.inc({ decision: 'free', limit: 'none' });
      res.set(peekHeaders(checks, result));
      return next();
    }
    const verdict = decide(checks, result, identity);
    res.set(verdict.headers);
    if (verdict.allowed) {
      metrics.rateLimitDecisions.inc({ decision: 'allowed', limit: 'none' });
      return next();
    }
    reject(res, verdict, metrics);
  };

  return { middleware };
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
