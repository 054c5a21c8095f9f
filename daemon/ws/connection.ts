/**
 * One WebSocket connection: its state machine, identity, subscriptions, rate limit,
 * outbox, and what it leaves behind on disconnect.
 *
 * States: `opening` (token checked, session restored; client messages wait) → `open`
 * → `closed`. Client messages are handled one at a time in arrival order (refresh_token
 * and reconnect are asynchronous). The session {user, subscriptions, last sequence, last
 * stream id, alert cursor} is checkpointed in Redis while open (on subscription changes
 * and every checkpoint interval, see checkpoint.ts) and saved on close for
 * ws_session_ttl_s.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { AuthUser, TokenService } from '../auth/tokens.js';
import type { Clock } from '../infra/clock.js';
import { previousStreamId } from '../market/bus.js';
import type { AlertEvent, MarketStatusEvent, PriceEvent } from '../kernel/events.js';
import { advanceAlertCursor, newAlertCursor, type AlertCursor } from './alert-cursor.js';
import { createOutbox, type FlushScheduler } from './batching.js';
import type { CapSlot, ConnectionCaps } from './connection-caps.js';
import { connectedInfo, type ConnectionInfo, type ConnectionSettings, type ConnectQuery } from './connection-types.js';
import { encodeFrame } from './frame-encoder.js';
import { createFrameWriter } from './frame-writer.js';
import { handleClientMessage, type ClientMessageTarget } from './handlers.js';
import { topicOf, userTopic, type Hub, type HubMember } from './hub.js';
import { statusMessages } from './market-status.js';
import { CLOSE_CODES, serverMessages, type OutMessage, type SubscriptionType, type WsErrorCode } from './protocol.js';
import { createMessageRateLimiter, type MessageRateLimiter } from './rate-limit.js';
import type { ReplaySource } from './replay.js';
import { restoreSession } from './restore.js';
import type { SessionOwner, SessionState, SessionStore } from './session-store.js';
import type { LiveScreenHook } from './live-screens.js';
import { createSubscriptionSet, type SubscriptionSet, type Universe } from './subscriptions.js';

export type { ConnectionInfo, ConnectionSettings, ConnectQuery } from './connection-types.js';

/** What the gateway learns from connections (stats, metrics). */
export interface ConnectionObserver {
  onSent(messages: number, frames: number, latencyMs: number): void;
  onClientMessage(type: string): void;
  onRateLimit(decision: 'rejected' | 'closed'): void;
  onSlowConsumer(connection: Connection, details: Record<string, number>): void;
}

/** Collaborators of a connection. */
export interface ConnectionDeps {
  hub: Hub;
  sessions: SessionStore;
  tokens: Pick<TokenService, 'verify'>;
  universe: Universe;
  bus: ReplaySource & { position(): string | null };
  /** Latest price of each code (sent instead of a replay that reaches past the history). */
  snapshot(codes: string[]): Promise<PriceEvent[]>;
  /** Current status of every market (market status on subscribe and restore); absent: none sent. */
  marketStatus?(): MarketStatusEvent[];
  /**
   * The user's alert firings with fromMs <= fired_at < toMs, oldest first, at most `limit`
   * (durable records). Absent: alerts are replayed from the bus history like other events.
   */
  missedAlerts?(userId: string, fromMs: number, toMs: number, limit: number): Promise<AlertEvent[]>;
  /** This gateway instance (owner of the session records it writes). */
  gatewayId: string;
  /** Asks for a checkpoint of a connection. */
  checkpoints: { touch(conn: Connection): void };
  /** A connection of this gateway by id (until its session is saved). */
  localConnection(id: string): Connection | undefined;
  scheduler: FlushScheduler;
  clock: Clock;
  logger: Logger;
  settings: ConnectionSettings;
  observer: ConnectionObserver;
  /** Live screens; absent: `subscription_type: "screen"` is refused. */
  liveScreens?: LiveScreenHook;
  /** Connection caps per address / per user (connection-caps.ts); absent: none. */
  caps?: ConnectionCaps;
}

/**
 * A live connection. It owns its state: collaborators read it and call its transitions
 * (restore, detach, heartbeat, checkpoint); none writes its fields. The handlers and the
 * restore see it through narrow interfaces (ClientMessageTarget, RestoreTarget).
 */
