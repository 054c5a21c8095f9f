/**
 * A WebSocket client of the gateway that keeps a subscription alive:
 * it subscribes after the server's hello, unwraps `batch` frames, checks sequence
 * numbers, and when the connection drops it reconnects by itself with exponential
 * backoff, passing the `session_id` so the server restores the session (subscriptions
 * and the missed messages, counted in `reconnected.missed_messages_count`) and the last
 * sequence number read (`last_sequence`, so numbering continues after it even when the
 * server restores from a checkpoint older than what was read). If the
 * session cannot be restored (expired, unknown) the new session is subscribed afresh.
 *
 * States: connecting → connected | restored → reconnecting → connecting … → closed.
 * Only the very first connection fails fast (start() rejects): a daemon that is not
 * there at all is an error, a daemon that restarts is waited for.
 */
import { WebSocket } from 'ws';
import type { ReceivedMessage, ReconnectedMessage, SubscriptionMap, SubscriptionMessage, SubscriptionType } from '../../../daemon/contract/ws.js';
import { unreachable } from './api-client.js';
import { CliError, LOCAL_CODES } from '../session/errors.js';
import { createSequenceTracker, parseFrame, type SequenceAnomaly } from './ws-frames.js';

/** One subscribe request: a `subscribe` message without its type. */
export type SubscriptionRequest = Omit<SubscriptionMessage, 'type'>;

/** Reconnection delays: initialMs · factor^(attempt−1), capped at maxMs, minus up to `jitter` of it at random. */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** 0–1: the share of the delay that is randomised (spreads the reconnections of many clients). */
  jitter: number;
}

/** Default backoff: 250 ms, 500 ms, 1 s, … up to 10 s. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 250, maxMs: 10_000, factor: 2, jitter: 0.2 };

/** The delay before reconnection attempt `attempt` (1-based); `random` is in [0, 1). */
export function backoffDelay(attempt: number, options: BackoffOptions, random: number): number {
  const raw = Math.min(options.maxMs, options.initialMs * options.factor ** Math.max(0, attempt - 1));
  return Math.round(raw * (1 - options.jitter * random));
}

/** Where the client is. */
export type ConnectionStatus =
  | { state: 'connecting'; attempt: number }
  | { state: 'connected'; sessionId: string; restoreFailed?: string }
  | { state: 'restored'; sessionId: string; missed: number; estimated: boolean; historyTruncated: boolean }
  | { state: 'reconnecting'; attempt: number; delayMs: number; reason: string; /** Epoch ms the wait started (for a countdown). */ since?: number }
  | { state: 'closed'; reason: string };

/** What the client reports. */
export type WsClientEvent =
  | { type: 'status'; status: ConnectionStatus }
  /** A server message; inner messages of a batch come one by one, in order. */
  | { type: 'message'; message: ReceivedMessage }
  | { type: 'anomaly'; anomaly: SequenceAnomaly }
  | { type: 'protocol_error'; error: string };

/** Options of createWsClient. */
export interface WsClientOptions {
  /** The daemon's http(s) base URL. */
  baseUrl: string;
  /** Default `/v1/ws`. */
  path?: string;
  /** The access token for each (re)connection; undefined connects anonymously. */
  token?(): Promise<string | undefined>;
  subscriptions: SubscriptionRequest[];
  backoff?: Partial<BackoffOptions>;
  /** Drop a connection silent for this long although pinged (default 75 s; the client pings after a third of it). */
  idleTimeoutMs?: number;
  /** Time for the handshake and the server's first message (default 10 s). */
  helloTimeoutMs?: number;
  random?(): number;
}

/** A running client. */
export interface WsClient {
  /**
   * Connect; resolves once the server greeted (`connected` or `reconnected`).
   * @throws CliError when the first connection fails (unreachable daemon, refused upgrade)
   */
  start(): Promise<void>;
  /** Listen to events; returns the unsubscribe function. */
  on(listener: (event: WsClientEvent) => void): () => void;
  status(): ConnectionStatus;
  sessionId(): string | undefined;
  /** Send a client message on the current connection (dropped while disconnected). */
  send(message: Record<string, unknown>): void;
  /** Close for good (code 1000); idempotent. */
  stop(): Promise<void>;
}

