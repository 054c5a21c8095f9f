/**
 * One WebSocket connection: its state machine, identity, subscriptions, rate limit,
 * outbox, and what it leaves behind on disconnect.
 *
 * States: `opening` (token checked, session restored; client messages wait) → `open`
 * → `closed`. Client messages are handled one at a time in arrival order (refresh_token
 * and reconnect are asynchronous; see inbox.ts). The session {user, subscriptions, last sequence, last
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
import { createOutbox, type FlushScheduler, type Outbox } from './batching.js';
import type { CapSlot, ConnectionCaps } from './connection-caps.js';
import { connectedInfo, type ConnectionInfo, type ConnectionSettings, type ConnectQuery } from './connection-types.js';
import { encodeFrame } from './frame-encoder.js';
import { createFrameWriter } from './frame-writer.js';
import { createInbox, type Inbox } from './inbox.js';
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
  return new WsConnection(ws, deps);
}

/** Alert firings remembered per connection (a restore does not replay them again). */
const RECENT_ALERTS = 256;

/** Counters behind `GET /ws/connections`. */
interface Activity {
  readonly connectedAt: number;
  lastActivity: number;
  /** Messages sent. */
  sent: number;
  received: number;
}

/**
 * The session this connection writes: its id, when it began, the alert cursor and, while a
 * restoration is in flight, the replay position saved instead of the live one if the
 * socket closes meanwhile.
 */
interface SessionCursor {
  id: string;
  startedAt: number;
  alerts: AlertCursor;
  restoringFrom: string | null | undefined;
}

/** One connection; every field is written only by its own methods. */
class WsConnection implements Connection {
  readonly id = randomUUID();
  readonly subscriptions: SubscriptionSet = createSubscriptionSet();
  readonly finished: Promise<void>;
  lastDispatch = 0;

  readonly #ws: WebSocket;
  readonly #outbox: Outbox;
  readonly #inbox: Inbox;
  readonly #limiter: MessageRateLimiter;
  readonly #activity: Activity;
  readonly #session: SessionCursor;
  // Markets whose current status was sent (market-status.ts).
  readonly #announcedMarkets = new Set<string>();
  // Ids of alert firings pushed here lately, oldest first.
  readonly #recentAlerts = new Set<string>();
  #resolveFinished!: () => void;
  #state: 'opening' | 'open' | 'closed' = 'opening';
  #user: AuthUser | null = null;
  #userSince: number | null = null;
  #alive = true;
  #detached = false;
  // Anonymous sessions that never subscribed hold nothing worth restoring: they are never written to Redis.
  #subscribedOnce = false;
  // Refused at the connection cap: nothing of it is saved.
  #refused = false;
  #slot: CapSlot | undefined;

