/**
 * The KIS feed's state as the leader writes it to Redis every second (`<prefix>kis:status`,
 * expiring after 10 s) and as every daemon reads it for /health, /metrics and the source
 * status. When no leader writes it during a session, the feed is stale: nobody is pricing.
 */
import type { Redis } from 'ioredis';
import type { TradingSession } from '../../market-clock.js';

/** Key parts of the status record. */
export const statusKey = ['kis', 'status'] as const;

/** What the leader reports. Times are ms epoch. */
export interface KisFeedStatus {
  leader: string;
  at: number;
  session: TradingSession | null;
  stale: boolean;
  stale_reason: string | null;
  stale_since: number | null;
  last_sweep_ok_at: number | null;
  last_sweep: { at: number; calls: number; failed_calls: number; ms: number; changes: number; codes: number } | null;
  last_frame_at: number | null;
  last_success_at: number | null;
  last_error: { at: number; code: string; message: string } | null;
  socket: { connected: boolean; registered: number; wanted: number; reconnects: number; pingpongs: number; refused_over_limit: number } | null;
}

/** The feed's freshness as any daemon sees it. */
export interface KisFreshness {
  stale: boolean;
  stale_reason: string | null;
  /** The leader's record, null when none is current. */
  record: KisFeedStatus | null;
}

/** Read the leader's record (null when absent or unreadable). @throws when Redis is unavailable */
export async function readKisStatus(redis: Redis, key: (...parts: string[]) => string): Promise<KisFeedStatus | null> {
  const raw = await redis.get(key(...statusKey));
  if (!raw) return null;
  try {
    return JSON.parse(raw) as KisFeedStatus;
  } catch {
    return null;
  }
}

/**
 * Freshness from the record and the current session: no record while a session trades means
 * no daemon is feeding (the lease is free, or its holder died and the lease has not lapsed).
 */
export function freshnessOf(record: KisFeedStatus | null, session: TradingSession | null): KisFreshness {
  if (!session) return { stale: false, stale_reason: null, record };
  if (!record) return { stale: true, stale_reason: 'no daemon is feeding KIS prices (no feed leader has reported in the last 10 s)', record };
  return { stale: record.stale, stale_reason: record.stale_reason, record };
}

/** Today's REST calls across daemons (KST day). @throws when Redis is unavailable */
export async function callsToday(redis: Redis, key: (...parts: string[]) => string, kstDay: string): Promise<number> {
  return Number((await redis.get(key('kis', 'calls', kstDay))) ?? 0);
}