export interface Connection extends HubMember, ClientMessageTarget {
  readonly id: string;
  readonly subscriptions: SubscriptionSet;
  readonly deps: ConnectionDeps;
  readonly sessionId: string;
  readonly user: AuthUser | null;
  /** When this connection joined its user's alert topic (null while anonymous). */
  readonly userSince: number | null;
  /** The session record was taken over elsewhere: this connection no longer writes it. */
  readonly detached: boolean;
  /** Stop writing the session record (it was restored on another connection). */
  detach(): void;
  /** Heartbeat round: false when no pong came since the last round (the caller terminates), else true and a ping is due. */
  heartbeat(): boolean;
  /** Whether alert firing `id` was pushed on this connection (recent ones). */
  hasAlert(id: string): boolean;
  /** The session as it would be saved now. */
  sessionState(): SessionState;
  /** What this connection itself holds: bytes waiting in its socket's send buffer plus its session state as saved (JSON). */
  footprintBytes(): number;
  owner(): SessionOwner;
  /** Open and writing its session (checkpoints skip others). */
  checkpointable(): boolean;
  /** Checkpoint the session soon (subscription and identity changes). */
  requestCheckpoint(): void;
  isOpen(): boolean;
  /** Queue a server message (any type: it goes through batching and takes the next sequence number). */
  send(message: OutMessage): void;
  error(code: WsErrorCode, message: string, details?: Record<string, unknown>): void;
  /** Messages waiting in the outbox. */
  queuedMessages(): number;
  /** Authenticate as `user` (joins the user's alert topic). */
  setUser(user: AuthUser): void;
  joinSubscription(type: SubscriptionType, target: string): void;
  leaveSubscription(type: SubscriptionType, target: string): void;
  /** Verify the query token, restore or open the session, then start handling client messages. */
  start(query: ConnectQuery): Promise<void>;
  close(code: number, reason: string): void;
  info(): ConnectionInfo;
  /** Resolves once the socket closed and the session was saved (or failed to). */
  readonly finished: Promise<void>;
  /** The connection-cap slot this connection holds, if any (renewed by the gateway). */
  capSlot(): CapSlot | undefined;
}

