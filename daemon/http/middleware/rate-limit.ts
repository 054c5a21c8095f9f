/**
 * The rate limiter, one step of each limited route's chain (see api.ts):
 * it runs after the caller is identified and the request validated, so it never works for an
 * unauthenticated caller's body; a protected route's caller without a valid token passes it
 * earlier, before its 401, counted as anonymous with nothing but its address looked at. It learns the route's endpoint limit and free-when-cached
 * test from the route table, checks every applicable counter in one Redis round trip (which
 * also reads the token's revocation mark), then sets the headers and continues or answers 429.
 * Fails open only when Redis is unavailable (see infra/redis-guard.ts), never because our own
 * event loop was late to read a reply.
 */
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { throttledWarning } from '../../infra/throttled-warning.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../infra/clock.js';
import type { Metrics } from '../../infra/metrics.js';
import type { RedisGuard } from '../../infra/redis-guard.js';
import { decide, peekHeaders, staticHeaders, type Verdict } from '../../ratelimit/decision.js';
import { addressKey, canonicalPrefix, compileEndpointRules, endpointKey, planChecks, type CheckSpec, type EndpointRule, type Identity } from '../../ratelimit/policy.js';
import { createRateLimitStore, type WindowResult } from '../../ratelimit/store.js';
import type { TokenRef } from '../../auth/revocations.js';
import type { CachedAnswerLookup, LimitedRoute, RouteLimiter } from '../api.js';
import { API_PREFIXES } from '../prefixes.js';
import { bearerToken, identifyCaller, type AuthGuardDeps } from './auth.js';

/** Collaborators of the rate limiter. */
export interface RateLimiterDeps {
  /** The guarded Redis connection of the checks that fail open. */
  guard: RedisGuard;
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
}

/** The limiter: builds each route's step from its declaration. */
export interface RateLimiter {
  /** The step for one route (undefined when limits are off). */
  forRoute: RouteLimiter;
  /** Configured endpoint limits that no route declared (a typo in the config, say). */
  unusedEndpointLimits(): string[];
}

/**
 * Create the rate limiter (a pass-through when `config.enabled` is false).
 * @throws Error when an `endpoints` key is malformed
 */
export function createRateLimiter(deps: RateLimiterDeps): RateLimiter {
  const { config, metrics } = deps;
  const rules = compileEndpointRules(config.endpoints);
  const used = new Set<EndpointRule>();
  const unusedEndpointLimits = () => [...rules.values()].filter((r) => !used.has(r)).map((r) => r.name);
  const ruleOf = (route: LimitedRoute) => {
    const rule = rules.get(endpointKey(route.limitAs ?? `${route.method} ${route.template}`));
    if (rule) used.add(rule);
    return rule;
  };
  if (!config.enabled) return { forRoute: (route) => void ruleOf(route), unusedEndpointLimits };
  const store = createRateLimitStore(deps.guard.redis);
  const warn = throttledWarning(deps.logger, 'rate limit store unavailable: allowing requests (fail open)');
  // Bound once: labelling a counter on every request hashes its labels each time.
  const decided = {
    allowed: metrics.rateLimitDecisions.labels({ decision: 'allowed', limit: 'none' }),
    free: metrics.rateLimitDecisions.labels({ decision: 'free', limit: 'none' }),
    failedOpen: metrics.rateLimitDecisions.labels({ decision: 'failed_open', limit: 'none' }),
  };

  function forRoute(route: LimitedRoute): RequestHandler {
    const rule = ruleOf(route);
    const free = route.freeWhen;
    return async (req, res, next) => {
      const { identity, probe } = await identify(deps, req);
      // An account with a load-test exemption in force is not counted (its revocation is checked by confirmCaller).
      if (req.rateLimitExempt === true) return next();
      const endpoint = rule && { rule, path: canonicalPrefix(req.baseUrl, API_PREFIXES) + route.template };
      const checks = planChecks(config, identity, endpoint, deps.key);
      // A refused request has no valid body to look up: it always counts.
      const refused = req.rateLimitRefusal === true || req.rateLimitUnauthenticated === true;
      const freeOrLookup = free && !refused ? await freeCheck(deps.logger, free, req, res) : false;
      // Never more than the smallest limit, or it could never be admitted.
      const weight = Math.min(weightOf(route, req), ...checks.map((c) => c.limit));
      const lookup = typeof freeOrLookup === 'object' ? freeOrLookup : undefined;
      let result: WindowResult;
      try {
        const nowMs = deps.clock?.now();
        result = await deps.guard.run(() =>
          freeOrLookup === true ? store.peek(checks, nowMs, probe)
          : lookup ? store.hitUnlessCached(checks, lookup.keys, nowMs, probe, weight)
          : store.hit(checks, nowMs, probe, weight));
        if (result.probed !== undefined) req.tokenRevoked = result.probed;
      } catch (err) {
        decided.failedOpen.inc();
        warn((err as Error).message);
        setHeaders(res, staticHeaders(checks));
        return next();
      }
      // A cached answer read in the same call makes the request free.
      const isFree = freeOrLookup === true || (lookup !== undefined && foundCached(deps.logger, lookup, result));
      if (isFree) {
        decided.free.inc();
        setHeaders(res, peekHeaders(checks, result));
        return next();
      }
      const verdict = decide(checks, result, identity, weight);
      setHeaders(res, verdict.headers);
      if (!verdict.allowed) return reject(res, verdict, metrics);
      decided.allowed.inc();
      next();
    };
  }

  return { forRoute, unusedEndpointLimits };
}

