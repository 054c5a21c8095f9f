/**
 * Identity wiring: users (cached, invalidated over pub/sub), the guarded Redis connection of
 * the checks that fail open, revocations announced to every daemon, tokens and the auth service.
 */
import { createAuthService, type AuthService } from '../auth/auth-service.js';
import { createCachedUsersRepo } from '../auth/cached-users.js';
import { createPasswordHasher } from '../auth/passwords.js';
import { createRevocations, type Revocations } from '../auth/revocations.js';
import { loadOrCreateSecret } from '../auth/secret-file.js';
import { createTokenService, type TokenService } from '../auth/tokens.js';
import { closeRedis } from '../infra/redis.js';
import { createRedisGuard, type RedisGuard } from '../infra/redis-guard.js';
import { waitReady } from '../infra/redis.js';
import type { PartList } from '../infra/parts.js';
import { createRefreshTokensRepo } from '../store/refresh-tokens-repo.js';
import { createUsersRepo, type UsersRepo } from '../store/users-repo.js';
import { REVOKED_CHANNEL, type CoreParts } from './core.js';

/** The identity parts. */
export interface AuthParts {
  users: UsersRepo;
  /** The guarded connection of the checks that fail open (rate limits, revocation lookups). */
  guard: RedisGuard;
  revocations: Revocations;
  tokens: TokenService;
  auth: AuthService;
}

/**
 * Build the identity parts and ensure the configured admin account.
 * @throws when the JWT secret cannot be loaded or created, or the admin cannot be stored
 */
export async function buildAuth(core: CoreParts, parts: PartList): Promise<AuthParts> {
  const { config, clock, logger, db, redis, commands, notifier } = core;
  const users = createCachedUsersRepo(createUsersRepo(db), { notifier, clock });
  // The checks that fail open (limits, revocation) get a connection of their own with no
  // command timeout: the guard judges lateness after our event loop has read the socket.
  // No auto-pipelining: a command is written when sent, so its deadline starts at the write.
  const guardConnection = redis.connect('command', 'guard', { commandTimeoutMs: 0, autoPipelining: false });
  parts.add({ name: 'redis guard', stop: () => closeRedis(guardConnection) });
  await waitReady(guardConnection, 2000);
  const guard = createRedisGuard(guardConnection, { timeoutMs: config.rate_limit.timeout_ms, failuresToTrip: config.rate_limit.failures_to_fail_open });
  const revocations = createRevocations({
    redis: commands, guard, key: redis.key, clock, logger,
    announce: (token) => notifier.publish(REVOKED_CHANNEL, JSON.stringify({ jti: token.jti, exp: token.exp })),
  });
  const tokens = createTokenService({
    secret: await loadOrCreateSecret(config, db),
    ttlSeconds: config.access_token_ttl_s,
    clock,
    isRevoked: (token) => revocations.isRevoked(token),
  });
  const auth = createAuthService({
    users,
    refreshTokens: createRefreshTokensRepo(db),
    tokens,
    clock,
    refreshTtlSeconds: config.refresh_token_ttl_s,
    passwords: createPasswordHasher({ logN: config.password_scrypt_log_n }),
    onRehashFailed: (err) => logger.warn({ err: err.message }, 'password re-hash not stored; retried at the next login'),
    revokeAccess: (token) => revocations.revoke(token),
  });
  notifier.subscribe(REVOKED_CHANNEL, (message) => {
    try {
      const { jti, exp } = JSON.parse(message) as { jti: unknown; exp: unknown };
      if (typeof jti === 'string' && typeof exp === 'number') tokens.markRevoked({ jti, exp });
    } catch {
      logger.warn('malformed revocation announcement ignored');
    }
  });
  if (config.admin_email && config.admin_password) {
    await auth.ensureAdmin(config.admin_email, config.admin_password);
    logger.info({ email: config.admin_email }, 'admin account ensured');
  }
  return { users, guard, revocations, tokens, auth };
}
