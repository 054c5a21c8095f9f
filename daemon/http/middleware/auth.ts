/**
 * Bearer-token guards. The token proves identity; tier and role are read from the
 * users repository on each request so an admin's change takes effect at once. While
 * the database cannot be reached, the token's own (signed, at most one access-token
 * lifetime old) tier is used so that screening and live data keep working; admin
 * endpoints then answer 503, since a role change might not be seen.
 */
import { systemClock, type Clock } from '../../infra/clock.js';
import type { Request, RequestHandler } from 'express';
import { AppError } from '../../errors.js';
import { revokedTokenError, type AuthUser, type TokenService } from '../../auth/tokens.js';
import { isStoreUnavailable } from '../../store/db.js';
import { isLoadtestExempt, type UserRow, type UsersRepo } from '../../store/users-repo.js';

/** What the guards need. */
export interface AuthGuardDeps {
  tokens: TokenService;
  users: UsersRepo;
  /** Judges when a load-test exemption ends (default: the system clock). */
  clock?: Clock;
}

/** The bearer token of a request, if any. */
export function bearerToken(req: Request): string | undefined {
  const header = req.get('authorization');
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/**
 * Resolve the caller from the request's bearer token.
 * @throws AppError UNAUTHORIZED for a missing, invalid, expired or revoked token, or a deleted account
 */
export async function authenticate(deps: AuthGuardDeps, req: Request): Promise<AuthUser> {
  const user = await identifyCaller(deps, req);
  if (req.tokenRevoked === undefined) await deps.tokens.checkRevoked(user);
  else if (req.tokenRevoked || deps.tokens.revokedHere(user.jti)) throw revokedTokenError();
  return user;
}

/**
 * The caller a correctly signed token names, with tier and role from the account — before
 * its revocation is known: the rate limiter reads the revocation mark in the Redis call that
 * counts the request (`req.tokenRevoked`), and `authenticate` looks it up only when nothing
 * did. Memoised per request.
 * @throws AppError UNAUTHORIZED for a missing, invalid or expired token, or a deleted account
 */
export function identifyCaller(deps: AuthGuardDeps, req: Request): Promise<AuthUser> {
  return (req.identifying ??= resolveCaller(deps, req));
}

async function resolveCaller(deps: AuthGuardDeps, req: Request): Promise<AuthUser> {
  const token = bearerToken(req);
  if (!token) throw new AppError('UNAUTHORIZED', 'Authentication required: send Authorization: Bearer <token>', { reason: 'missing' });
  const claims = await deps.tokens.verifySignature(token);
  let row: UserRow | undefined;
  try {
    row = await deps.users.findById(claims.id);
  } catch (err) {
    if (!isStoreUnavailable(err)) throw err;
    req.authFromToken = true;
    req.customRateLimit = null;
    req.user = claims;
    return req.user;
  }
  if (!row) throw new AppError('UNAUTHORIZED', 'Account no longer exists', { reason: 'invalid' });
  req.customRateLimit = row.rate_limit_per_hour;
  req.rateLimitExempt = isLoadtestExempt(row, (deps.clock ?? systemClock).now()); // an admin-granted load-test exemption skips the rate limiter
  req.user = { ...claims, tier: row.tier, role: row.role };
  return req.user;
}

/**
 * First step of a protected route: the caller a correctly signed token names (401 otherwise),
 * before any body is read. Revocation and role come later, in `confirmCaller`, so the limiter
 * can read the revocation mark in the call that counts the request.
 */
export function requireCaller(deps: AuthGuardDeps): RequestHandler {
  return (req, _res, next) => {
    identifyCaller(deps, req).then(() => next(), next);
  };
}

/**
 * Last step before a protected route's handlers: a revoked token is refused (read by the
 * limiter's call, or looked up now when nothing read it), and `admin` routes need the admin
 * role (403), confirmed from the account (503 while the database cannot be read).
 */
export function confirmCaller(deps: AuthGuardDeps, access: 'user' | 'admin'): RequestHandler {
  return (req, _res, next) => {
    authenticate(deps, req).then((user) => {
      if (access === 'admin' && req.authFromToken) {
        throw new AppError('SERVICE_UNAVAILABLE', 'Database unavailable: the admin role cannot be confirmed; try again shortly');
      }
      if (access === 'admin' && user.role !== 'admin') throw new AppError('FORBIDDEN', 'This endpoint requires the admin role');
      next();
    }).catch(next);
  };
}

/**
 * Both steps at once, for a guard outside the route chain (e.g. /metrics with its own token):
 * `confirmCaller` identifies the caller itself when nothing did before it.
 */
export function requireAuth(deps: AuthGuardDeps, access: 'user' | 'admin'): RequestHandler {
  return confirmCaller(deps, access);
}
