/**
 * A recording `ws` test client: every frame is parsed and kept; batch frames are also
 * flattened so tests can wait for messages with `next(predicate)` without sleeping.
 */
import { WebSocket, type ClientOptions } from 'ws';

/** A parsed server message. */
export type Msg = { type: string; sequence?: number; timestamp?: string; [k: string]: unknown };

/** A connected test client. */
export interface TestClient {
  ws: WebSocket;
  /** The server's Sec-WebSocket-Extensions response header ('' when none). */
  extensions: string;
  /** Raw frames as parsed JSON, in arrival order. */
  frames: Msg[];
  /** Messages in reading order: a batch frame, then its inner messages. */
  ordered: Msg[];
  /** Non-batch messages (inner messages of batches included). */
  messages: Msg[];
  /** Resolve with the first message after the read cursor matching `predicate`; moves the cursor past it. */
  next(predicate?: (m: Msg) => boolean, timeoutMs?: number): Promise<Msg>;
  /** Resolve once `count` messages matching `predicate` arrived in total (from the start). */
  collect(predicate: (m: Msg) => boolean, count: number, timeoutMs?: number): Promise<Msg[]>;
  send(message: unknown): void;
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** Connect to `url` (path and query included); resolves once the socket is open. */
export async function connect(url: string, options: ClientOptions = {}): Promise<TestClient> {
  const ws = new WebSocket(url, options);
  const frames: Msg[] = [];
  const ordered: Msg[] = [];
  const messages: Msg[] = [];
  let cursor = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Msg;
    frames.push(frame);
    ordered.push(frame);
    if (frame.type === 'batch') {
      for (const inner of frame.messages as Msg[]) {
        ordered.push(inner);
        messages.push(inner);
      }
    } else messages.push(frame);
    wake();
  });
  ws.on('error', () => undefined);
  let extensions = '';
  ws.once('upgrade', (res) => void (extensions = String(res.headers['sec-websocket-extensions'] ?? '')));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      wake();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });

  function waitUntil<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const value = check();
        if (value === undefined) return false;
        clearTimeout(timer);
        waiters.delete(run);
        resolve(value);
        return true;
      };
      const run = () => void attempt();
      const timer = setTimeout(() => {
        waiters.delete(run);
        reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(messages.slice(-5))}`));
      }, timeoutMs);
      if (!attempt()) waiters.add(run);
    });
  }

  return {
    ws, frames, ordered, messages, closed, extensions,
    next(predicate = () => true, timeoutMs = 5000) {
      return waitUntil(
        () => {
          for (let i = cursor; i < messages.length; i++) {
            const m = messages[i]!;
            if (predicate(m)) {
              cursor = i + 1;
              return m;
            }
          }
          return undefined;
        },
        timeoutMs,
        'a matching message',
      );
    },
    collect(predicate, count, timeoutMs = 5000) {
      return waitUntil(
        () => {
          const found = messages.filter(predicate);
          return found.length >= count ? found.slice(0, count) : undefined;
        },
        timeoutMs,
        `${count} matching messages`,
      );
    },
    send(message) {
      ws.send(typeof message === 'string' ? message : JSON.stringify(message));
    },
    async close() {
      if (ws.readyState === ws.CLOSED) return;
      ws.close();
      await closed;
    },
  };
}

/** Predicate: a message of `type` (and optional field values). */
export function ofType(type: string, fields: Record<string, unknown> = {}): (m: Msg) => boolean {
  return (m) => m.type === type && Object.entries(fields).every(([k, v]) => m[k] === v);
}