  constructor(
    ws: WebSocket,
    readonly deps: ConnectionDeps,
  ) {
    const now = deps.clock.now();
    this.#ws = ws;
    this.#activity = { connectedAt: now, lastActivity: now, sent: 0, received: 0 };
    this.#session = { id: randomUUID(), startedAt: now, alerts: newAlertCursor(now), restoringFrom: undefined };
    this.finished = new Promise<void>((r) => (this.#resolveFinished = r));
    this.#limiter = createMessageRateLimiter({ limit: deps.settings.rateLimit }, deps.clock);
    this.#outbox = this.#createOutbox();
    this.#inbox = createInbox({
      handle: (text) => handleClientMessage(this, text),
      onError: (err) => deps.logger.error({ err, connection: this.id }, 'WebSocket message handler failed'),
    });
    deps.hub.addMember(this);
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => this.#onMessage(data));
    ws.on('pong', () => void (this.#alive = true));
    ws.on('close', () => void this.#onClose());
    ws.on('error', (err) => deps.logger.debug({ err: err.message, connection: this.id }, 'WebSocket error'));
  }

  get sessionId(): string {
    return this.#session.id;
  }

  get user(): AuthUser | null {
    return this.#user;
  }

  get userSince(): number | null {
    return this.#userSince;
  }

  get detached(): boolean {
    return this.#detached;
  }

  detach(): void {
    this.#detached = true;
  }

  heartbeat(): boolean {
    if (!this.#alive) return false;
    this.#alive = false;
    return true;
  }

  queuedMessages(): number {
    return this.#outbox.size();
  }

  isOpen(): boolean {
    return this.#state !== 'closed';
  }

  hasSubscriptions(): boolean {
    return this.subscriptions.count() > 0;
  }

  hasAlert(id: string): boolean {
    return this.#recentAlerts.has(id);
  }

  capSlot(): CapSlot | undefined {
    return this.#slot;
  }

  owner(): SessionOwner {
    return { gateway: this.deps.gatewayId, connection: this.id };
  }

  checkpointable(): boolean {
    return this.#state === 'open' && !this.#detached && this.#worthSaving();
  }

  requestCheckpoint(): void {
    if (this.checkpointable()) this.deps.checkpoints.touch(this);
  }

  sessionState(): SessionState {
    return {
      user_id: this.#user?.id ?? null,
      subscriptions: this.subscriptions.toMap(),
      last_sequence: this.#outbox.sequence,
      last_stream_id: this.#position(),
      started_at: this.#session.startedAt,
      alerts: this.#session.alerts,
      live_screens: this.deps.liveScreens?.saved(this),
    };
  }

  footprintBytes(): number {
    return this.#ws.bufferedAmount + Buffer.byteLength(JSON.stringify(this.sessionState()));
  }

  send(message: OutMessage): void {
    this.#outbox.push(message);
  }

  deliver(message: OutMessage): void {
    if (message.alert) {
      this.#recentAlerts.add(message.alert.id);
      if (this.#recentAlerts.size > RECENT_ALERTS) this.#recentAlerts.delete(this.#recentAlerts.values().next().value!);
    }
    this.#outbox.push(message);
  }

  error(code: WsErrorCode, message: string, details: Record<string, unknown> = {}): void {
    this.#outbox.push(serverMessages.error(code, message, details, this.deps.clock.now()));
  }

  setUser(next: AuthUser): void {
    if (!this.#user && this.#state !== 'closed') {
      this.deps.hub.join(this, userTopic(next.id));
      this.#userSince = this.deps.clock.now();
    }
    const changed = this.#user?.id !== next.id;
    this.#user = next;
    if (changed) this.requestCheckpoint();
  }

  joinSubscription(type: SubscriptionType, target: string): void {
    if (!this.subscriptions.add(type, target)) return;
    this.#subscribedOnce = true;
    this.deps.hub.join(this, topicOf(type, target));
    this.requestCheckpoint();
  }

  leaveSubscription(type: SubscriptionType, target: string): void {
    if (!this.subscriptions.delete(type, target)) return;
    this.deps.hub.leave(this, topicOf(type, target));
    this.requestCheckpoint();
  }

  beginRestore(id: string, saved: SessionState, clientLastSequence?: number): string {
    this.#outbox.pause();
    const previous = this.#session.id;
    this.#session.id = id;
    this.#outbox.sequence = Math.max(this.#outbox.sequence, saved.last_sequence, clientLastSequence ?? 0);
    this.#session.restoringFrom = saved.last_stream_id;
    this.#session.startedAt = saved.started_at;
    this.#session.alerts = saved.alerts;
    return previous;
  }

  announceMarkets(markets: Iterable<string>, afresh: boolean): OutMessage[] {
    if (afresh) this.#announcedMarkets.clear();
    return statusMessages(this.deps.marketStatus, markets, this.#announcedMarkets);
  }

  finishRestore(front: readonly OutMessage[]): void {
    this.#session.restoringFrom = undefined;
    this.#outbox.unshift(front);
    this.#outbox.resume();
    this.requestCheckpoint();
  }

  async start(query: ConnectQuery): Promise<void> {
    this.#outbox.pause();
    if (query.token !== undefined) await this.#authenticate(query.token);
    if (!this.isOpen() || !(await this.#admit(query.address))) return;
    const restored = query.session_id !== undefined && (await restoreSession(this, query.session_id, query.last_sequence));
    if (!this.isOpen()) return;
    if (!restored) {
      const info = connectedInfo(this.id, this.#user?.id ?? null, this.deps.settings);
      this.#outbox.unshift([serverMessages.connected(this.#session.id, info, this.deps.clock.now())]);
    }
    this.#outbox.resume();
    this.#state = 'open';
    this.requestCheckpoint();
    this.#inbox.open();
  }

  close(code: number, reason: string): void {
    const ws = this.#ws;
    if (ws.readyState === ws.CLOSED) return;
    ws.close(code, reason);
    setTimeout(() => ws.terminate(), this.deps.settings.closeGraceMs).unref();
  }

  info(): ConnectionInfo {
    const activity = this.#activity;
    return {
      connection_id: this.id,
      session_id: this.#session.id,
      user_id: this.#user?.id ?? null,
      connected_at: new Date(activity.connectedAt).toISOString(),
      subscriptions: this.subscriptions.toMap(),
      message_count: activity.sent,
      messages_received: activity.received,
      queued_messages: this.#outbox.size(),
      last_activity: new Date(activity.lastActivity).toISOString(),
    };
  }

  #worthSaving(): boolean {
    return this.#user !== null || this.#subscribedOnce;
  }

  #createOutbox(): Outbox {
    const { deps } = this;
    const ws = this.#ws;
    const writer = createFrameWriter(ws);
    return createOutbox(
      {
        sendFrame(chunk, firstSequence, batch) {
          if (ws.readyState === ws.OPEN) writer.write(encodeFrame(chunk, firstSequence, batch, deps.clock.now()));
        },
        bufferedAmount: () => ws.bufferedAmount,
        schedule: (o) => deps.scheduler.schedule(o),
        onSent: (messages, frames, oldest) => {
          this.#activity.sent += messages;
          deps.observer.onSent(messages, frames, performance.now() - oldest);
        },
        onAlertSent: (ref) => void (this.#session.alerts = advanceAlertCursor(this.#session.alerts, ref)),
        onOverflow: (reason, details) => {
          deps.logger.warn({ connection: this.id, reason, ...details }, 'closing slow WebSocket consumer');
          deps.observer.onSlowConsumer(this, details);
          this.close(CLOSE_CODES.SLOW_CONSUMER, 'slow consumer');
        },
      },
      {
        batching: deps.settings.batchIntervalMs > 0,
        highWaterBytes: deps.settings.highWaterBytes,
        maxBehindFlushes: deps.settings.maxBehindFlushes,
        maxQueue: deps.settings.maxQueue,
        maxBatchSize: deps.settings.maxBatchSize,
        maxFrameBytes: deps.settings.maxFrameBytes,
      },
    );
  }

  #onMessage(data: Buffer | ArrayBuffer | Buffer[]): void {
    if (this.#state === 'closed') return;
    this.#activity.lastActivity = this.deps.clock.now();
    this.#activity.received++;
    if (!this.#withinRateLimit()) return;
    // Binary frames are read as UTF-8 text too: JSON is JSON whatever the opcode.
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    this.#inbox.push(bytes.toString('utf8'));
  }

  /** Whether a message just received may be handled; over the limit it is refused (and repeat offenders closed). */
  #withinRateLimit(): boolean {
    const { observer, settings } = this.deps;
    const decision = this.#limiter.check();
    if (decision.allowed) return true;
    observer.onRateLimit('rejected');
    if (decision.notify) {
      this.error('RATE_LIMIT_EXCEEDED', `More than ${settings.rateLimit} messages per second`, {
        rate_limit: settings.rateLimit,
        window_ms: 1000,
        retry_after_ms: decision.retryAfterMs,
      });
    }
    if (decision.close) {
      observer.onRateLimit('closed');
      this.#outbox.flush();
      this.close(CLOSE_CODES.POLICY_VIOLATION, 'rate limit exceeded repeatedly');
    }
    return false;
  }

  async #authenticate(token: string): Promise<void> {
    try {
      this.setUser(await this.deps.tokens.verify(token));
    } catch (err) {
      const reason = (err as { details?: { reason?: string } }).details?.reason ?? 'invalid';
      this.error('INVALID_TOKEN', 'JWT validation failed; continuing as anonymous', { reason });
    }
  }

  /** Take a connection-cap slot; false (and closed with 4029) when over the cap. */
  async #admit(address = 'unknown'): Promise<boolean> {
    const { caps } = this.deps;
    const taken = await caps?.acquire({ connectionId: this.id, userId: this.#user?.id ?? null, address });
    if (taken === null) {
      this.#refused = true;
      this.close(CLOSE_CODES.TOO_MANY_CONNECTIONS, this.#user ? 'too many connections for this user' : 'too many connections from this address');
      return false;
    }
    this.#slot = taken;
    // Closed while asking: onClose already ran without a slot to give back.
    if (this.#slot && this.#state === 'closed') void caps?.release(this.#slot);
    return this.isOpen();
  }

  #topics(): string[] {
    const list = [...this.subscriptions.entries()].map(([type, target]) => topicOf(type, target));
    if (this.#user) list.push(userTopic(this.#user.id));
    return list;
  }

  /** Every relevant event up to this id was handed to the socket (queued ones were not). */
  #position(): string | null {
    if (this.#session.restoringFrom !== undefined) return this.#session.restoringFrom;
    const queuedFrom = this.#outbox.oldestQueuedStreamId();
    return queuedFrom !== undefined ? previousStreamId(queuedFrom) : this.deps.bus.position();
  }

  async #onClose(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#inbox.close();
    this.deps.hub.removeMember(this, this.#topics());
    const final = this.sessionState();
    this.#outbox.dispose();
    if (this.#slot) void this.deps.caps?.release(this.#slot);
    try {
      if (!this.#detached && !this.#refused && this.#worthSaving() && !(await this.deps.sessions.save(this.#session.id, final, this.owner()))) {
        this.deps.logger.warn({ session: this.#session.id }, 'WebSocket session not saved: it was restored on another connection');
      }
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message, session: this.#session.id }, 'WebSocket session not saved');
    } finally {
      this.#resolveFinished();
    }
  }
}
