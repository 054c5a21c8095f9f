/**
 * The one KIS WebSocket session of an app key: connect with an approval key, keep the wanted
 * real-time registrations (register what is missing, release what is no longer wanted),
 * answer PINGPONG, and hand data frames on.
 *
 * Reconnects wait with exponential backoff and jitter (1 s, 2 s, 4 s … up to a minute, each
 * between half and the whole of it), because the provider blocks keys and addresses that
 * connect and disconnect in a loop. A registration the provider refuses for the limit
 * (OPSP0008 "MAX SUBSCRIBE OVER") lowers the number this session asks for, so a refusal is
 * never retried in a loop either (the registrations are kept in registrations.ts).
 */
import WebSocket from 'ws';
import type { Logger } from 'pino';
import { KIS, parseSystemMessage, registrationMessage, splitFrame } from './protocol.js';
import { RegistrationBook, type Registration } from './registrations.js';

/** One real-time registration: a feed (H0STCNT0, H0STASP0) and a code. */
export type { Registration } from './registrations.js';

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

/** The session: its connection, reconnects and registrations. */
class KisSession implements KisSocket {
  private readonly logger: Logger;
  private readonly url: string;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly random: () => number;
  private readonly book = new RegistrationBook();
  private ws: WebSocket | undefined;
  private approval: string | undefined;
  private running = false;
  /** Reconnects since the last healthy session (the backoff's exponent). */
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly counters = { connects: 0, reconnects: 0, pingpongs: 0, refused_over_limit: 0, last_message_at: 0, connected_at: 0 };

  constructor(private readonly options: KisSocketOptions) {
    this.logger = options.logger;
    this.url = `${options.url.replace(/\/+$/, '')}${KIS.wsPath}`;
    this.baseMs = options.reconnectBaseMs ?? 1_000;
    this.maxMs = options.reconnectMaxMs ?? 60_000;
    this.random = options.random ?? Math.random;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  want(registrations: readonly Registration[]): void {
    this.book.want(registrations);
    this.reconcile();
  }

  recycle(reason: string): void {
    if (!this.ws) return;
    this.logger.warn({ reason }, 'KIS socket recycled');
    this.ws.terminate();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    const socket = this.ws;
    this.ws = undefined;
    if (!socket) return;
    if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.close(1000);
        setTimeout(() => (socket.terminate(), resolve()), 2_000).unref();
      });
    }
  }

  stats(): KisSocketStats {
    return { connected: this.ws?.readyState === WebSocket.OPEN, registered: this.book.registeredCount, wanted: this.book.wantedCount, ...this.counters };
  }

  private scheduleReconnect(): void {
    if (!this.running || this.timer) return;
    const ceiling = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.attempt, 16));
    const delay = Math.round(ceiling / 2 + this.random() * (ceiling / 2));
    this.attempt++;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, delay);
    this.timer.unref();
  }

  /** Bring the server's registrations to the wanted ones: releases first, then registrations. */
  private reconcile(): void {
    const { ws, approval } = this;
    if (!ws || ws.readyState !== WebSocket.OPEN || !approval) return;
    for (const r of this.book.requests(Date.now())) {
      if (ws.readyState === WebSocket.OPEN) ws.send(registrationMessage(approval, r.trId, r.code, r.register));
    }
  }

  private onSystem(raw: string): void {
    const msg = parseSystemMessage(raw);
    if (!msg) {
      this.options.onBadFrame();
      return;
    }
    if (msg.pingpong) {
      // The provider's client answers with the frame itself (kis_auth.py: `await ws.pong(raw)`).
      this.ws?.pong(raw);
      this.counters.pingpongs++;
      return;
    }
    if (!msg.trKey) return;
    const outcome = this.book.acknowledge({ ...msg, trKey: msg.trKey });
    if (outcome === 'over-limit') {
      this.counters.refused_over_limit++;
      this.logger.warn({ held: this.book.registeredCount }, 'KIS refused a registration (MAX SUBSCRIBE OVER); holding the registrations this session has');
    } else if (outcome === 'refused') {
      this.logger.warn({ tr_id: msg.trId, code: msg.trKey, msg_cd: msg.msgCode, msg: msg.message }, 'KIS refused a real-time request');
    }
  }

  private async connect(): Promise<void> {
    if (!this.running) return;
    try {
      this.approval = await this.options.approvalKey();
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'KIS approval key not available; retrying after the backoff');
      this.scheduleReconnect();
      return;
    }
    if (!this.running) return;
    const socket = new WebSocket(this.url, { handshakeTimeout: 10_000 });
    this.ws = socket;
    socket.on('open', () => {
      this.counters.connects++;
      this.counters.connected_at = Date.now();
      this.book.forget(true);
      this.reconcile();
    });
    socket.on('message', (data) => {
      this.counters.last_message_at = Date.now();
      const raw = data.toString();
      const frame = splitFrame(raw);
      if (frame) this.options.onData(frame.trId, frame.count, frame.body, frame.encrypted);
      else this.onSystem(raw);
    });
    socket.on('error', (err) => this.logger.warn({ err: err.message }, 'KIS socket error'));
    socket.on('close', (code) => this.onClose(socket, code));
    socket.on('unexpected-response', (_req, res) => {
      this.logger.warn({ status: res.statusCode }, 'KIS socket refused the connection');
      const approval = this.approval;
      if (approval && (res.statusCode === 401 || res.statusCode === 403)) void this.options.dropApprovalKey(approval).catch(() => undefined);
    });
  }

  private onClose(socket: WebSocket, code: number): void {
    if (this.ws !== socket) return;
    this.ws = undefined;
    // A session that lived a minute was healthy: the next drop starts the backoff over.
    if (this.counters.connected_at && Date.now() - this.counters.connected_at > 60_000) this.attempt = 0;
    this.counters.connected_at = 0;
    this.book.forget(false);
    if (!this.running) return;
    this.counters.reconnects++;
    this.logger.warn({ code }, 'KIS socket closed; reconnecting after the backoff');
    this.scheduleReconnect();
  }
}

/** Create the socket (nothing connects until start()). */
export function createKisSocket(options: KisSocketOptions): KisSocket {
  return new KisSession(options);
}
