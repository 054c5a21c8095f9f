/**
 * The one KIS WebSocket session of an app key: connect with an approval key, keep the wanted
 * real-time registrations (register what is missing, release what is no longer wanted),
 * answer PINGPONG, and hand data frames on.
 *
 * Reconnects wait with exponential backoff and jitter (1 s, 2 s, 4 s … up to a minute, each
 * between half and the whole of it), because the provider blocks keys and addresses that
 * connect and disconnect in a loop. A registration the provider refuses for the limit
 * (OPSP0008 "MAX SUBSCRIBE OVER") lowers the number this session asks for, so a refusal is
 * never retried in a loop either.
 */
import WebSocket from 'ws';
import type { Logger } from 'pino';
import { KIS, parseSystemMessage, registrationMessage, splitFrame } from './protocol.js';

/** One real-time registration: a feed (H0STCNT0, H0STASP0) and a code. */
export interface Registration {
  trId: string;
  code: string;
}

/** Collaborators and settings of the socket. */
export interface KisSocketOptions {
  /** The socket host (config kis_ws_url); the path is the provider's `/tryitout`. */
  url: string;
  approvalKey(): Promise<string>;
  dropApprovalKey(key: string): Promise<void>;
  /** A data frame: its feed, record count and `^`-separated body. */
  onData(trId: string, count: number, body: string, encrypted: boolean): void;
  /** A message the socket could not read (counted by the caller). */
  onBadFrame(): void;
  logger: Logger;
  /** First reconnect delay (default 1 s); doubles up to `reconnectMaxMs` (default 60 s). */
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  random?: () => number;
}

/** Counters and state of the socket. */
export interface KisSocketStats {
  connected: boolean;
  registered: number;
  wanted: number;
  connects: number;
  reconnects: number;
  pingpongs: number;
  refused_over_limit: number;
  /** ms epoch of the last message of any kind (frames, acknowledgements, PINGPONG); 0 before any. */
  last_message_at: number;
  /** ms epoch the current connection opened; 0 when closed. */
  connected_at: number;
}

/** A running socket. */
export interface KisSocket {
  /** Connect (and keep reconnecting) until stop(). */
  start(): void;
  /** Make these the registrations (in priority order; the first ones are kept when over the limit). */
  want(registrations: readonly Registration[]): void;
  /** Drop the connection and reconnect after the backoff (a silent socket). */
  recycle(reason: string): void;
  /** Close for good; idempotent. */
  stop(): Promise<void>;
  stats(): KisSocketStats;
}

const keyOf = (r: Registration) => `${r.trId}|${r.code}`;
const PENDING_MS = 5_000;
// "ALREADY IN SUBSCRIBE": the server holds it (a request repeated after a lost answer).
const ALREADY_REGISTERED = 'OPSP0002';