/** The WebSocket URL for `baseUrl` (http → ws, https → wss) with the spec's query parameters (and `last_sequence` with a session). */
export function websocketUrl(baseUrl: string, path: string, query: { token?: string; session_id?: string; last_sequence?: number }): string {
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (query.token) url.searchParams.set('token', query.token);
  if (query.session_id) url.searchParams.set('session_id', query.session_id);
  if (query.session_id && query.last_sequence !== undefined) url.searchParams.set('last_sequence', String(query.last_sequence));
  return url.toString();
}

/** Targets of `wanted` missing from what a restored session holds (market names compare case-insensitively). */
export function missingSubscriptions(wanted: SubscriptionRequest[], restored: Partial<SubscriptionMap> | undefined): SubscriptionRequest[] {
  const key = (type: SubscriptionType, t: string) => (type === 'market' ? t.trim().toUpperCase() : t.trim());
  const out: SubscriptionRequest[] = [];
  for (const req of wanted) {
    const held = new Set((restored?.[req.subscription_type] ?? []).map((t) => key(req.subscription_type, t)));
    const targets = req.targets.filter((t) => !held.has(key(req.subscription_type, t)));
    if (targets.length) out.push({ subscription_type: req.subscription_type, targets });
  }
  return out;
}

function firstFailure(baseUrl: string, err: Error | undefined, code: number): CliError {
  const status = /Unexpected server response: (\d+)/.exec(err?.message ?? '')?.[1];
  if (status) {
    return new CliError({ code: LOCAL_CODES.BAD_RESPONSE, message: `${baseUrl} refused the WebSocket connection (HTTP ${status})`, hint: 'check that --url points at stockscreend' });
  }
  if (err) return unreachable(baseUrl, err, 10_000);
  return new CliError({ code: LOCAL_CODES.BAD_RESPONSE, message: `${baseUrl} closed the WebSocket connection before greeting (${code})` });
}

