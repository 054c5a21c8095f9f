/**
 * The bench's baselines: what this machine allows with no application in the way.
 * - a bare `node:http` server answering every request with one fixed JSON body;
 * - a bare `ws` server speaking just enough of the protocol for the fan-out clients
 *   (`connected` on open, `subscribed` on subscribe) that sends every subscribed client the
 *   price updates due every 30 ms (the gateway's batch interval) as one frame numbered with
 *   that client's own sequence, the way the daemon numbers them (built by plain string
 *   concatenation per client: the straightforward fan-out), timestamps refreshed per
 *   broadcast so latency is measured the same way, and serves `GET /v1/ws/stats` with its connection count and RSS.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** Options of the baselines. */
export interface BaselineOptions {
  /** Messages each subscribed client receives per second (like the daemon run's per-client rate). */
  messagesPerClientPerSecond: number;
  intervalMs?: number;
}

/** Running baselines. */
export interface Baselines {
  httpUrl: string;
  wsHttpUrl: string;
  close(): Promise<void>;
}

/** The fixed body of the bare HTTP server (the size of a small envelope answer). */
export const BASELINE_BODY = JSON.stringify({
  status: 'success',
  data: { code: '005930', name: 'Samsung Electronics', market: 'KOSPI', price: 71500, change: 500, change_percent: 0.7, volume: 1234567 },
  meta: { timestamp: '2026-01-05T00:00:00.000Z', request_id: '00000000-0000-4000-8000-000000000000' },
});

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The tick's messages without their closing brace (each client appends its own sequence). */
function heads(count: number, seq: number): string[] {
  const ts = new Date().toISOString();
  const one = `{"type":"price_update","code":"005930","name":"Samsung Electronics","price":${71500 + (seq % 2) * 100},"change":500,"change_percent":0.7,"volume":1234567,"timestamp":"${ts}"`;
  return Array<string>(count).fill(one);
}

/** One client's frame, numbered from `first` like the daemon's (a batch before its inner messages; one message unwrapped). */
function frameFor(inner: string[], first: number): string {
  if (inner.length === 1) return `${inner[0]},"sequence":${first}}`;
  const body = inner.map((h, i) => `${h},"sequence":${first + 1 + i}}`).join(',');
  return `{"type":"batch","sequence":${first},"batch_size":${inner.length},"timestamp":"${new Date().toISOString()}","messages":[${body}]}`;
}

function startWs(o: BaselineOptions): { server: Server; stop(): void } {
  // Subscribed clients and the last sequence number each was sent.
  const subscribed = new Map<WebSocket, number>();
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/v1/ws/stats')) {
      const body = { active_connections: subscribed.size, memory: { rss: process.memoryUsage().rss } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    } else res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server, path: '/v1/ws', perMessageDeflate: false });
  wss.on('connection', (ws) => {
    ws.on('error', () => undefined);
    ws.send(JSON.stringify({ type: 'connected', session_id: randomUUID(), max_targets_per_request: 50, timestamp: new Date().toISOString() }));
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as { type?: string; subscription_type?: string; targets?: string[] };
      if (m.type !== 'subscribe') return;
      if (!subscribed.has(ws)) subscribed.set(ws, 0);
      ws.send(JSON.stringify({ type: 'subscribed', subscription_type: m.subscription_type, targets: m.targets, timestamp: new Date().toISOString() }));
    });
    ws.on('close', () => subscribed.delete(ws));
  });
  const interval = o.intervalMs ?? 30;
  let owed = 0;
  let seq = 0;
  const timer = setInterval(() => {
    owed += (o.messagesPerClientPerSecond * interval) / 1000;
    const n = Math.floor(owed);
    if (n === 0) return;
    owed -= n;
    const inner = heads(n, seq++);
    for (const [ws, last] of subscribed) {
      ws.send(frameFor(inner, last + 1));
      subscribed.set(ws, last + (n === 1 ? 1 : n + 1));
    }
  }, interval);
  return { server, stop: () => clearInterval(timer) };
}

/** Start both baselines on loopback ports. */
export async function startBaselines(o: BaselineOptions): Promise<Baselines> {
  const http = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BASELINE_BODY) }).end(BASELINE_BODY);
  });
  const ws = startWs(o);
  const [httpUrl, wsHttpUrl] = await Promise.all([listen(http), listen(ws.server)]);
  return {
    httpUrl,
    wsHttpUrl,
    async close() {
      ws.stop();
      await Promise.all([close(http), close(ws.server)]);
    },
  };
}
