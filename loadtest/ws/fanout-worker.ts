/**
 * The body of a WebSocket load worker thread: opens its share of the clients (a bounded
 * number of handshakes at a time), subscribes each to its stocks in chunks the server
 * accepts, then counts delivered messages (those inside `batch` frames one by one), their
 * latency from the message timestamp to receipt, sequence gaps and disconnects, between
 * the coordinator's `measure` and `stop` commands. Once a client is subscribed, its data
 * frames are scanned, not parsed (frame-scan.ts): exact sequence check, latency sampled on
 * one message in LATENCY_SAMPLE.
 *
 * `fanoutWorkerMain` is self-contained on purpose (its source text is what the worker
 * evaluates, see client-pool.ts): no imports or module-level references inside it; `ws`,
 * `worker_threads`, the Histogram class and the frame scanner's factory come in as arguments.
 */
import type * as WorkerThreads from 'node:worker_threads';
import type * as Ws from 'ws';
import type { Histogram, HistogramJSON } from '../histogram.js';
import type { createFrameScanner as CreateFrameScanner } from './frame-scan.js';

/** Data messages whose latency is sampled: one in this many (Histogram and Date work saved on the rest). */
export const LATENCY_SAMPLE = 4;

/** What a worker is given. */
export interface FanoutWorkerData {
  /** Full WebSocket URL (path and query included). */
  url: string;
  /** Global index of this worker's first client (spreads the stock assignment). */
  offset: number;
  count: number;
  codes: string[];
  perConnection: number;
  market: string | null;
  connectConcurrency: number;
  timeoutMs: number;
  /** Latency sampled on one data message in this many (LATENCY_SAMPLE). */
  latencySample: number;
}

/** Commands from the coordinator. */
export type FanoutCommand = { cmd: 'measure' } | { cmd: 'stop' } | { cmd: 'close' };

/** Reports to the coordinator. */
export type FanoutReport =
  | { type: 'progress'; connected: number; failed: number }
  /** Messages counted so far in the measured window (about once a second while measuring, for a live view). */
  | { type: 'count'; messages: number }
  | { type: 'ready'; connected: number; failed: number; failures: Record<string, number>; connect: HistogramJSON; subscribe: HistogramJSON }
  | {
      type: 'result';
      messages: number;
      frames: number;
      latency: HistogramJSON;
      gaps: number;
      missing: number;
      disconnects: number;
      closeCodes: Record<string, number>;
      errors: Record<string, number>;
      elapsedMs: number;
    }
  | { type: 'closed' };

type HistogramClass = typeof Histogram;
type Msg = { type?: string; sequence?: number; timestamp?: string; code?: string; messages?: Msg[] };