/** Create the socket (nothing connects until start()). */
export function createKisSocket(options: KisSocketOptions): KisSocket {
  const { logger } = options;
  const baseMs = options.reconnectBaseMs ?? 1_000;
  const maxMs = options.reconnectMaxMs ?? 60_000;
  const random = options.random ?? Math.random;
  const url = `${options.url.replace(/\/+$/, '')}${KIS.wsPath}`;
  let ws: WebSocket | undefined;
  let approval: string | undefined;
  let running = false;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;
  let wanted: Registration[] = [];
  // Registrations the server confirmed, and requests sent but not yet answered.
  const registered = new Set<string>();
  // Sent request → when (ms); one unanswered for PENDING_MS is sent again on the next reconcile.
  const pending = new Map<string, number>();
  // After an OPSP0008 the session asks for no more than it holds.
  let cap = Infinity;
  const stats = { connects: 0, reconnects: 0, pingpongs: 0, refused_over_limit: 0, last_message_at: 0, connected_at: 0 };

  function scheduleReconnect(): void {
    if (!running || timer) return;
    const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 16));
    const delay = Math.round(ceiling / 2 + random() * (ceiling / 2));
    attempt++;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, delay);
    timer.unref();
  }

  function send(text: string): void {
    if (ws?.readyState === WebSocket.OPEN) ws.send(text);
  }

  /** Bring the server's registrations to the wanted ones: releases first, then registrations. */
  function reconcile(): void {
    if (!ws || ws.readyState !== WebSocket.OPEN || !approval) return;
    const target = wanted.slice(0, Number.isFinite(cap) ? cap : wanted.length);
    const targetKeys = new Set(target.map(keyOf));
    const t = Date.now();
    const waiting = (key: string) => (pending.get(key) ?? -Infinity) > t - PENDING_MS;
    for (const key of [...registered]) {
      if (targetKeys.has(key) || waiting(key)) continue;
      const [trId, code] = key.split('|') as [string, string];
      pending.set(key, t);
      send(registrationMessage(approval, trId, code, false));
    }
    for (const r of target) {
      const key = keyOf(r);
      if (registered.has(key) || waiting(key)) continue;
      pending.set(key, t);
      send(registrationMessage(approval, r.trId, r.code, true));
    }
  }

  function onSystem(raw: string): void {
    const msg = parseSystemMessage(raw);
    if (!msg) {
      options.onBadFrame();
      return;
    }
    if (msg.pingpong) {
      // The provider's client answers with the frame itself (kis_auth.py: `await ws.pong(raw)`).
      ws?.pong(raw);
      stats.pingpongs++;
      return;
    }
    if (!msg.trKey) return;
    const key = `${msg.trId}|${msg.trKey}`;
    pending.delete(key);
    if (msg.ok || msg.msgCode === ALREADY_REGISTERED) {
      if (msg.message?.startsWith('UNSUB')) registered.delete(key);
      else registered.add(key);
      return;
    }
    if (msg.msgCode === KIS.maxSubscribeOver) {
      stats.refused_over_limit++;
      cap = registered.size;
      logger.warn({ held: registered.size }, 'KIS refused a registration (MAX SUBSCRIBE OVER); holding the registrations this session has');
      return;
    }
    logger.warn({ tr_id: msg.trId, code: msg.trKey, msg_cd: msg.msgCode, msg: msg.message }, 'KIS refused a real-time request');
  }

  async function connect(): Promise<void> {
    if (!running) return;
    try {
      approval = await options.approvalKey();
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'KIS approval key not available; retrying after the backoff');
      scheduleReconnect();
      return;
    }
    if (!running) return;
    const socket = new WebSocket(url, { handshakeTimeout: 10_000 });
    ws = socket;
    socket.on('open', () => {
      stats.connects++;
      stats.connected_at = Date.now();
      registered.clear();
      pending.clear();
      cap = Infinity;
      reconcile();
    });
    socket.on('message', (data, isBinary) => {
      stats.last_message_at = Date.now();
      const raw = isBinary ? data.toString() : data.toString();
      const frame = splitFrame(raw);
      if (frame) {
        options.onData(frame.trId, frame.count, frame.body, frame.encrypted);
        return;
      }
      onSystem(raw);
    });
    socket.on('error', (err) => logger.warn({ err: err.message }, 'KIS socket error'));
    socket.on('close', (code) => {
      if (ws !== socket) return;
      ws = undefined;
      // A session that lived a minute was healthy: the next drop starts the backoff over.
      if (stats.connected_at && Date.now() - stats.connected_at > 60_000) attempt = 0;
      stats.connected_at = 0;
      registered.clear();
      pending.clear();
      if (!running) return;
      stats.reconnects++;
      logger.warn({ code }, 'KIS socket closed; reconnecting after the backoff');
      scheduleReconnect();
    });
    socket.on('unexpected-response', (_req, res) => {
      logger.warn({ status: res.statusCode }, 'KIS socket refused the connection');
      if (approval && (res.statusCode === 401 || res.statusCode === 403)) void options.dropApprovalKey(approval).catch(() => undefined);
    });
  }

  return {
    start() {
      if (running) return;
      running = true;
      void connect();
    },
    want(registrations) {
      const seen = new Set<string>();
      wanted = registrations.filter((r) => !seen.has(keyOf(r)) && seen.add(keyOf(r)));
      reconcile();
    },
    recycle(reason) {
      if (!ws) return;
      logger.warn({ reason }, 'KIS socket recycled');
      ws.terminate();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      timer = undefined;
      const socket = ws;
      ws = undefined;
      if (!socket) return;
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) {
        await new Promise<void>((resolve) => {
          socket.once('close', () => resolve());
          socket.close(1000);
          setTimeout(() => (socket.terminate(), resolve()), 2_000).unref();
        });
      }
    },
    stats: () => ({ connected: ws?.readyState === WebSocket.OPEN, registered: registered.size, wanted: wanted.length, ...stats }),
  };
}
