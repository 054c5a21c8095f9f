/**
 * The WebSocket gateway: upgrade on `/v1/ws`, `/api/v1/ws` and `/ws/market` (spec
 * "WebSocket and monitoring"), one connection object per socket, the bus → hub fan-out,
 * the shared flush timer, a protocol-level heartbeat, session checkpoints (every
 * `checkpointMs`) and this instance's liveness key (refreshed every `instanceTtlMs` / 3,
 * see session-store.ts), stats, and an idempotent close (1001 to every client; their
 * sessions are saved, so they restore on another instance).
 *
 * Per-message deflate is negotiated with settings that keep per-connection memory small
 * (see DEFLATE_OPTIONS and deflate-pool.ts).
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { WebSocketServer, type PerMessageDeflateOptions, type WebSocket } from 'ws';
import type { TokenService } from '../auth/tokens.js';
import { WS_DEFAULTS } from '../config.js';
import { systemClock, type Clock } from '../infra/clock.js';
import type { MarketBus } from '../market/bus.js';
import type { AlertEvent, MarketStatusEvent, PriceEvent } from '../kernel/events.js';
import { createFlushScheduler, type FlushScheduler } from './batching.js';
import { createCheckpointer, type Checkpointer } from './checkpoint.js';
import { createDeflatePools, installPooledDeflate, type DeflatePools } from './deflate-pool.js';
import { createConnectionCaps, type ConnectionCaps } from './connection-caps.js';
import {
  createConnection, type Connection, type ConnectionDeps, type ConnectionInfo, type ConnectionObserver, type ConnectionSettings, type ConnectQuery,
} from './connection.js';
import { startGatewayTimers } from './gateway-timers.js';
import { createHub } from './hub.js';
import type { LiveScreenHook } from './live-screens.js';
import { createWsMetrics, type WsMetrics } from './metrics.js';
import { CLOSE_CODES } from './protocol.js';
import type { ReplaySource } from './replay.js';
import { createSessionStore, type SessionStore } from './session-store.js';
import { createStartQueue, type StartQueue } from './start-queue.js';
import { collectStats, type WsStats } from './stats-report.js';
import { createWsCounters, type WsCounters } from './stats.js';
import type { Universe } from './subscriptions.js';

/** The WebSocket paths. */
export const WS_PATHS = ['/v1/ws', '/api/v1/ws', '/ws/market'] as const;

/**
 * Deflate negotiation. Both sides without context takeover, so each message is
 * compressed on its own: the server then compresses with a small shared pool of zlib
 * contexts instead of one per connection (see deflate-pool.ts: a used context of
 * Node's zlib holds ~87 KB, which alone would break the 100 KB per-connection target),
 * and a connection's inflater is freed after each client message. Window sizes are
 * left to the client (forcing one refuses, with HTTP 400, clients whose offer does not
 * fit); frames under 16 KB are sent uncompressed: a profile of the fan-out benchmark
 * showed zlib as the largest cost of a busy gateway, and the typical batch frame (a few
 * price updates, 0.3–3 KB) gains little from compression. Large frames (replays,
 * snapshots) still go out compressed.
 */
export const DEFLATE_OPTIONS: PerMessageDeflateOptions = {
  serverNoContextTakeover: true,
  clientNoContextTakeover: true,
  zlibDeflateOptions: { level: 1 },
  threshold: 16 * 1024,
  concurrencyLimit: 10,
};

/** Gateway tuning; the first six come from the daemon config (ws_*). */
export interface WsGatewayOptions extends ConnectionSettings {
  /** Interval of the protocol-level ping; a connection that missed the previous pong is dropped. */
  heartbeatMs: number;
  /** Largest client frame in bytes; larger → close 1009. */
  maxPayload: number;
  /** false disables compression. */
  perMessageDeflate: PerMessageDeflateOptions | false;
  /** Shared compression contexts (per window size); messages beyond wait their turn. */
  deflatePoolSize: number;
  /** Interval of the periodic session checkpoint (a restore after a crash repeats at most this much). */
  checkpointMs: number;
  /** Lifetime of this instance's liveness key (refreshed every third of it): how long a dead instance's sessions wait. */
  instanceTtlMs: number;
  /** Open connections per client address of anonymous callers, across daemons (0: no cap; connection-caps.ts). */
  maxConnectionsPerAddress: number;
  /** Open connections per user, across daemons (0: no cap). */
  maxConnectionsPerUser: number;
  /** Lease of a counted connection, renewed every third of it: a crashed daemon's connections stop counting after this. */
  capLeaseMs: number;
  /**
   * Connections whose start (token check, cap, session restore and replay) runs at once; the
   * next wait their turn, so that a reconnect storm's handshakes are answered first (start-queue.ts).
   */
  startConcurrency: number;
}