/** Create a client (nothing happens until start()). */
export function createWsClient(options: WsClientOptions): WsClient {
  const backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  const path = options.path ?? '/v1/ws';
  const random = options.random ?? Math.random;
  const idleTimeoutMs = options.idleTimeoutMs ?? 75_000;
  const helloTimeoutMs = options.helloTimeoutMs ?? 10_000;
  const listeners = new Set<(event: WsClientEvent) => void>();
  const tracker = createSequenceTracker();
  let socket: WebSocket | undefined;
  let sessionId: string | undefined;
  let status: ConnectionStatus = { state: 'connecting', attempt: 0 };
  let attempt = 0;
  let greetedOnce = false;
  let stopped = false;
  let maxTargets = 50;
  let retryTimer: NodeJS.Timeout | undefined;
  let first: { resolve(): void; reject(err: Error): void } | undefined;

  const emit = (event: WsClientEvent) => {
    for (const listener of [...listeners]) listener(event);
  };
  const setStatus = (next: ConnectionStatus) => {
    status = next;
    emit({ type: 'status', status: next });
  };

  function send(message: Record<string, unknown>): void {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  function subscribe(requests: SubscriptionRequest[]): void {
    // The server refuses requests over max_targets_per_request (from `connected`).
    for (const req of requests) {
      for (let i = 0; i < req.targets.length; i += maxTargets) {
        send({ type: 'subscribe', subscription_type: req.subscription_type, targets: req.targets.slice(i, i + maxTargets) });
      }
    }
  }

  function greeted(): void {
    greetedOnce = true;
    attempt = 0;
    first?.resolve();
    first = undefined;
  }

  function handle(m: ReceivedMessage): void {
    if (m.type === 'connected') {
      sessionId = String(m.session_id);
      if (typeof m.max_targets_per_request === 'number' && m.max_targets_per_request > 0) maxTargets = m.max_targets_per_request;
      greeted();
      setStatus({ state: 'connected', sessionId });
      subscribe(options.subscriptions);
    } else if (m.type === 'reconnected') {
      const r = m as ReconnectedMessage;
      sessionId = r.session_id;
      greeted();
      setStatus({ state: 'restored', sessionId, missed: r.missed_messages_count ?? 0, estimated: r.missed_messages_estimated === true, historyTruncated: r.history_truncated === true });
      subscribe(missingSubscriptions(options.subscriptions, r.restored_subscriptions));
    } else if (m.type === 'error' && m.code === 'SESSION_RESTORATION_FAILED' && status.state === 'connected') {
      const reason = (m.details as { reason?: unknown } | undefined)?.reason;
      setStatus({ ...status, restoreFailed: typeof reason === 'string' ? reason : 'failed' });
    }
  }

  function onFrame(text: string): void {
    let parsed;
    try {
      parsed = parseFrame(text);
    } catch (err) {
      emit({ type: 'protocol_error', error: (err as Error).message });
      return;
    }
    for (const anomaly of tracker.observe(parsed)) emit({ type: 'anomaly', anomaly });
    for (const m of parsed.messages) {
      handle(m);
      emit({ type: 'message', message: m });
    }
  }

  function scheduleReconnect(reason: string): void {
    attempt++;
    const delayMs = backoffDelay(attempt, backoff, random());
    setStatus({ state: 'reconnecting', attempt, delayMs, reason, since: Date.now() });
    retryTimer = setTimeout(() => void connect(), delayMs);
  }

  async function connect(): Promise<void> {
    if (stopped) return;
    setStatus({ state: 'connecting', attempt: attempt + 1 });
    const token = await Promise.resolve(options.token?.()).catch(() => undefined);
    if (stopped) return;
    const ws = new WebSocket(websocketUrl(options.baseUrl, path, { token, session_id: sessionId, last_sequence: tracker.last() }), { handshakeTimeout: helloTimeoutMs });
    socket = ws;
    let failure: Error | undefined;
    let idleTimer: NodeJS.Timeout | undefined;
    let probeTimer: NodeJS.Timeout | undefined;
    const drop = (why: string) => {
      failure ??= new Error(why);
      ws.terminate();
    };
    // Liveness: any frame, server ping or pong re-arms; after a third of the idle time
    // the client pings (a protocol frame, not a message), so a quiet market is not taken
    // for a dead connection whatever the server's heartbeat interval.
    const armIdle = () => {
      clearTimeout(idleTimer);
      clearTimeout(probeTimer);
      probeTimer = setTimeout(() => ws.ping(), idleTimeoutMs / 3);
      idleTimer = setTimeout(() => drop(`no data or heartbeat for ${idleTimeoutMs / 1000} s`), idleTimeoutMs);
    };
    const helloTimer = setTimeout(() => drop('the server did not greet in time'), helloTimeoutMs);
    ws.on('open', armIdle);
    ws.on('ping', armIdle);
    ws.on('pong', armIdle);
    ws.on('message', (data: Buffer) => {
      armIdle();
      onFrame(data.toString('utf8'));
      if (greetedOnce) clearTimeout(helloTimer);
    });
    ws.on('error', (err) => void (failure ??= err));
    ws.on('close', (code: number, reason: Buffer) => {
      clearTimeout(helloTimer);
      clearTimeout(idleTimer);
      clearTimeout(probeTimer);
      if (socket === ws) socket = undefined;
      if (stopped) return;
      if (!greetedOnce) {
        stopped = true;
        const err = firstFailure(options.baseUrl, failure, code);
        setStatus({ state: 'closed', reason: err.message });
        first?.reject(err);
        first = undefined;
        return;
      }
      const text = reason.toString();
      scheduleReconnect(failure?.message ?? `connection closed (${code}${text ? ` ${text}` : ''})`);
    });
  }

  return {
    start() {
      return new Promise<void>((resolve, reject) => {
        first = { resolve, reject };
        void connect();
      });
    },
    on(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    status: () => status,
    sessionId: () => sessionId,
    send,
    async stop() {
      if (stopped && !socket) return;
      stopped = true;
      clearTimeout(retryTimer);
      const ws = socket;
      first?.resolve();
      first = undefined;
      if (ws && ws.readyState !== WebSocket.CLOSED) {
        const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
        const force = setTimeout(() => ws.terminate(), 1000);
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close(1000, 'client closing');
        await closed;
        clearTimeout(force);
      }
      setStatus({ state: 'closed', reason: 'stopped' });
    },
  };
}
