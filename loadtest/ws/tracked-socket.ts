/**
 * A WebSocket client that reads the gateway's protocol: frames are parsed,
 * `batch` frames flattened in reading order, every sequence number checked against the
 * previous one, data messages counted (and handed to `onData`), control messages kept so
 * `next` can wait for one without polling and without missing one that already arrived.
 */
import { WebSocket } from 'ws';
import type { ReceivedMessage } from '../../daemon/contract/ws.js';

/** A server message (or a batch frame) as read: the wire contract's ReceivedMessage. */
export type WsMessage = ReceivedMessage;

/** A tracked socket. */
export interface TrackedSocket {
  readonly ws: WebSocket;
  /** Sequence of the last message read (0 before any). */
  lastSequence: number;
  /** Sequence of the first message read (a batch frame's own, when the first frame is a batch); null before any. */
  firstSequence: number | null;
  /** Discontinuities seen and messages they skipped. */
  gaps: number;
  missing: number;
  /** Data (non-control) messages read. */
  dataMessages: number;
  /** performance.now() of the last frame. */
  lastFrameAt: number;
  /** The next control message after the read cursor matching `predicate` (moves the cursor past it). @throws on timeout or close */
  next(predicate: (m: WsMessage) => boolean, timeoutMs: number): Promise<WsMessage>;
  send(message: unknown): void;
  /** Resolves when the socket closed. */
  readonly closed: Promise<number>;
}

const CONTROL = new Set(['connected', 'subscribed', 'unsubscribed', 'pong', 'error', 'reconnected', 'token_refreshed', 'batch']);

/** Options of a tracked socket. */
export interface TrackOptions {
  /** Sequence read before (a restored session continues from it). */
  sequence?: number;
  onData?(m: WsMessage): void;
  /** Local address to connect from (e.g. one of 127.0.0.x, so a storm is not one source address). */
  localAddress?: string;
}

/**
 * Open `url`; resolves once the socket is open.
 * @throws Error with the HTTP status or socket error when the handshake fails
 */
export function openTracked(url: string, timeoutMs: number, options: TrackOptions = {}): Promise<TrackedSocket> {
  const { onData, localAddress } = options;
  const ws = new WebSocket(url, { handshakeTimeout: timeoutMs, ...(localAddress ? { localAddress } : {}) });
  const waiters = new Set<() => void>();
  const control: WsMessage[] = [];
  let cursor = 0;
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  const t: TrackedSocket = {
    ws, lastSequence: options.sequence ?? 0, firstSequence: null, gaps: 0, missing: 0, dataMessages: 0, lastFrameAt: performance.now(), closed,
    next(predicate, ms) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error('timed out'));
        }, ms);
        const check = () => {
          for (let i = cursor; i < control.length; i++) {
            if (!predicate(control[i]!)) continue;
            cursor = i + 1;
            clearTimeout(timer);
            waiters.delete(check);
            resolve(control[i]!);
            return;
          }
        };
        waiters.add(check);
        check();
        void closed.then((code) => {
          if (!waiters.delete(check)) return;
          clearTimeout(timer);
          reject(new Error(`closed ${code}`));
        });
      });
    },
    send: (message) => ws.send(JSON.stringify(message)),
  };
  const read = (m: WsMessage) => {
    if (typeof m.sequence === 'number') {
      t.firstSequence ??= m.sequence;
      if (t.lastSequence > 0 && m.sequence !== t.lastSequence + 1) {
        t.gaps++;
        t.missing += Math.max(0, m.sequence - t.lastSequence - 1);
      }
      t.lastSequence = m.sequence;
    }
    if (!CONTROL.has(m.type)) {
      t.dataMessages++;
      onData?.(m);
      return;
    }
    if (m.type !== 'batch') control.push(m);
    for (const w of [...waiters]) w();
  };
  ws.on('message', (raw: Buffer) => {
    t.lastFrameAt = performance.now();
    let frame: WsMessage;
    try {
      frame = JSON.parse(raw.toString()) as WsMessage;
    } catch {
      return;
    }
    read(frame);
    if (frame.type === 'batch' && Array.isArray(frame.messages)) for (const inner of frame.messages as WsMessage[]) read(inner);
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(t));
    ws.once('unexpected-response', (_req, res) => {
      reject(new Error(`HTTP ${res.statusCode}`));
      ws.terminate();
    });
    // Stays attached: a later socket error must not become an unhandled 'error' event.
    ws.on('error', (err: Error & { code?: string }) => reject(new Error(err.code ?? err.message)));
  });
}
