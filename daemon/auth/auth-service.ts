/**
 * Accounts and sessions: register, login, refresh-token rotation with reuse detection,
 * logout (revokes the refresh family and the current access token), admin bootstrap.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Clock } from '../infra/clock.js';
import type { RefreshTokensRepo } from '../store/refresh-tokens-repo.js';
import { isUniqueViolation } from '../store/db.js';
import { toPublicUser, type PublicUser, type UsersRepo } from '../store/users-repo.js';
import { createPasswordHasher, type PasswordHasher } from './passwords.js';
import type { AuthUser, TokenService } from './tokens.js';
import type { TokenPair } from '../contract/users.js';

/** The token response (daemon/contract/users.ts). */
export type { TokenPair } from '../contract/users.js';

/** Collaborators of the auth service. */
export interface AuthServiceDeps {
  users: UsersRepo;
  refreshTokens: RefreshTokensRepo;
  tokens: TokenService;
  clock: Clock;
  refreshTtlSeconds: number;
  /** Password hashing (default: the production parameters, scrypt N=2^17). */
  passwords?: PasswordHasher;
  /** Told when a re-hash of an older, cheaper hash could not be stored (the login still succeeds). */
  onRehashFailed?(err: Error): void;
  /** Remembers a revoked access token until its `exp` (seconds since epoch). */
  revokeAccess(token: { id: string; jti: string; exp: number }): Promise<void>;
}

/** Account and session operations. */
export interface AuthService {
  /** @throws AppError CONFLICT when the email is taken */
  register(input: { email: string; password: string; name?: string | null }): Promise<PublicUser>;
  /** @throws AppError UNAUTHORIZED for a wrong email or password (same message for both) */
  login(email: string, password: string): Promise<{ user: PublicUser; tokens: TokenPair }>;
  /** @throws AppError UNAUTHORIZED for an unknown, expired, revoked or reused refresh token */
  refresh(refreshToken: string): Promise<TokenPair>;
  /**
   * Revoke the access token's refresh family (its `sid` claim), the given refresh token's family
   * (when given and the caller's), then the access token.
   * @throws the Redis client's error when the access token cannot be recorded as revoked (the edge answers 503)
   */
  logout(caller: AuthUser, refreshToken?: string): Promise<void>;
  /** Create the admin account, or reset its password and role when it exists. */
  ensureAdmin(email: string, password: string): Promise<PublicUser>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** Create the auth service. */
export function createAuthService(deps: AuthServiceDeps): AuthService {
  const { users, refreshTokens, tokens, clock } = deps;
  const passwords = deps.passwords ?? createPasswordHasher();
  // Made now, not on the first unknown-email login: that login must cost what a wrong password costs.
  const decoy = passwords.decoy();
  const iso = (ms = clock.now()) => new Date(ms).toISOString();

  async function issue(user: { id: string; tier: PublicUser['tier']; role: PublicUser['role'] }, familyId: string): Promise<TokenPair> {
    // `sid` ties the access token to its refresh family, so a logout with only the access token ends the session.
    const access = await tokens.sign({ id: user.id, tier: user.tier, role: user.role, sid: familyId });
    const id = randomUUID();
    const secret = randomBytes(32).toString('base64url');
    await refreshTokens.insert({
      id,
      family_id: familyId,
      user_id: user.id,
      token_hash: sha256(secret).toString('hex'),
      expires_at: iso(clock.now() + deps.refreshTtlSeconds * 1000),
      created_at: iso(),
    });
    return {
      access_token: access.token,
      token_type: 'bearer',
      expires_in: access.expiresIn,
      refresh_token: `${id}.${secret}`,
      refresh_expires_in: deps.refreshTtlSeconds,
    };
  }

  const invalidRefresh = (reason: string) => new AppError('UNAUTHORIZED', 'Invalid refresh token', { reason });

  return {
    async register({ email, password, name }) {
      const password_hash = await passwords.hash(password);
      try {
        return toPublicUser(await users.create({ email, name: name ?? null, password_hash }));
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('CONFLICT', 'An account with this email already exists', { email: 'already registered' });
        throw err;
      }
    },

    async login(email, password) {
      const user = await users.findByEmail(email);
      const ok = await passwords.verify(password, user?.password_hash ?? decoy);
      if (!user || !ok) throw new AppError('UNAUTHORIZED', 'Invalid email or password');
      // A hash made with older, cheaper parameters is replaced now that the password is known.
      if (passwords.needsRehash(user.password_hash)) {
        await users.update(user.id, { password_hash: await passwords.hash(password) }).catch((err: Error) => deps.onRehashFailed?.(err));
      }
      return { user: toPublicUser(user), tokens: await issue(user, randomUUID()) };
    },

    async refresh(refreshToken) {
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
      if (row.used_at || !(await refreshTokens.markUsed(row.id, iso()))) {
        await refreshTokens.revokeFamily(row.family_id, iso());
        throw invalidRefresh('reused');
      }
      const user = await users.findById(row.user_id);
      if (!user) throw invalidRefresh('unknown');
      return issue(user, row.family_id);
    },

    async logout(caller, refreshToken) {
      // The refresh family first (database): if Redis then fails, the session still cannot be renewed,
      // and a retried logout is harmless (revoking a family twice changes nothing).
      // The access token's own family (its signed `sid`), and the given refresh token's when that is another of the caller's.
      const families = new Set<string>(caller.sid ? [caller.sid] : []);
      if (refreshToken) {
        const row = await refreshTokens.find(refreshToken.split('.')[0] ?? '');
        if (row && row.user_id === caller.id) families.add(row.family_id);
      }
      for (const family of families) await refreshTokens.revokeFamily(family, iso());
      await deps.revokeAccess(caller);
    },

    async ensureAdmin(email, password) {
      const password_hash = await passwords.hash(password);
      const promote = async () => {
        const existing = await users.findByEmail(email);
        if (!existing) return undefined;
        return toPublicUser((await users.update(existing.id, { role: 'admin', password_hash })) ?? existing);
      };
      const promoted = await promote();
      if (promoted) return promoted;
      try {
        return toPublicUser(await users.create({ email, name: 'Administrator', password_hash, role: 'admin', tier: 'enterprise' }));
      } catch (err) {
        // Several daemons starting at once against one database: another created it first.
        if (!isUniqueViolation(err)) throw err;
        const again = await promote();
        if (!again) throw err;
        return again;
      }
    },
  };
}
