/**
 * Session restoration onto a connection (the spec's session states and
 * transitions): by `?session_id=` at open or a `reconnect` message later.
 *
 * Same user (or both anonymous) → the session record is claimed (session-claim.ts), the
 * saved subscriptions are joined, and the client gets, in this order:
 * 1. `reconnected` {session_id, restored_subscriptions, missed_messages_count,
 *    missed_messages_estimated, replayed_messages, history_truncated, snapshot_messages,
 *    restored_from};
 * 2. the replay: the missed bus messages in stream order (replay.ts) merged by time with
 *    the owner's missed alert firings, read from their durable records (so alerts are
 *    replayed even when the bus history is not) — or, when the gap reaches past the
 *    history or the replay caps (`history_truncated: true`), a snapshot: the latest price
 *    of every restored stock and every member stock of the restored markets and sectors,
 *    followed by the missed alerts;
 * 3. `market_status` with the current status of the restored subscriptions' markets.
 * Live events arriving meanwhile are held and follow. The sequence continues from the
 * highest of: this connection's own counter, the session's saved one, and the client's
 * `last_sequence` (query parameter or `reconnect` field) — it never goes back on a socket.
 * Unknown, expired, in-use or another user's session → SESSION_RESTORATION_FAILED.
 */
import type { Logger } from 'pino';
import { throttledWarning } from '../infra/throttled-warning.js';
import type { AlertEvent, MarketStatusEvent, PriceEvent } from '../kernel/events.js';
import { alertReplayFloor, alertSeen } from './alert-cursor.js';
import { marketsOfTargets } from './market-status.js';
import { serverMessages, type OutMessage, type SubscriptionMap, type SubscriptionType, type WsErrorCode } from './protocol.js';
import { planReplay, type ReplayPlan, type ReplaySource } from './replay.js';
import type { Tier } from '../kernel/roles.js';
import type { LiveScreenHook } from './live-screens.js';
import { claimSession, type Claimant, type ClaimDeps } from './session-claim.js';
import type { RestoreFailure, SavedSession, SessionState, SessionStore } from './session-store.js';
import { createSubscriptionSet, type SubscriptionSet, type Universe } from './subscriptions.js';

/** The collaborators a restore uses (a narrow view of the connection's deps). */
export interface RestoreDeps extends ClaimDeps {
  sessions: ClaimDeps['sessions'] & Pick<SessionStore, 'save' | 'release'>;
  settings: ClaimDeps['settings'] & { maxSubscriptions: number; maxReplayMessages: number; maxReplayScan: number; maxReplayAlerts: number };
  universe: Universe;
  bus: ReplaySource & { position(): string | null };
  snapshot(codes: string[]): Promise<PriceEvent[]>;
  marketStatus?(): MarketStatusEvent[];
  missedAlerts?(userId: string, fromMs: number, toMs: number, limit: number): Promise<AlertEvent[]>;
  logger: Logger;
  /** Live screens; absent: `subscription_type: "screen"` is refused and restores bring none back. */
  liveScreens?: LiveScreenHook;
}

/**
 * What a restore needs of the connection: a few reads and the transitions the connection
 * owns (beginRestore, finishRestore, announceMarkets); the restore writes none of its fields.
 */
export interface RestoreTarget extends Claimant {
  readonly sessionId: string;
  readonly user: { id: string; tier: Tier } | null;
  /** When the connection joined its user's alert topic (null while anonymous). */
  readonly userSince: number | null;
  readonly subscriptions: Pick<SubscriptionSet, 'has' | 'count' | 'toMap'>;
  readonly deps: RestoreDeps;
  error(code: WsErrorCode, message: string, details?: Record<string, unknown>): void;
  hasAlert(id: string): boolean;
  joinSubscription(type: SubscriptionType, target: string): void;
  /** Queue a message (held while a restore is under way). */
  send(message: OutMessage): void;
  /**
   * Take over session `sessionId` saved as `saved`: delivery is held, the sequence goes on
   * from the highest of the connection's, the saved and the client's; a close from now on
   * saves this session at the saved position. Returns the id of the session left behind.
   */
  beginRestore(sessionId: string, saved: SessionState, clientLastSequence?: number): string;
  /** `market_status` messages for `markets`, announced afresh (what was announced before is forgotten). */
  announceMarkets(markets: Iterable<string>, afresh: boolean): OutMessage[];
  /** Deliver `front` before the live messages held meanwhile, resume delivery and checkpoint. */
  finishRestore(front: readonly OutMessage[]): void;
}

