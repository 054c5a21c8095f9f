/**
 * Access tokens: HS256 JWTs (jose) with sub, tier, role, jti, iat, exp; the algorithm
 * is pinned on verify. Revoked ids (logout) are checked through an injected lookup.
 *
 * A token verified once is not verified again until it expires (a bounded map from the exact
 * token text to its claims): HMAC and JSON work are most of an authenticated request's cost
 * besides the handler. Revocations heard over pub/sub (`markRevoked`) drop the
 * entry and are refused here at once, even while Redis cannot be asked.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from '../errors.js';
import type { Clock } from '../infra/clock.js';
import { ROLES, TIERS, type Role, type Tier } from '../kernel/roles.js';


/** The caller a valid access token identifies. */
export interface AuthUser {
  id: string;
  tier: Tier;
  role: Role;
  /** Token id, for revocation at logout. */
  jti: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** Refresh-token family (session) the token was issued from, when any: logout revokes it. */
  sid?: string;
}

/** Options for the token service. */
export interface TokenServiceOptions {
  secret: string;
  ttlSeconds: number;
  clock: Clock;
  /** True when the token has been revoked; should not throw (fail open on store errors). */
  isRevoked(token: { id: string; jti: string }): Promise<boolean>;
}

/** Signs and verifies access tokens. */
export interface TokenService {
  sign(user: { id: string; tier: Tier; role: Role; sid?: string }): Promise<{ token: string; jti: string; exp: number; expiresIn: number }>;
  /** @throws AppError UNAUTHORIZED for a missing, malformed, tampered, expired or revoked token */
  verify(token: string): Promise<AuthUser>;
  /**
   * The first half of `verify`: signature, issuer, expiry and claims, without the revocation
   * lookup (a store round trip), so a caller can run that lookup alongside other work.
   * @throws AppError UNAUTHORIZED for a malformed, tampered or expired token
   */
  verifySignature(token: string): Promise<AuthUser>;
  /** The second half of `verify`. @throws AppError UNAUTHORIZED when the token was revoked */
  checkRevoked(user: AuthUser): Promise<void>;
  /** Record a revocation announced by any daemon: the token is refused here until it expires. */
  markRevoked(token: { jti: string; exp: number }): void;
  /** True when this daemon heard that the token was revoked. */
  revokedHere(jti: string): boolean;
}

/** Most verified tokens remembered (the oldest is forgotten first). */
export const VERIFIED_CACHE_SIZE = 10_000;

/** The 401 for a token that was revoked (logout), wherever its revocation was found. */
export function revokedTokenError(): AppError {
  return new AppError('UNAUTHORIZED', 'Access token revoked', { reason: 'revoked' });
}

const ALG = 'HS256';
const ISSUER = 'stockscreend';

/** Create the access-token service. */
export function createTokenService(options: TokenServiceOptions): TokenService {
  // Import the HMAC key once: handing jose raw bytes re-imports it on every sign and verify
  // (measured: 290 µs per verify with bytes, 150 µs with a CryptoKey).
  const keyPromise = crypto.subtle.importKey('raw', new TextEncoder().encode(options.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  const nowS = () => Math.floor(options.clock.now() / 1000);
  const verified = new Map<string, AuthUser>();
  const revoked = new Map<string, number>();
  /** Forget what has expired: revocations of expired tokens, and (from the oldest) verified entries. */
  function prune(now: number): void {
    for (const [jti, exp] of revoked) if (exp <= now) revoked.delete(jti);
    while (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
  }
  async function verifySignature(token: string): Promise<AuthUser> {
    const known = verified.get(token);
    // jose rejects a token whose exp is not after now; a remembered one leaves at the same moment.
    if (known && known.exp > nowS() && !revoked.has(known.jti)) return { ...known };
    if (known) verified.delete(token);
    const user = await verifyFully(token);
    if (!revoked.has(user.jti)) {
      if (verified.size >= VERIFIED_CACHE_SIZE) prune(nowS());
      verified.set(token, user);
    }
    return { ...user };
  }
  async function verifyFully(token: string): Promise<AuthUser> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, await keyPromise, {
        algorithms: [ALG],
        issuer: ISSUER,
        currentDate: new Date(options.clock.now()),
      }));
    } catch (err) {
      const expired = err instanceof joseErrors.JWTExpired;
      throw new AppError('UNAUTHORIZED', expired ? 'Access token expired' : 'Invalid access token', {
        reason: expired ? 'expired' : 'invalid',
      });
    }
    const { sub, jti, exp, tier, role } = payload;
    if (!sub || !jti || !exp || !TIERS.includes(tier as Tier) || !ROLES.includes(role as Role)) {
      throw new AppError('UNAUTHORIZED', 'Invalid access token', { reason: 'invalid' });
    }
    const sid = typeof payload.sid === 'string' ? payload.sid : undefined;
    return { id: sub, jti, exp, tier: tier as Tier, role: role as Role, ...(sid ? { sid } : {}) };
  }
  async function checkRevoked(user: AuthUser): Promise<void> {
    if (revoked.has(user.jti) || (await options.isRevoked(user))) throw revokedTokenError();
  }
  return {
    async sign(user) {
      const jti = randomUUID();
      const iat = nowS();
      const exp = iat + options.ttlSeconds;
      const token = await new SignJWT({ tier: user.tier, role: user.role, ...(user.sid ? { sid: user.sid } : {}) })
        .setProtectedHeader({ alg: ALG, typ: 'JWT' })
        .setSubject(user.id)
        .setJti(jti)
        .setIssuer(ISSUER)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(await keyPromise);
      return { token, jti, exp, expiresIn: options.ttlSeconds };
    },
    verifySignature,
    checkRevoked,
    markRevoked(token) {
      if (revoked.size >= VERIFIED_CACHE_SIZE) prune(nowS());
      revoked.set(token.jti, token.exp);
    },
    revokedHere: (jti) => revoked.has(jti),
    async verify(token) {
      const user = await verifySignature(token);
      await checkRevoked(user);
      return user;
    },
  };
}
