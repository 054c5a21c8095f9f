/**
 * Accounts and sessions: register, login, refresh-token rotation with reuse detection,
 * logout (revokes the refresh family and the current access token), admin bootstrap.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Clock } from '../infra/clock.js';
import type { RefreshTokensRepo } from '../store/refresh-tokens-repo.js';
import { isUniqueViolation } from '../store/db.js';
import { toPublicUser, type PublicUser, type UsersRepo } from '../store/users-repo.js';
import { createPasswordHasher, type PasswordHasher } from './passwords.js';
import { endSession, issueTokens, rotateRefresh } from './sessions.js';
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

/** Create the auth service: accounts here, sessions (tokens, rotation, logout) in sessions.ts. */
export function createAuthService(deps: AuthServiceDeps): AuthService {
  const { users } = deps;
  const passwords = deps.passwords ?? createPasswordHasher();
  // Made now, not on the first unknown-email login: that login must cost what a wrong password costs.
  const decoy = passwords.decoy();
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
      return { user: toPublicUser(user), tokens: await issueTokens(deps, user, randomUUID()) };
    },

    refresh: (refreshToken) => rotateRefresh(deps, refreshToken),
    logout: (caller, refreshToken) => endSession(deps, caller, refreshToken),

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