/** Run a worker: `wt` is node:worker_threads, `ws` the ws module, `H` the Histogram class, `scanner` frame-scan.ts's factory. */
export function fanoutWorkerMain(wt: typeof WorkerThreads, ws: typeof Ws, H: HistogramClass, scanner: typeof CreateFrameScanner): void {
  const port = wt.parentPort!;
  const data = wt.workerData as FanoutWorkerData;
  const scan = scanner(data.latencySample);
  const onLatency = (ms: number) => latency.record(ms * 1000);
  const CONTROL = new Set(['connected', 'subscribed', 'unsubscribed', 'pong', 'error', 'reconnected', 'token_refreshed', 'batch']);
  const noLatency = () => undefined;
  const sockets: Ws.WebSocket[] = [];
  const failures: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const closeCodes: Record<string, number> = {};
  const connectHist = new H();
  const subscribeHist = new H();
  let latency = new H();
  let measuring = false;
  let messages = 0;
  let frames = 0;
  let gaps = 0;
  let missing = 0;
  let disconnects = 0;
  let measureStart = 0;
  let connected = 0;
  let failed = 0;

  function targetsOf(index: number): string[] {
    const out: string[] = [];
    const n = Math.min(data.perConnection, data.codes.length);
    for (let j = 0; j < n; j++) out.push(data.codes[(index * n + j) % data.codes.length]!);
    return out;
  }

  function openOne(index: number): Promise<void> {
    return new Promise((resolve) => {
      const t0 = performance.now();
      let settled = false;
      let ready = false;
      let lastSeq = 0;
      let acks = 0;
      let chunks = 0;
      let subscribeAt = 0;
      const socket = new ws.WebSocket(data.url, { handshakeTimeout: data.timeoutMs });
      const finish = (reason: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (reason === null) {
          ready = true;
          connected++;
          sockets.push(socket);
        } else {
          failed++;
          failures[reason] = (failures[reason] ?? 0) + 1;
          socket.terminate();
        }
        resolve();
      };
      const timer = setTimeout(() => finish(chunks === 0 ? 'no connected message in time' : 'no subscribed reply in time'), data.timeoutMs * 2);
      const handle = (m: Msg, now: number) => {
        if (typeof m.sequence === 'number') {
          if (lastSeq > 0 && m.sequence !== lastSeq + 1) {
            gaps++;
            missing += Math.max(0, m.sequence - lastSeq - 1);
          }
          lastSeq = m.sequence;
        }
        const type = m.type ?? '';
        if (!CONTROL.has(type)) {
          if (measuring && ready) {
            messages++;
            if (m.timestamp) latency.record((now - Date.parse(m.timestamp)) * 1000);
          }
          return;
        }
        if (type === 'connected' && chunks === 0) {
          connectHist.record((performance.now() - t0) * 1000);
          const max = Number((m as { max_targets_per_request?: number }).max_targets_per_request) || 50;
          const targets = targetsOf(data.offset + index);
          subscribeAt = performance.now();
          for (let i = 0; i < targets.length; i += max) {
            chunks++;
            socket.send(JSON.stringify({ type: 'subscribe', subscription_type: 'stock', targets: targets.slice(i, i + max) }));
          }
          if (data.market) {
            chunks++;
            socket.send(JSON.stringify({ type: 'subscribe', subscription_type: 'market', targets: [data.market] }));
          }
          if (chunks === 0) finish(null);
        } else if (type === 'subscribed' && !ready) {
          if (++acks === chunks) {
            subscribeHist.record((performance.now() - subscribeAt) * 1000);
            finish(null);
          }
        } else if (type === 'error') {
          const code = String((m as { code?: string }).code ?? 'error');
          if (!ready) finish(code);
          else errors[code] = (errors[code] ?? 0) + 1;
        }
      };
      const state = { seq: 0, gaps: 0, missing: 0 };
      socket.on('message', (raw: Buffer) => {
        const now = Date.now();
        if (ready && scan.scannable(raw)) {
          state.seq = lastSeq;
          state.gaps = gaps;
          state.missing = missing;
          const counted = scan.scan(raw, now, state, measuring ? onLatency : noLatency);
          if (counted >= 0) {
            if (measuring) {
              frames++;
              messages += counted;
            }
            lastSeq = state.seq;
            gaps = state.gaps;
            missing = state.missing;
            return;
          }
        }
        let frame: Msg;
        try {
          frame = JSON.parse(raw.toString()) as Msg;
        } catch {
          errors.unparsable = (errors.unparsable ?? 0) + 1;
          return;
        }
        if (measuring) frames++;
        handle(frame, now);
        if (frame.type === 'batch' && Array.isArray(frame.messages)) for (const inner of frame.messages) handle(inner, now);
      });
      socket.on('unexpected-response', (_req, res) => finish(`HTTP ${res.statusCode}`));
      socket.on('error', (err: Error & { code?: string }) => finish(err.code ?? err.message));
      socket.on('close', (code: number) => {
        if (!ready) return finish(`closed ${code}`);
        if (measuring) {
          disconnects++;
          closeCodes[code] = (closeCodes[code] ?? 0) + 1;
        }
      });
    });
  }

  async function openAll(): Promise<void> {
    let next = 0;
    const progress = setInterval(() => port.postMessage({ type: 'progress', connected, failed }), 250);
    const lane = async () => {
      while (next < data.count) await openOne(next++);
    };
    await Promise.all(Array.from({ length: Math.min(data.connectConcurrency, data.count) }, lane));
    clearInterval(progress);
    port.postMessage({ type: 'ready', connected, failed, failures, connect: connectHist.toJSON(), subscribe: subscribeHist.toJSON() });
  }

  function closeAll(): void {
    let open = sockets.length;
    const done = () => port.postMessage({ type: 'closed' });
    if (open === 0) return done();
    const force = setTimeout(() => {
      for (const s of sockets) s.terminate();
      done();
    }, 2000);
    for (const s of sockets) {
      s.once('close', () => {
        if (--open === 0) {
          clearTimeout(force);
          done();
        }
      });
      s.close(1000, 'load test done');
    }
  }

  let counting: ReturnType<typeof setInterval> | undefined;
  port.on('message', (c: FanoutCommand) => {
    if (c.cmd === 'measure') {
      latency = new H();
      messages = frames = gaps = missing = disconnects = 0;
      measureStart = performance.now();
      measuring = true;
      counting = setInterval(() => port.postMessage({ type: 'count', messages }), 1000);
    } else if (c.cmd === 'stop') {
      measuring = false;
      clearInterval(counting);
      port.postMessage({
        type: 'result', messages, frames, latency: latency.toJSON(), gaps, missing, disconnects, closeCodes, errors,
        elapsedMs: performance.now() - measureStart,
      });
    } else if (c.cmd === 'close') {
      clearInterval(counting);
      closeAll();
    }
  });
  void openAll();
}