/** Defaults: the configurable ones are the config's (WS_DEFAULTS), plus slow-consumer and replay bounds. */
export const DEFAULT_WS_OPTIONS: WsGatewayOptions = {
  batchIntervalMs: WS_DEFAULTS.batch_interval_ms,
  rateLimit: WS_DEFAULTS.rate_limit,
  maxSubscriptions: WS_DEFAULTS.max_subscriptions,
  maxTargetsPerRequest: WS_DEFAULTS.max_targets_per_request,
  sessionTtlS: WS_DEFAULTS.session_ttl_s,
  heartbeatMs: WS_DEFAULTS.heartbeat_ms,
  maxPayload: 64 * 1024,
  perMessageDeflate: DEFLATE_OPTIONS,
  deflatePoolSize: 8,
  highWaterBytes: 256 * 1024,
  maxBehindFlushes: 100,
  maxQueue: 5000,
  maxBatchSize: 500,
  maxFrameBytes: 64 * 1024,
  maxReplayMessages: WS_DEFAULTS.replay_max_messages,
  maxReplayScan: 100_000,
  maxReplayAlerts: 1000,
  closeGraceMs: 2000,
  checkpointMs: 5000,
  instanceTtlMs: 5000,
  ownerWaitMs: 6000,
  maxConnectionsPerAddress: WS_DEFAULTS.max_connections_per_address,
  maxConnectionsPerUser: WS_DEFAULTS.max_connections_per_user,
  capLeaseMs: 60_000,
  startConcurrency: 64,
};

/** Collaborators of the gateway. */
export interface WsGatewayDeps {
  bus: MarketBus & ReplaySource & { position(): string | null };
  /** A command connection (saved sessions) and the deployment's key function. */
  redis: Redis;
  key(...parts: string[]): string;
  tokens: Pick<TokenService, 'verify'>;
  universe: Universe;
  snapshot(codes: string[]): Promise<PriceEvent[]>;
  /** Current market status (market_status on subscribe and restore); absent: none sent. */
  marketStatus?(): MarketStatusEvent[];
  /** The user's alert firings in [fromMs, toMs) from their durable records (see ConnectionDeps). */
  missedAlerts?(userId: string, fromMs: number, toMs: number, limit: number): Promise<AlertEvent[]>;
  logger: Logger;
  clock?: Clock;
  /** Prometheus registry for the gateway's instruments (a private one when absent). */
  registry?: Registry;
  options?: Partial<WsGatewayOptions>;
  /** Live screens; their connection's screens end when it closes. */
  liveScreens?: LiveScreenHook;
  /** The client address of an upgrade request (default: the socket's peer; the daemon applies `trust_proxy`). */
  clientAddress?(req: IncomingMessage): string;
}

/** The running gateway. */
export interface WsGateway {
  /** Serve WebSocket upgrades of `server` (other paths get 404). */
  attach(server: Server): void;
  stats(): Promise<WsStats>;
  connections(): ConnectionInfo[];
  /** Emits 'connection' (conn), 'close' (conn, code, reason), 'slow_consumer' (conn, details) and 'checkpoint' (conn, sessionId). */
  readonly events: EventEmitter;
  /** This instance's id in session records. */
  readonly id: string;
  /** Connections of this daemon per subscribed stock code. */
  stockWatchers(): Map<string, number>;
  readonly options: Readonly<WsGatewayOptions>;
  /** Close every connection with 1001 and wait for their sessions to be saved; idempotent. */
  close(): Promise<void>;
}

function reject(socket: Duplex, status: number, text: string): void {
  socket.on('error', () => undefined);
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.destroy();
}

/** Create the gateway (subscribes to the bus now; serves nothing and runs no timer until attach()). */
export function createWsGateway(deps: WsGatewayDeps): WsGateway {
  return new Gateway(deps);
}

/** The options of `deps` over the defaults; the owner wait follows the instance lifetime unless set. */
function optionsOf(deps: WsGatewayDeps): WsGatewayOptions {
  const options: WsGatewayOptions = { ...DEFAULT_WS_OPTIONS, ...deps.options };
  if (deps.options?.ownerWaitMs === undefined) options.ownerWaitMs = options.instanceTtlMs + 1000;
  return options;
}

