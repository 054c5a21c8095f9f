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
import { createFlushScheduler } from './batching.js';
import { createCheckpointer } from './checkpoint.js';
import { createDeflatePools, installPooledDeflate } from './deflate-pool.js';
import { createConnectionCaps } from './connection-caps.js';
import { createConnection, type Connection, type ConnectionInfo, type ConnectionSettings } from './connection.js';
import { createHub } from './hub.js';
import type { LiveScreenHook } from './live-screens.js';
import { createWsMetrics } from './metrics.js';
import { CLOSE_CODES } from './protocol.js';
import type { ReplaySource } from './replay.js';
import { createSessionStore } from './session-store.js';
import { createStartQueue } from './start-queue.js';
import { collectStats, type WsStats } from './stats-report.js';
import { createWsCounters } from './stats.js';
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
  const options: WsGatewayOptions = { ...DEFAULT_WS_OPTIONS, ...deps.options };
  if (deps.options?.ownerWaitMs === undefined) options.ownerWaitMs = options.instanceTtlMs + 1000;
  const clock = deps.clock ?? systemClock;
  const gatewayId = randomUUID();
  const { logger } = deps;
  const events = new EventEmitter();
  events.on('error', (err: Error) => logger.error({ err }, 'ws gateway event listener failed'));
  const hub = createHub();
  const scheduler = createFlushScheduler(options.batchIntervalMs > 0 ? options.batchIntervalMs : 10);
  const sessions = createSessionStore({ redis: deps.redis, key: deps.key, clock, ttlSeconds: options.sessionTtlS, checkpointMs: options.checkpointMs });
  const counters = createWsCounters();
  const sockets = new Map<Connection, WebSocket>();
  // Until their session is saved (a restore of a closing connection's session waits for it).
  const byId = new Map<string, Connection>();
  const checkpoints = createCheckpointer({ sessions, logger, onWritten: (conn, id) => events.emit('checkpoint', conn, id) });
  const queued = () => [...sockets.keys()].reduce((n, c) => n + c.queuedMessages(), 0);
  const metrics = createWsMetrics(deps.registry ?? new Registry(), {
    connections: () => sockets.size,
    subscriptions: () => [...sockets.keys()].reduce((n, c) => n + c.subscriptions.count(), 0),
    queuedMessages: queued,
  });
  const deflate = options.perMessageDeflate ? createDeflatePools({ size: options.deflatePoolSize, level: 1, memLevel: 8 }) : null;
  const wss = new WebSocketServer({ noServer: true, clientTracking: false, maxPayload: options.maxPayload, perMessageDeflate: options.perMessageDeflate });
  wss.on('error', (err) => logger.error({ err }, 'WebSocket server error'));
  const unsubscribeBus = deps.bus.subscribe((id, event) => hub.dispatch(id, event));
  let server: Server | undefined;
  let closing: Promise<void> | undefined;

  const capped = options.maxConnectionsPerAddress > 0 || options.maxConnectionsPerUser > 0;
  const caps = capped
    ? createConnectionCaps(
        { redis: deps.redis, key: deps.key, gatewayId, logger },
        { perAddress: options.maxConnectionsPerAddress, perUser: options.maxConnectionsPerUser, leaseMs: options.capLeaseMs },
      )
    : undefined;
  const clientAddress = deps.clientAddress ?? ((req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown');

  const connectionDeps = {
    hub, sessions, clock, logger, scheduler, gatewayId, checkpoints, caps,
    localConnection: (id: string) => byId.get(id),
    marketStatus: deps.marketStatus, missedAlerts: deps.missedAlerts, liveScreens: deps.liveScreens,
    tokens: deps.tokens, universe: deps.universe, bus: deps.bus, snapshot: deps.snapshot, settings: options,
    observer: {
      onSent(messages: number, frames: number, latencyMs: number) {
        counters.recordSent(messages, frames, latencyMs);
        metrics.messagesSent.inc(messages);
        metrics.framesSent.inc(frames);
        metrics.sendLatency.observe(latencyMs / 1000);
      },
      onClientMessage: (type: string) => metrics.clientMessages.inc({ type }),
      onRateLimit: (decision: 'rejected' | 'closed') => metrics.rateLimitDecisions.inc({ decision }),
      onSlowConsumer: (conn: Connection, details: Record<string, number>) => events.emit('slow_consumer', conn, details),
    },
  };

  const starts = createStartQueue(options.startConcurrency, (err) => logger.error({ err }, 'WebSocket connection start failed'));

  function onConnection(ws: WebSocket, query: URLSearchParams, address: string): void {
    if (deflate) installPooledDeflate(ws, deflate);
    const conn = createConnection(ws, connectionDeps);
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
    const lastSequence = Number(query.get('last_sequence') ?? NaN);
    const start = {
      token: query.get('token') ?? undefined,
      session_id: query.get('session_id') ?? undefined,
      last_sequence: Number.isSafeInteger(lastSequence) && lastSequence >= 0 ? lastSequence : undefined,
      address,
    };
    // The handshake is answered already; the start waits for a slot (a socket closed meanwhile is dropped).
    const begin = () => conn.start(start).catch((err: Error) => logger.error({ err, connection: conn.id }, 'WebSocket connection start failed'));
    starts.run(begin, () => ws.readyState === ws.OPEN);
  }

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!(WS_PATHS as readonly string[]).includes(url.pathname)) return reject(socket, 404, 'Not Found');
    if (closing) return reject(socket, 503, 'Service Unavailable');
    const address = clientAddress(req);
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, url.searchParams, address));
  }

  // The timers and the liveness key run from attach() (the daemon's start), not from construction.
  let heartbeat: NodeJS.Timeout | undefined;
  let capRenewal: NodeJS.Timeout | undefined;
  let checkpointTimer: NodeJS.Timeout | undefined;
  let liveness: NodeJS.Timeout | undefined;
  function startTimers(): void {
    heartbeat = setInterval(() => {
      for (const [conn, ws] of sockets) {
        if (conn.heartbeat()) ws.ping();
        else ws.terminate();
      }
    }, options.heartbeatMs);
    heartbeat.unref();
    capRenewal = caps
      ? setInterval(() => void caps.renew([...sockets.keys()].flatMap((c) => c.capSlot() ?? [])), Math.max(10, Math.floor(options.capLeaseMs / 3)))
      : undefined;
    capRenewal?.unref();
    checkpointTimer = setInterval(() => checkpoints.touchAll(sockets.keys()), options.checkpointMs);
    checkpointTimer.unref();
    const markAlive = () =>
      sessions.markAlive(gatewayId, options.instanceTtlMs).catch((err: Error) => logger.debug({ err: err.message }, 'gateway liveness key not refreshed'));
    void markAlive();
    liveness = setInterval(markAlive, Math.max(10, Math.floor(options.instanceTtlMs / 3)));
    liveness.unref();
  }

  return {
    events,
    options,
    id: gatewayId,
    stockWatchers: () => hub.stockWatchers(),
    attach(target) {
      if (server || closing) return;
      server = target;
      server.on('upgrade', onUpgrade);
      startTimers();
    },
    stats: () =>
      collectStats({ connections: [...sockets.keys()], counters, sessions, options, topics: hub.topicCount(), deflate: deflate?.stats() ?? null }),
    connections: () => [...sockets.keys()].map((c) => c.info()),
    close() {
      return (closing ??= (async () => {
        clearInterval(heartbeat);
        clearInterval(checkpointTimer);
        clearInterval(capRenewal);
        clearInterval(liveness);
        unsubscribeBus();
        scheduler.flushAll();
        const open = [...sockets.keys()];
        for (const conn of open) conn.close(CLOSE_CODES.GOING_AWAY, 'server shutting down');
        await Promise.all(open.map((c) => c.finished));
        checkpoints.stop();
        await checkpoints.idle();
        await sessions.markDead(gatewayId).catch(() => undefined);
        scheduler.stop();
        server?.off('upgrade', onUpgrade);
        await new Promise<void>((resolve) => wss.close(() => resolve()));
        deflate?.close();
      })());
    },
  };
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