const FAILURE_TEXT: Record<RestoreFailure | 'unavailable', string> = {
  unknown: 'Session not found',
  expired: 'Session expired',
  other_user: 'Session belongs to another user',
  in_use: 'Session is in use by an open connection',
  unavailable: 'Session store unavailable',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function fail(conn: RestoreTarget, sessionId: string, reason: RestoreFailure | 'unavailable'): false {
  conn.error('SESSION_RESTORATION_FAILED', FAILURE_TEXT[reason], { session_id: sessionId, reason });
  return false;
}

/** Join the saved subscriptions within the connection's limit; returns those restored. */
function joinSaved(conn: RestoreTarget, saved: SavedSession): SubscriptionMap {
  const restored = createSubscriptionSet();
  const max = conn.deps.settings.maxSubscriptions;
  for (const [type, target] of createSubscriptionSet(saved.subscriptions).entries()) {
    if (!conn.subscriptions.has(type, target) && conn.subscriptions.count() >= max) continue;
    conn.joinSubscription(type, target);
    restored.add(type, target);
  }
  return restored.toMap();
}

/**
 * A reconnect storm against a struggling Redis fails many restorations at once: one warning
 * per logger and interval, with the count of those suppressed.
 */
const replayWarnings = new WeakMap<Logger, (err: string) => void>();
function warnReplayUnreadable(logger: Logger, err: string): void {
  let warn = replayWarnings.get(logger);
  if (!warn) replayWarnings.set(logger, (warn = throttledWarning(logger, 'replay history unreadable; sending a snapshot')));
  warn(err);
}

async function replayPlan(conn: RestoreTarget, saved: SavedSession, upto: string | null): Promise<ReplayPlan> {
  const { deps } = conn;
  try {
    return await planReplay(
      deps.bus,
      {
        after: saved.last_stream_id, upto, subs: createSubscriptionSet(saved.subscriptions), userId: saved.user_id,
        alerts: deps.missedAlerts === undefined, afterMs: saved.started_at,
      },
      { maxMessages: deps.settings.maxReplayMessages, maxScan: deps.settings.maxReplayScan },
    );
  } catch (err) {
    warnReplayUnreadable(deps.logger, (err as Error).message);
    return { messages: [], missed: 0, estimated: true, truncated: true };
  }
}

/** Codes of the snapshot: restored stocks and the members of restored markets and sectors. */
function snapshotCodes(conn: RestoreTarget, subs: SubscriptionMap): string[] {
  const { universe } = conn.deps;
  const codes = new Set(subs.stock);
  for (const market of subs.market) for (const code of universe.members?.('market', market) ?? []) codes.add(code);
  for (const sector of subs.sector) for (const code of universe.members?.('sector', sector) ?? []) codes.add(code);
  return [...codes];
}

async function snapshotMessages(conn: RestoreTarget, subs: SubscriptionMap): Promise<OutMessage[]> {
  const codes = snapshotCodes(conn, subs);
  if (codes.length === 0) return [];
  try {
    return (await conn.deps.snapshot(codes)).map((e) => serverMessages.priceUpdate(e));
  } catch (err) {
    conn.deps.logger.warn({ err: (err as Error).message }, 'restoration snapshot failed');
    return [];
  }
}

/**
 * The owner's firings the session was not sent: from its alert cursor up to the moment
 * this connection started receiving them live; ones already pushed here are left out.
 */
async function missedAlerts(conn: RestoreTarget, saved: SavedSession): Promise<AlertEvent[]> {
  const { deps } = conn;
  if (!deps.missedAlerts || saved.user_id === null) return [];
  const from = alertReplayFloor(saved.alerts, saved.started_at);
  const to = conn.userSince ?? deps.clock.now();
  if (to <= from) return [];
  try {
    const events = await deps.missedAlerts(saved.user_id, from, to, deps.settings.maxReplayAlerts);
    return events.filter((e) => !(e.event_id && (alertSeen(saved.alerts, e.event_id) || conn.hasAlert(e.event_id))));
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'missed alerts unreadable');
    return [];
  }
}