/** The caps on open connections per address and per user (undefined when neither is capped). */
function capsOf(deps: WsGatewayDeps, options: WsGatewayOptions, gatewayId: string): ConnectionCaps | undefined {
  if (options.maxConnectionsPerAddress <= 0 && options.maxConnectionsPerUser <= 0) return undefined;
  return createConnectionCaps(
    { redis: deps.redis, key: deps.key, gatewayId, logger: deps.logger },
    { perAddress: options.maxConnectionsPerAddress, perUser: options.maxConnectionsPerUser, leaseMs: options.capLeaseMs },
  );
}

/** What every connection reports to the gateway: sends and client messages counted, slow consumers announced. */
function connectionObserver(counters: WsCounters, metrics: WsMetrics, events: EventEmitter): ConnectionObserver {
  return {
    onSent(messages: number, frames: number, latencyMs: number) {
      counters.recordSent(messages, frames, latencyMs);
      metrics.messagesSent.inc(messages);
      metrics.framesSent.inc(frames);
      metrics.sendLatency.observe(latencyMs / 1000);
    },
    onClientMessage: (type: string) => metrics.clientMessages.inc({ type }),
    onRateLimit: (decision: 'rejected' | 'closed') => metrics.rateLimitDecisions.inc({ decision }),
    onSlowConsumer: (conn: Connection, details: Record<string, number>) => events.emit('slow_consumer', conn, details),
  };
}

/** How a connection starts, from its upgrade query (a last_sequence that is no whole number is ignored). */
function connectQueryOf(query: URLSearchParams, address: string): ConnectQuery {
  const lastSequence = Number(query.get('last_sequence') ?? NaN);
  return {
    token: query.get('token') ?? undefined,
    session_id: query.get('session_id') ?? undefined,
    last_sequence: Number.isSafeInteger(lastSequence) && lastSequence >= 0 ? lastSequence : undefined,
    address,
  };
}

/**
 * The gateway: the open connections (by socket and, until their session is saved, by id), the
 * parts every connection shares (hub, flush scheduler, session store, checkpointer, caps,
 * deflate pools) and the timers between attach() and close().
 */
class Gateway implements WsGateway {
  readonly options: WsGatewayOptions;
  readonly id = randomUUID();
  readonly events = new EventEmitter();
  private readonly hub = createHub();
  private readonly scheduler: FlushScheduler;
  private readonly sessions: SessionStore;
  private readonly counters = createWsCounters();
  private readonly sockets = new Map<Connection, WebSocket>();
  // Until their session is saved (a restore of a closing connection's session waits for it).
  private readonly byId = new Map<string, Connection>();
  private readonly checkpoints: Checkpointer;
  private readonly metrics: WsMetrics;
  private readonly deflate: DeflatePools | null;
  private readonly wss: WebSocketServer;
  private readonly unsubscribeBus: () => void;
  private readonly caps: ConnectionCaps | undefined;
  private readonly clientAddress: (req: IncomingMessage) => string;
  private readonly connectionDeps: ConnectionDeps;
  private readonly starts: StartQueue;
  private server: Server | undefined;
  private closing: Promise<void> | undefined;
  private stopTimers: (() => void) | undefined;

