/**
 * Identity wiring (the role `auth`): the guarded Redis connection of the checks that fail open,
 * revocations announced to every daemon, tokens and the auth service.
 */
import { createAuthService } from '../auth/auth-service.js';
import { createPasswordHasher } from '../auth/passwords.js';
import { createRevocations } from '../auth/revocations.js';
import { loadOrCreateSecret } from '../auth/secret-file.js';
import { createTokenService } from '../auth/tokens.js';
import { closeRedis } from '../infra/redis.js';
import { createRedisGuard } from '../infra/redis-guard.js';
import { waitReady } from '../infra/redis.js';
import type { PartList } from '../infra/parts.js';
import type { AuthContext, DaemonContext } from './context.js';
import { REVOKED_CHANNEL } from './core.js';

/**
 * Build the identity parts and ensure the configured admin account.
 * @throws when the JWT secret cannot be loaded or created, or the admin cannot be stored
 */
export async function buildAuth(ctx: Pick<DaemonContext, 'core' | 'redis' | 'store'>, parts: PartList): Promise<AuthContext> {
  const { config, clock, logger } = ctx.core;
  const { factory, commands, notifier } = ctx.redis;
  const { db, users } = ctx.store;
  // The checks that fail open (limits, revocation) get a connection of their own with no
  // command timeout: the guard judges lateness after our event loop has read the socket.
  // No auto-pipelining: a command is written when sent, so its deadline starts at the write.
  const guardConnection = factory.connect('command', 'guard', { commandTimeoutMs: 0, autoPipelining: false });
  parts.add({ name: 'redis guard', stop: () => closeRedis(guardConnection) });
  await waitReady(guardConnection, ctx.redis.startupWaitMs);
  const guard = createRedisGuard(guardConnection, { timeoutMs: config.rate_limit.timeout_ms, failuresToTrip: config.rate_limit.failures_to_fail_open });
  const revocations = createRevocations({
    redis: commands, guard, key: factory.key, clock, logger,
    announce: (token) => notifier.publish(REVOKED_CHANNEL, JSON.stringify({ jti: token.jti, exp: token.exp })),
  });
  const tokens = createTokenService({
    secret: await loadOrCreateSecret(config, db),
    ttlSeconds: config.access_token_ttl_s,
    clock,
    isRevoked: (token) => revocations.isRevoked(token),
  });
  const service = createAuthService({
    users,
    refreshTokens: ctx.store.refreshTokens,
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
    await service.ensureAdmin(config.admin_email, config.admin_password);
    logger.info({ email: config.admin_email }, 'admin account ensured');
  }
  return { guard, revocations, tokens, service };
}
