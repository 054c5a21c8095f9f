/**
 * The KIS source's heartbeat, every second while it leads: judge freshness, recycle a silent
 * socket, announce a change as `market_status` with `prices: "stale" | "fresh"`, and write the
 * status record and the day's REST call count to Redis for every daemon.
 *
 * Stale when no sweep succeeded within twice the expected sweep time, or when the socket holds
 * registrations but no message of any kind came for `silenceMs`.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { MarketStatus, MarketStatusEvent } from '../../../kernel/events.js';
import { MARKETS } from '../../../kernel/records.js';
import { kstDate, type TradingSession } from '../../market-clock.js';
import type { FeedStock } from '../../feed/types.js';
import type { KisFeedState } from './feed-state.js';
import { KIS } from './protocol.js';
import type { KisSocket } from './socket.js';
import { statusKey, type KisFeedStatus } from './status-record.js';

/** Collaborators and settings of the heartbeat. */
export interface KisHeartbeatDeps {
  state: KisFeedState;
  stocks(): Map<string, FeedStock>;
  marketClock: { session(): TradingSession | null; status(): MarketStatus };
  /** The socket of the current leadership, if any. */
  socket(): KisSocket | undefined;
  /** Registrations last asked of the socket. */
  registrationsWanted(): number;
  /** When the current leadership began. */
  startedAt(): number;
  /** REST calls since the last beat (reset by the take). */
  takeCalls(): number;
  publish(events: MarketStatusEvent[]): Promise<unknown>;
  redis: Redis;
  key(...parts: string[]): string;
  instanceId: string;
  callsPerSecond: number;
  sweepPauseMs: number;
  silenceMs: number;
  logger: Logger;
  now(): number;
}

/** The heartbeat of a source. */
export interface KisHeartbeat {
  /** One beat. @throws when Redis is unavailable */
  beat(): Promise<void>;
  /** The status record as of now. */
  snapshot(session: TradingSession | null): KisFeedStatus;
  /** A new leadership: its first beat announces the freshness whatever it is. */
  reset(): void;
}

/** Create the heartbeat. */
export function createKisHeartbeat(deps: KisHeartbeatDeps): KisHeartbeat {
  const { state, now } = deps;
  // The first heartbeat of a leader always announces the freshness: a takeover after a silent death releases held screens.
  let announced = false;
  // When the socket was found silent (Date.now() ms): it stays silent until a message arrives after that, whatever reconnects in between.
  let silentSince: number | null = null;
  let lastRecycle = 0;

  function expectedSweepMs(): number {
    const calls = Math.ceil(deps.stocks().size / KIS.multiPriceMax);
    return Math.max(2_000, (calls * 1000) / deps.callsPerSecond + deps.sweepPauseMs);
  }

  /** Staleness now: a reason, or null when fresh (or when no session trades). */
  function staleReason(session: TradingSession | null): string | null {
    if (!session) return null;
    const t = now();
    const since = state.last_sweep_ok_at ?? deps.startedAt();
    if (t - since > 2 * expectedSweepMs()) {
      const quiet = `no successful sweep for ${Math.round((t - since) / 1000)} s`;
      return state.last_error ? `${quiet} (last error: ${state.last_error.code})` : quiet;
    }
    const s = deps.socket()?.stats();
    const wall = Date.now();
    const wanted = deps.registrationsWanted();
    if (silentSince !== null && s && s.last_message_at > silentSince) silentSince = null;
    if (silentSince === null && s?.connected && wanted > 0 && wall - Math.max(s.last_message_at, s.connected_at) > deps.silenceMs) silentSince = wall;
    if (silentSince !== null && wanted > 0) {
      const quiet = wall - Math.max(s?.last_message_at ?? 0, silentSince - deps.silenceMs);
      return `the real-time socket is connected but silent for ${Math.round(quiet / 1000)} s`;
    }
    return null;
  }

  /** Record the freshness; a change (or a leader's first beat) is published to every market. */
  async function announce(reason: string | null): Promise<void> {
    const stale = reason !== null;
    if (stale !== state.stale || !announced) {
      announced = true;
      state.stale = stale;
      state.stale_reason = reason;
      state.stale_since = stale ? now() : null;
      if (stale !== state.stale || stale) deps.logger.warn({ stale, reason }, stale ? 'KIS prices are stale' : 'KIS prices are fresh again');
      const status = deps.marketClock.status();
      await deps.publish(MARKETS.map((market) => ({ type: 'market_status', market, status, ts: now(), prices: stale ? 'stale' : 'fresh', ...(reason ? { stale_reason: reason } : {}) })));
    } else if (stale) state.stale_reason = reason;
  }

  function snapshot(session: TradingSession | null): KisFeedStatus {
    const s = deps.socket()?.stats();
    return {
      ...state, leader: deps.instanceId, at: now(), session,
      socket: s ? { connected: s.connected, registered: s.registered, wanted: s.wanted, reconnects: s.reconnects, pingpongs: s.pingpongs, refused_over_limit: s.refused_over_limit } : null,
    };
  }

  return {
    async beat() {
      const session = deps.marketClock.session();
      const reason = staleReason(session);
      // A silent session is dropped and reconnected (after the socket's backoff), at most every few silence periods.
      if (silentSince !== null && Date.now() - lastRecycle > 4 * deps.silenceMs) {
        lastRecycle = Date.now();
        deps.socket()?.recycle(reason ?? 'silent');
      }
      await announce(reason);
      const calls = deps.takeCalls();
      const day = deps.key('kis', 'calls', kstDate(now()));
      await deps.redis.multi()
        .set(deps.key(...statusKey), JSON.stringify(snapshot(session)), 'PX', 10_000)
        .incrby(day, calls).pexpire(day, 2 * 86_400_000)
        .exec();
    },
    snapshot,
    reset: () => void (announced = false),
  };
}