/** Wrap an accepted socket (messages are buffered until start()). */
export function createConnection(ws: WebSocket, deps: ConnectionDeps): Connection {
  const { clock, settings, hub } = deps;
  const connectedAt = clock.now();
  let lastActivity = connectedAt;
  let messageCount = 0;
  let received = 0;
  let state: 'opening' | 'open' | 'closed' = 'opening';
  const pending: string[] = [];
  let busy = true;
  let resolveFinished!: () => void;
  const finished = new Promise<void>((r) => (resolveFinished = r));
  // Anonymous sessions that never subscribed hold nothing worth restoring: they are never written to Redis.
  let subscribedOnce = false;
  const worthSaving = () => user !== null || subscribedOnce;
  // The session's state: written only by this connection's own methods.
  let sessionId: string = randomUUID();
  let user: AuthUser | null = null;
  let alive = true;
  let detached = false;
  // Replay position while a restoration is in flight (saved instead of the live one if the socket closes meanwhile).
  let restoringFrom: string | null | undefined;
  let startedAt = connectedAt;
  let alertCursor: AlertCursor = newAlertCursor(connectedAt);
  let userSince: number | null = null;
  // Markets whose current status was sent (market-status.ts).
  const announcedMarkets = new Set<string>();
  const limiter: MessageRateLimiter = createMessageRateLimiter({ limit: settings.rateLimit }, clock);
  // Refused at the connection cap: nothing of it is saved.
  let refused = false;
  let slot: CapSlot | undefined;
  // Ids of alert firings pushed here lately: a restore does not replay them again.
  const recentAlerts = new Set<string>();

  const writer = createFrameWriter(ws);
  const outbox = createOutbox(
    {
      sendFrame(chunk, firstSequence, batch) {
        if (ws.readyState === ws.OPEN) writer.write(encodeFrame(chunk, firstSequence, batch, clock.now()));
      },
      bufferedAmount: () => ws.bufferedAmount,
      schedule: (o) => deps.scheduler.schedule(o),
      onSent(messages, frames, oldest) {
        messageCount += messages;
        deps.observer.onSent(messages, frames, performance.now() - oldest);
      },
      onAlertSent(ref) {
        alertCursor = advanceAlertCursor(alertCursor, ref);
      },
      onOverflow(reason, details) {
        deps.logger.warn({ connection: conn.id, reason, ...details }, 'closing slow WebSocket consumer');
        deps.observer.onSlowConsumer(conn, details);
        conn.close(CLOSE_CODES.SLOW_CONSUMER, 'slow consumer');
      },
    },
    {
      batching: settings.batchIntervalMs > 0,
      highWaterBytes: settings.highWaterBytes,
      maxBehindFlushes: settings.maxBehindFlushes,
      maxQueue: settings.maxQueue,
      maxBatchSize: settings.maxBatchSize,
      maxFrameBytes: settings.maxFrameBytes,
    },
  );

  function pump(): void {
    while (!busy && state === 'open' && pending.length > 0) {
      const result = handleClientMessage(conn, pending.shift()!);
      if (result) {
        busy = true;
        result
          .catch((err: Error) => deps.logger.error({ err, connection: conn.id }, 'WebSocket message handler failed'))
          .finally(() => {
            busy = false;
            pump();
          });
      }
    }
  }

  function onMessage(data: Buffer | ArrayBuffer | Buffer[]): void {
    if (state === 'closed') return;
    lastActivity = clock.now();
    received++;
    const decision = limiter.check();
    if (!decision.allowed) {
      deps.observer.onRateLimit('rejected');
      if (decision.notify) {
        conn.error('RATE_LIMIT_EXCEEDED', `More than ${settings.rateLimit} messages per second`, {
          rate_limit: settings.rateLimit,
          window_ms: 1000,
          retry_after_ms: decision.retryAfterMs,
        });
      }
      if (decision.close) {
        deps.observer.onRateLimit('closed');
        outbox.flush();
        conn.close(CLOSE_CODES.POLICY_VIOLATION, 'rate limit exceeded repeatedly');
      }
      return;
    }
    // Binary frames are read as UTF-8 text too: JSON is JSON whatever the opcode.
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    pending.push(bytes.toString('utf8'));
    pump();
  }

  function topics(): string[] {
    const list = [...conn.subscriptions.entries()].map(([type, target]) => topicOf(type, target));
    if (user) list.push(userTopic(user.id));
    return list;
  }

  /** Every relevant event up to this id was handed to the socket (queued ones were not). */
  function position(): string | null {
    if (restoringFrom !== undefined) return restoringFrom;
    const queuedFrom = outbox.oldestQueuedStreamId();
    return queuedFrom !== undefined ? previousStreamId(queuedFrom) : deps.bus.position();
  }

  async function onClose(): Promise<void> {
    if (state === 'closed') return;
    state = 'closed';
    hub.removeMember(conn, topics());
    const final = conn.sessionState();
    outbox.dispose();
    if (slot) void deps.caps?.release(slot);
    try {
      if (!detached && !refused && worthSaving() && !(await deps.sessions.save(sessionId, final, conn.owner()))) {
        deps.logger.warn({ session: sessionId }, 'WebSocket session not saved: it was restored on another connection');
      }
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message, session: sessionId }, 'WebSocket session not saved');
    } finally {
      resolveFinished();
    }
  }

  const conn: Connection = {
    id: randomUUID(),
    get sessionId() {
      return sessionId;
    },
    get user() {
      return user;
    },
    get userSince() {
      return userSince;
    },
    get detached() {
      return detached;
    },
    lastDispatch: 0,
    subscriptions: createSubscriptionSet(),
    deps,
    finished,
    detach: () => void (detached = true),
    heartbeat() {
      if (!alive) return false;
      alive = false;
      return true;
    },
    queuedMessages: () => outbox.size(),
    beginRestore(id, saved, clientLastSequence) {
      outbox.pause();
      const previous = sessionId;
      sessionId = id;
      outbox.sequence = Math.max(outbox.sequence, saved.last_sequence, clientLastSequence ?? 0);
      restoringFrom = saved.last_stream_id;
      startedAt = saved.started_at;
      alertCursor = saved.alerts;
      return previous;
    },
    announceMarkets(markets, afresh) {
      if (afresh) announcedMarkets.clear();
      return statusMessages(deps.marketStatus, markets, announcedMarkets);
    },
    finishRestore(front) {
      restoringFrom = undefined;
      outbox.unshift(front);
      outbox.resume();
      conn.requestCheckpoint();
    },
    isOpen: () => state !== 'closed',
    hasSubscriptions: () => conn.subscriptions.count() > 0,
    deliver(message) {
      if (message.alert) {
        recentAlerts.add(message.alert.id);
        if (recentAlerts.size > 256) recentAlerts.delete(recentAlerts.values().next().value!);
      }
      outbox.push(message);
    },
    hasAlert: (id) => recentAlerts.has(id),
    footprintBytes: () => ws.bufferedAmount + Buffer.byteLength(JSON.stringify(conn.sessionState())),
    sessionState: () => ({
      user_id: user?.id ?? null,
      subscriptions: conn.subscriptions.toMap(),
      last_sequence: outbox.sequence,
      last_stream_id: position(),
      started_at: startedAt,
      alerts: alertCursor,
      live_screens: deps.liveScreens?.saved(conn),
    }),
    owner: () => ({ gateway: deps.gatewayId, connection: conn.id }),
    checkpointable: () => state === 'open' && !detached && worthSaving(),
    requestCheckpoint() {
      if (state === 'open' && !detached && worthSaving()) deps.checkpoints.touch(conn);
    },
    capSlot: () => slot,
    send: (message) => outbox.push(message),
    error(code, message, details = {}) {
      outbox.push(serverMessages.error(code, message, details, clock.now()));
    },
    setUser(next) {
      if (!user && state !== 'closed') {
        hub.join(conn, userTopic(next.id));
        userSince = clock.now();
      }
      const changed = user?.id !== next.id;
      user = next;
      if (changed) conn.requestCheckpoint();
    },
    joinSubscription(type, target) {
      if (conn.subscriptions.add(type, target)) {
        subscribedOnce = true;
        hub.join(conn, topicOf(type, target));
        conn.requestCheckpoint();
      }
    },
    leaveSubscription(type, target) {
      if (conn.subscriptions.delete(type, target)) {
        hub.leave(conn, topicOf(type, target));
        conn.requestCheckpoint();
      }
    },
    async start(query) {
      outbox.pause();
      if (query.token !== undefined) {
        try {
          conn.setUser(await deps.tokens.verify(query.token));
        } catch (err) {
          conn.error('INVALID_TOKEN', 'JWT validation failed; continuing as anonymous', { reason: (err as { details?: { reason?: string } }).details?.reason ?? 'invalid' });
        }
      }
      if (!conn.isOpen() || !(await admit(query.address))) return;
      const restored = query.session_id !== undefined && (await restoreSession(conn, query.session_id, query.last_sequence));
      if (!conn.isOpen()) return;
      if (!restored) outbox.unshift([serverMessages.connected(sessionId, connectedInfo(conn.id, user?.id ?? null, settings), clock.now())]);
      outbox.resume();
      state = 'open';
      conn.requestCheckpoint();
      busy = false;
      pump();
    },
    close(code, reason) {
      if (ws.readyState === ws.CLOSED) return;
      ws.close(code, reason);
      setTimeout(() => ws.terminate(), settings.closeGraceMs).unref();
    },
    info: () => ({
      connection_id: conn.id,
      session_id: sessionId,
      user_id: user?.id ?? null,
      connected_at: new Date(connectedAt).toISOString(),
      subscriptions: conn.subscriptions.toMap(),
      message_count: messageCount,
      messages_received: received,
      queued_messages: outbox.size(),
      last_activity: new Date(lastActivity).toISOString(),
    }),
  };

  /** Take a connection-cap slot; false (and closed with 4029) when over the cap. */
  async function admit(address = 'unknown'): Promise<boolean> {
    const taken = await deps.caps?.acquire({ connectionId: conn.id, userId: user?.id ?? null, address });
    if (taken === null) {
      refused = true;
      conn.close(CLOSE_CODES.TOO_MANY_CONNECTIONS, user ? 'too many connections for this user' : 'too many connections from this address');
      return false;
    }
    slot = taken;
    // Closed while asking: onClose already ran without a slot to give back.
    if (slot && state === 'closed') void deps.caps?.release(slot);
    return conn.isOpen();
  }

  hub.addMember(conn);
  ws.on('message', onMessage);
  ws.on('pong', () => void (alive = true));
  ws.on('close', () => void onClose());
  ws.on('error', (err) => deps.logger.debug({ err: err.message, connection: conn.id }, 'WebSocket error'));
  return conn;
}