  constructor(private readonly deps: WsGatewayDeps) {
    const options = (this.options = optionsOf(deps));
    const clock = deps.clock ?? systemClock;
    const { logger } = deps;
    const { events, sockets } = this;
    events.on('error', (err: Error) => logger.error({ err }, 'ws gateway event listener failed'));
    this.scheduler = createFlushScheduler(options.batchIntervalMs > 0 ? options.batchIntervalMs : 10);
    this.sessions = createSessionStore({ redis: deps.redis, key: deps.key, clock, ttlSeconds: options.sessionTtlS, checkpointMs: options.checkpointMs });
    this.checkpoints = createCheckpointer({ sessions: this.sessions, logger, onWritten: (conn, id) => events.emit('checkpoint', conn, id) });
    this.metrics = createWsMetrics(deps.registry ?? new Registry(), {
      connections: () => sockets.size,
      subscriptions: () => [...sockets.keys()].reduce((n, c) => n + c.subscriptions.count(), 0),
      queuedMessages: () => [...sockets.keys()].reduce((n, c) => n + c.queuedMessages(), 0),
    });
    this.deflate = options.perMessageDeflate ? createDeflatePools({ size: options.deflatePoolSize, level: 1, memLevel: 8 }) : null;
    this.wss = new WebSocketServer({ noServer: true, clientTracking: false, maxPayload: options.maxPayload, perMessageDeflate: options.perMessageDeflate });
    this.wss.on('error', (err) => logger.error({ err }, 'WebSocket server error'));
    const { hub } = this;
    this.unsubscribeBus = deps.bus.subscribe((id, event) => hub.dispatch(id, event));
    this.caps = capsOf(deps, options, this.id);
    this.clientAddress = deps.clientAddress ?? ((req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown');
    this.connectionDeps = {
      hub, sessions: this.sessions, clock, logger, scheduler: this.scheduler, gatewayId: this.id, checkpoints: this.checkpoints, caps: this.caps,
      localConnection: (id: string) => this.byId.get(id),
      marketStatus: deps.marketStatus, missedAlerts: deps.missedAlerts, liveScreens: deps.liveScreens,
      tokens: deps.tokens, universe: deps.universe, bus: deps.bus, snapshot: deps.snapshot, settings: options,
      observer: connectionObserver(this.counters, this.metrics, events),
    };
    this.starts = createStartQueue(options.startConcurrency, (err) => logger.error({ err }, 'WebSocket connection start failed'));
  }

  stockWatchers(): Map<string, number> {
    return this.hub.stockWatchers();
  }

  attach(target: Server): void {
    if (this.server || this.closing) return;
    this.server = target;
    this.server.on('upgrade', this.onUpgrade);
    const { sockets, caps, checkpoints, sessions, options } = this;
    this.stopTimers = startGatewayTimers({ sockets, caps, checkpoints, sessions, gatewayId: this.id, logger: this.deps.logger, options });
  }

  stats(): Promise<WsStats> {
    const { sockets, counters, sessions, options, hub, deflate } = this;
    return collectStats({ connections: [...sockets.keys()], counters, sessions, options, topics: hub.topicCount(), deflate: deflate?.stats() ?? null });
  }

  connections(): ConnectionInfo[] {
    return [...this.sockets.keys()].map((c) => c.info());
  }

  close(): Promise<void> {
    return (this.closing ??= this.shutDown());
  }

  /** Close every connection with 1001, wait for their sessions, then stop everything shared. */
  private async shutDown(): Promise<void> {
    this.stopTimers?.();
    this.unsubscribeBus();
    this.scheduler.flushAll();
    const open = [...this.sockets.keys()];
    for (const conn of open) conn.close(CLOSE_CODES.GOING_AWAY, 'server shutting down');
    await Promise.all(open.map((c) => c.finished));
    this.checkpoints.stop();
    await this.checkpoints.idle();
    await this.sessions.markDead(this.id).catch(() => undefined);
    this.scheduler.stop();
    this.server?.off('upgrade', this.onUpgrade);
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.deflate?.close();
  }

  /** An arrow: the server holds it as its 'upgrade' listener (and removes it by identity). */
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!(WS_PATHS as readonly string[]).includes(url.pathname)) return reject(socket, 404, 'Not Found');
    if (this.closing) return reject(socket, 503, 'Service Unavailable');
    const address = this.clientAddress(req);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, url.searchParams, address));
  };

  private onConnection(ws: WebSocket, query: URLSearchParams, address: string): void {
    const { deps, sockets, byId, events, metrics } = this;
    if (this.deflate) installPooledDeflate(ws, this.deflate);
    const conn = createConnection(ws, this.connectionDeps);
    sockets.set(conn, ws);
    byId.set(conn.id, conn);
    void conn.finished.then(() => byId.delete(conn.id));
    ws.on('close', (code: number, reason: Buffer) => {
      sockets.delete(conn);
      deps.liveScreens?.closed(conn);
      metrics.closes.inc({ reason: closeLabel(code) });
      events.emit('close', conn, code, reason.toString());
    });
    events.emit('connection', conn);
    const start = connectQueryOf(query, address);
    // The handshake is answered already; the start waits for a slot (a socket closed meanwhile is dropped).
    const begin = () => conn.start(start).catch((err: Error) => deps.logger.error({ err, connection: conn.id }, 'WebSocket connection start failed'));
    this.starts.run(begin, () => ws.readyState === ws.OPEN);
  }
}

function closeLabel(code: number): string {
  switch (code) {
    case CLOSE_CODES.GOING_AWAY:
      return 'going_away';
    case CLOSE_CODES.POLICY_VIOLATION:
      return 'rate_limit';
    case CLOSE_CODES.MESSAGE_TOO_BIG:
      return 'message_too_big';
    case CLOSE_CODES.SLOW_CONSUMER:
      return 'slow_consumer';
    case CLOSE_CODES.TOO_MANY_CONNECTIONS:
      return 'too_many_connections';
    case 1000:
      return 'normal';
    default:
      return 'other';
  }
}
