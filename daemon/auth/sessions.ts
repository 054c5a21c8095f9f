/**
 * Sessions: a refresh-token family per login. Each refresh rotates the token (the old one is
 * marked used); a used or revoked token shown again means it leaked, so its whole family is
 * revoked. The access token carries its family as `sid`, so a logout with only the access token
 * ends the session too. Only a refresh token's hash is stored.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Clock } from '../infra/clock.js';
import type { TokenPair } from '../contract/users.js';
import type { RefreshTokensRepo } from '../store/refresh-tokens-repo.js';
import type { PublicUser, UsersRepo } from '../store/users-repo.js';
import type { AuthUser, TokenService } from './tokens.js';

/** What sessions need (a part of the auth service's collaborators). */
export interface SessionDeps {
  users: Pick<UsersRepo, 'findById'>;
  refreshTokens: RefreshTokensRepo;
  tokens: Pick<TokenService, 'sign'>;
  clock: Clock;
  refreshTtlSeconds: number;
  /** Remembers a revoked access token until its `exp` (seconds since epoch). */
  revokeAccess(token: { id: string; jti: string; exp: number }): Promise<void>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();
const iso = (clock: Clock, ms = clock.now()) => new Date(ms).toISOString();
const invalidRefresh = (reason: string) => new AppError('UNAUTHORIZED', 'Invalid refresh token', { reason });

/** A new access token and refresh token of the family `familyId`. */
export async function issueTokens(deps: SessionDeps, user: { id: string; tier: PublicUser['tier']; role: PublicUser['role'] }, familyId: string): Promise<TokenPair> {
  const { clock } = deps;
  // `sid` ties the access token to its refresh family, so a logout with only the access token ends the session.
  const access = await deps.tokens.sign({ id: user.id, tier: user.tier, role: user.role, sid: familyId });
  const id = randomUUID();
  const secret = randomBytes(32).toString('base64url');
  await deps.refreshTokens.insert({
    id,
    family_id: familyId,
    user_id: user.id,
    token_hash: sha256(secret).toString('hex'),
    expires_at: iso(clock, clock.now() + deps.refreshTtlSeconds * 1000),
    created_at: iso(clock),
  });
  return {
    access_token: access.token,
    token_type: 'bearer',
    expires_in: access.expiresIn,
    refresh_token: `${id}.${secret}`,
    refresh_expires_in: deps.refreshTtlSeconds,
  };
}

/** @throws AppError UNAUTHORIZED for an unknown, expired, revoked or reused refresh token */
export async function rotateRefresh(deps: SessionDeps, refreshToken: string): Promise<TokenPair> {
  const { refreshTokens, clock } = deps;
  const [id, secret] = refreshToken.split('.');
  if (!id || !secret) throw invalidRefresh('malformed');
  const row = await refreshTokens.find(id);
  if (!row) throw invalidRefresh('unknown');
  const expected = Buffer.from(row.token_hash, 'hex');
  const given = sha256(secret);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidRefresh('unknown');
  if (row.revoked_at) throw invalidRefresh('revoked');
  if (Date.parse(row.expires_at) <= clock.now()) throw invalidRefresh('expired');
  // Reuse of a rotated token means it leaked: revoke the whole family.
  if (row.used_at || !(await refreshTokens.markUsed(row.id, iso(clock)))) {
    await refreshTokens.revokeFamily(row.family_id, iso(clock));
    throw invalidRefresh('reused');
  }
  const user = await deps.users.findById(row.user_id);
  if (!user) throw invalidRefresh('unknown');
  return issueTokens(deps, user, row.family_id);
}

/**
 * Revoke the access token's refresh family (its `sid` claim), the given refresh token's family
 * (when given and the caller's), then the access token.
 * @throws the Redis client's error when the access token cannot be recorded as revoked
 */
export async function endSession(deps: SessionDeps, caller: AuthUser, refreshToken?: string): Promise<void> {
  // The refresh family first (database): if Redis then fails, the session still cannot be renewed,
  // and a retried logout is harmless (revoking a family twice changes nothing).
  // The access token's own family (its signed `sid`), and the given refresh token's when that is another of the caller's.
  const families = new Set<string>(caller.sid ? [caller.sid] : []);
  if (refreshToken) {
    const row = await deps.refreshTokens.find(refreshToken.split('.')[0] ?? '');
    if (row && row.user_id === caller.id) families.add(row.family_id);
  }
  for (const family of families) await deps.refreshTokens.revokeFamily(family, iso(deps.clock));
  await deps.revokeAccess(caller);
}
