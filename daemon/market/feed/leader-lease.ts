/**
 * A leader lease in Redis: at most one daemon holds `key` at a time (the simulator's single
 * producer across instances). The holder renews it every `renewMs`; when the holder dies the
 * key expires after `leaseMs` and another instance takes it on its next beat. A graceful
 * stop deletes the key (only if still ours), so the hand-over is immediate.
 *
 * The holder also fences itself: `isValid()` turns false once `leaseMs` has passed since the
 * last confirmed renewal (a long pause, a lost connection), before anyone else can hold it.
 *
 * A renewal that fails (a slow reply past the command timeout, a dropped connection) does not
 * end the leadership while the lease is still ours in Redis: the key cannot have expired before
 * `validUntil`, so nobody else can hold it yet. Leadership ends when Redis answers that someone
 * else holds it, or when renewals have failed until the lease has surely run out (one
 * slow Redis reply flipped leadership on a busy box).
 */
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

// Acquire when free, renew when ours, in one atomic step: 1 = we hold it now, 0 = someone else does.
const ACQUIRE_OR_RENEW = `
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** Options of a leader lease. */
export interface LeaderLeaseOptions {
  /** A command connection. */
  redis: Redis;
  key: string;
  instanceId: string;
  /** Lease length (default 5,000 ms). */
  leaseMs?: number;
  /** Renewal / acquisition attempt period (default 30% of the lease: 1.5 s for 5 s). */
  renewMs?: number;
  /** Called on every change of leadership (not awaited). */
  onChange(leader: boolean): void;
  logger: Logger;
}

/** A running lease. */
export interface LeaderLease {
  /** Start beating (first attempt immediately); idempotent. */
  start(): void;
  /** Stop beating and release the lease if held; idempotent. */
  stop(): Promise<void>;
  /** True while this instance believes it holds the lease. */
  isLeader(): boolean;
  /** True while the lease is held and was confirmed less than `leaseMs` ago. */
  isValid(): boolean;
}

/** Create a leader lease (nothing happens until start()). */
export function createLeaderLease(options: LeaderLeaseOptions): LeaderLease {
  const { redis, key, instanceId, logger } = options;
  const leaseMs = options.leaseMs ?? 5_000;
  const renewMs = options.renewMs ?? Math.max(10, Math.floor(leaseMs * 0.3));
  let timer: NodeJS.Timeout | undefined;
  let leader = false;
  let validUntil = 0;
  let beating: Promise<void> | undefined;
  let stopped = false;
  let lastError = '';
  let failures = 0;

  function change(next: boolean): void {
    if (leader === next) return;
    leader = next;
    logger.info({ instance: instanceId, leader: next }, next ? 'feed leadership acquired' : 'feed leadership lost');
    try {
      options.onChange(next);
    } catch (err) {
      logger.error({ err }, 'leadership listener failed');
    }
  }

  async function beat(): Promise<void> {
    const sentAt = performance.now();
    try {
      const held = (await redis.eval(ACQUIRE_OR_RENEW, 1, key, instanceId, leaseMs)) === 1;
      lastError = '';
      if (stopped) return;
      if (failures > 0 && held && leader) logger.info({ instance: instanceId, failed_attempts: failures }, 'feed lease: renewed again; leadership kept');
      failures = 0;
      // Redis starts the expiry after it receives the command, so this bound is conservative.
      if (held) validUntil = sentAt + leaseMs;
      change(held);
    } catch (err) {
      renewFailed((err as Error).message);
    }
  }

  function renewFailed(message: string): void {
    failures++;
    if (stopped) return;
    const left = Math.round(validUntil - performance.now());
    if (leader && left > 0) {
      logger.warn({ instance: instanceId, err: message, lease_left_ms: left }, 'feed lease: renewal failed; the lease is still ours, retrying');
      return;
    }
    if (message !== lastError) logger.warn({ err: message }, 'feed lease: redis unavailable; not producing');
    lastError = message;
    change(false);
  }

  function tick(): void {
    if (beating || stopped) return;
    beating = beat().finally(() => (beating = undefined));
  }

  return {
    start() {
      if (timer || stopped) return;
      timer = setInterval(tick, renewMs);
      timer.unref();
      tick();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await beating;
      const wasLeader = leader;
      change(false);
      if (wasLeader) await redis.eval(RELEASE, 1, key, instanceId).catch(() => undefined);
    },
    isLeader: () => leader,
    isValid: () => leader && performance.now() < validUntil,
  };
}