/** Stream messages (by stream id time) and alerts (by firing time) in one time order. */
function mergeByTime(stream: OutMessage[], alerts: OutMessage[]): OutMessage[] {
  if (alerts.length === 0) return stream;
  const out: OutMessage[] = [];
  let a = 0;
  for (const m of stream) {
    const t = Number(m.streamId?.split('-')[0] ?? 0);
    while (a < alerts.length && alerts[a]!.alert!.ts <= t) out.push(alerts[a++]!);
    out.push(m);
  }
  while (a < alerts.length) out.push(alerts[a++]!);
  return out;
}

/**
 * Restore `sessionId` onto `conn`; true when restored. Failures are reported to the
 * client as SESSION_RESTORATION_FAILED (details.reason: unknown, expired, other_user,
 * in_use, unavailable); never throws.
 */
export async function restoreSession(conn: RestoreTarget, sessionId: string, clientLastSequence?: number): Promise<boolean> {
  const { deps } = conn;
  if (!UUID.test(sessionId)) return fail(conn, sessionId.slice(0, 64), 'unknown');
  if (sessionId === conn.sessionId) return fail(conn, sessionId, 'in_use');
  let claim;
  try {
    claim = await claimSession(conn, sessionId);
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'session store unavailable');
    return fail(conn, sessionId, 'unavailable');
  }
  if (!claim.ok) return fail(conn, sessionId, claim.reason);
  const saved = claim.stored.session;
  if (!conn.isOpen()) {
    // Closed while the record was claimed: leave it restorable, as it was.
    await deps.sessions.save(sessionId, { ...saved }, conn.owner()).catch(() => undefined);
    return false;
  }
  // From here a close or a checkpoint writes the restored session with its own position and sequence.
  const previousId = conn.beginRestore(sessionId, saved, clientLastSequence);
  void deps.sessions.release(previousId, conn.owner()).catch(() => undefined);
  const upto = deps.bus.position();
  const restored = joinSaved(conn, saved);
  const [plan, alerts] = await Promise.all([replayPlan(conn, saved, upto), missedAlerts(conn, saved)]);
  const snapshot = plan.truncated ? await snapshotMessages(conn, saved.subscriptions) : [];
  if (!conn.isOpen()) return false;
  const alertMessages = alerts.map((e) => serverMessages.alert(e));
  const replay = plan.truncated ? [...snapshot, ...alertMessages] : mergeByTime(plan.messages, alertMessages);
  // The status of every market of the connection's subscriptions, announced afresh.
  const all = conn.subscriptions.toMap();
  const markets = new Set([...marketsOfTargets(deps.universe, 'market', all.market), ...marketsOfTargets(deps.universe, 'stock', all.stock), ...marketsOfTargets(deps.universe, 'sector', all.sector)]);
  const status = conn.announceMarkets(markets, true);
  const reconnected = serverMessages.reconnected(
    sessionId,
    restored,
    {
      missed_messages_count: plan.missed + alerts.length,
      missed_messages_estimated: plan.estimated,
      replayed_messages: plan.truncated ? alertMessages.length : plan.messages.length + alertMessages.length,
      history_truncated: plan.truncated,
      snapshot_messages: snapshot.length,
      restored_from: claim.stored.state === 'live' ? 'checkpoint' : 'saved',
    },
    deps.clock.now(),
  );
  // Live screens come back re-evaluated, with the membership diff since the save (no replay):
  // sent while delivery is held, so they follow the reconnected message, the replay and the status.
  if (saved.live_screens?.length) await deps.liveScreens?.restore(conn, saved.live_screens);
  conn.finishRestore([reconnected, ...replay, ...status]);
  return true;
}