/** The caller, and the key of its token's revocation mark when it has a signed token. */
async function identify(deps: Pick<RateLimiterDeps, 'authGuard' | 'revocationKey'>, req: Request): Promise<{ identity: Identity; probe?: string }> {
  const address = () => ({ identity: { kind: 'address', address: addressKey(req.ip ?? req.socket.remoteAddress) } as const });
  if (!req.user && !bearerToken(req)) return address();
  try {
    // Protected routes identified the caller already; on public ones a valid token still counts as its user.
    const user = req.user ?? (await identifyCaller(deps.authGuard, req));
    const custom = user.tier === 'enterprise' ? (req.customRateLimit ?? null) : null;
    return { identity: { kind: 'user', id: user.id, tier: user.tier, customPerHour: custom }, probe: deps.revocationKey?.(user) };
  } catch {
    // An invalid token on a public route only makes the caller anonymous.
    return address();
  }
}

/** The request's weight: the route's (or its refusal's) whole count, at least 1; 1 when it cannot be weighed. */
function weightOf(route: LimitedRoute, req: Request): number {
  // A request refused for its credentials has no validated input to weigh: it counts once.
  if (req.rateLimitUnauthenticated === true) return 1;
  try {
    const w = req.rateLimitRefusal === true ? (route.refusalWeight?.(req) ?? 1) : (route.weight?.(req) ?? 1);
    return Number.isFinite(w) ? Math.max(1, Math.floor(w)) : 1;
  } catch {
    return 1;
  }
}

/** The route's free-when-cached test; one that throws counts the request. */
async function freeCheck(logger: Logger, free: NonNullable<LimitedRoute['freeWhen']>, req: Request, res: Parameters<RequestHandler>[1]): Promise<boolean | CachedAnswerLookup> {
  try {
    return await free(req, res);
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'rate limit: free-request check failed; counting the request');
    return false;
  }
}

/** Whether the answer the counters' call read can be used (the request is then free). */
function foundCached(logger: Logger, lookup: CachedAnswerLookup, result: WindowResult): boolean {
  try {
    return lookup.found(result.cached ?? null, result.asked ?? 0);
  } catch (err) {
    // The call found an answer (so it counted nothing) that cannot be used: the route computes it
    // again, this one request uncounted rather than failed.
    logger.warn({ err: (err as Error).message }, 'rate limit: cached answer unreadable; counting the request');
    return false;
  }
}

/** Plain string headers straight onto the response (express's res.set re-checks each for content-type and charset). */
function setHeaders(res: Parameters<RequestHandler>[1], headers: Record<string, string>): void {
  for (const name in headers) res.setHeader(name, headers[name]!);
}

function reject(res: Parameters<RequestHandler>[1], verdict: Verdict, metrics: Metrics): void {
  metrics.rateLimitDecisions.inc({ decision: 'rejected', limit: (verdict.rejectedBy as CheckSpec).kind });
  res.status(429).json(verdict.body);
}
