/**
 * Request augmentation shared by the HTTP layer: request id, authenticated user,
 * and the values the validation middleware parsed.
 */
import type { AuthUser } from '../auth/tokens.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Request id (echoed from a valid X-Request-Id, else a new uuid). */
      id: string;
      /** The caller, when a correctly signed bearer token was sent (see `tokenRevoked`). */
      user?: AuthUser;
      /** The caller being resolved (identifyCaller's memo). */
      identifying?: Promise<AuthUser>;
      /** Whether the caller's token was revoked, once something read it (the rate limiter's call). */
      tokenRevoked?: boolean;
      /** Set when tier and role came from the token alone because the database was unreachable. */
      authFromToken?: boolean;
      /** The caller's custom hourly limit (enterprise), read with the account. */
      customRateLimit?: number | null;
      /** The JSON body's bytes as received (set by the route's body parser). */
      rawBody?: Buffer;
      /** Set when the caller's account has a load-test exemption in force: the rate limiter does not count it. */
      rateLimitExempt?: boolean;
      /** Set when validation refused the request and the rate limiter counts it anyway (RouteSpec.refusalWeight). */
      rateLimitRefusal?: boolean;
      /** Set when a protected route refused the caller's credentials and the rate limiter counts it as anonymous before the 401. */
      rateLimitUnauthenticated?: boolean;
      /** Parsed and validated inputs (set by `validate`). */
      valid: { body?: unknown; query?: unknown; params?: unknown };
    }
  }
}

export {};
