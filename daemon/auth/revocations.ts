/**
 * Revoked access tokens (logout): one Redis key per token id, kept until the token would have
 * expired anyway, so every daemon sharing the Redis refuses it at once.
 *
 * The key carries the user's hash tag, `revoked:{u:<user id>}:<jti>`, like the user's rate-limit
 * counters (`rl:{u:<user id>}:…`): the limiter's script reads the mark in the call that counts
 * the request (one command, one cluster slot), and only requests the limiter did not count
 * (limits off, or Redis too slow for it) look it up on their own.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { throttledWarning } from '../infra/throttled-warning.js';
import { userTag } from '../infra/key-tags.js';
import type { Clock } from '../infra/clock.js';
import type { RedisGuard } from '../infra/redis-guard.js';

/** The parts of an access token that name its revocation mark. */
export interface TokenRef {
  /** The user id (`sub`). */
  id: string;
  /** The token id. */
  jti: string;
}

/** The revocation list. */
export interface Revocations {
  /** The Redis key of a token's revocation mark. */
  key(token: TokenRef): string;
  /** True when the token was revoked; false also when Redis cannot answer (fail open, warned). */
  isRevoked(token: TokenRef): Promise<boolean>;
  /**
   * Mark a token revoked until `exp` (seconds since the epoch).
   * @throws the Redis client's error when the mark cannot be written (logout answers 503)
   */
  revoke(token: TokenRef & { exp: number }): Promise<void>;
}

/** Collaborators of the revocation list. */
export interface RevocationsDeps {
  /** A command connection that fails fast when Redis is down (writes the marks). */
  redis: Redis;
  /** The guarded connection lookups go through: they fail open only when Redis is unavailable. */
  guard?: RedisGuard;
  /** Tells every daemon at once (pub/sub) after a mark is written; failures are only logged. */
  announce?: (token: TokenRef & { exp: number }) => Promise<void>;
  /** Prefixed key builder, e.g. RedisFactory.key. */
  key: (...parts: string[]) => string;
  clock: Clock;
  logger: Logger;
}

/** Create the revocation list over Redis. */
export function createRevocations(deps: RevocationsDeps): Revocations {
  const warnSkipped = throttledWarning(deps.logger, 'revocation check skipped: redis unavailable (fail open)');
  const key = (token: TokenRef) => deps.key('revoked', userTag(token.id), token.jti);
  return {
    key,
    async isRevoked(token) {
      try {
        const exists = deps.guard ? deps.guard.run(() => deps.guard!.redis.exists(key(token))) : deps.redis.exists(key(token));
        return (await exists) === 1;
      } catch (err) {
        warnSkipped((err as Error).message);
        return false;
      }
    },
    async revoke(token) {
      const ttl = Math.max(1, token.exp - Math.floor(deps.clock.now() / 1000));
      await deps.redis.set(key(token), '1', 'EX', ttl);
      await deps.announce?.(token).catch((err: Error) => deps.logger.warn({ err: err.message }, 'revocation not announced to other daemons (they still read the mark)'));
    },
  };
}
