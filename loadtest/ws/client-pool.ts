/**
 * Coordinates the WebSocket load clients spread over worker threads (so the generator is
 * not the bottleneck): start them, wait until every client is connected and subscribed,
 * then measure for a while and collect the merged figures. With `workers: 0` the same
 * client code runs on the main thread over a MessageChannel (small runs, tests).
 */
import { createRequire } from 'node:module';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import * as workerThreads from 'node:worker_threads';
import * as wsModule from 'ws';
import { Histogram } from '../histogram.js';
import { createFrameScanner } from './frame-scan.js';
import { fanoutWorkerMain, LATENCY_SAMPLE, type FanoutCommand, type FanoutReport, type FanoutWorkerData } from './fanout-worker.js';

/** What to open. */
export interface PoolPlan {
  url: string;
  connections: number;
  workers: number;
  codes: string[];
  perConnection: number;
  market: string | null;
  connectConcurrency: number;
  timeoutMs: number;
}

/** After every client tried to connect. */
export interface PoolReady {
  connected: number;
  failed: number;
  failures: Record<string, number>;
  /** Time to the `connected` message, ms. */
  connect: Histogram;
  /** Time from the first subscribe to the last `subscribed`, ms. */
  subscribe: Histogram;
  elapsedMs: number;
}

/** Figures of the measured window. */
export interface PoolMeasure {
  messages: number;
  frames: number;
  latency: Histogram;
  gaps: number;
  missing: number;
  disconnects: number;
  closeCodes: Record<string, number>;
  errors: Record<string, number>;
  elapsedMs: number;
}

/** A running pool. */
export interface ClientPool {
  ready(): Promise<PoolReady>;
  measure(): void;
  /** Messages counted so far in the measured window (as last reported by the workers, about once a second). */
  messagesSoFar(): number;
  stop(): Promise<PoolMeasure>;
  /** Close every client and end the workers; idempotent. */
  close(): Promise<void>;
}

interface Endpoint {
  post(c: FanoutCommand): void;
  on(listener: (r: FanoutReport) => void): void;
  end(): Promise<void>;
}

function workerSource(): string {
  const wsPath = createRequire(import.meta.url).resolve('ws');
  return `const H = ${Histogram.toString()};\nconst S = ${createFrameScanner.toString()};\n(${fanoutWorkerMain.toString()})(require('node:worker_threads'), require(${JSON.stringify(wsPath)}), H, S);`;
}

function threadEndpoint(source: string, data: FanoutWorkerData, onError: (err: Error) => void): Endpoint {
  const worker = new Worker(source, { eval: true, workerData: data });
  worker.on('error', onError);
  return {
    post: (c) => worker.postMessage(c),
    on: (l) => void worker.on('message', l),
    end: async () => void (await worker.terminate()),
  };
}

function inlineEndpoint(data: FanoutWorkerData): Endpoint {
  const { port1, port2 } = new MessageChannel();
  const fake = { ...workerThreads, parentPort: port1 as MessagePort, workerData: data } as typeof workerThreads;
  fanoutWorkerMain(fake, wsModule, Histogram, createFrameScanner);
  return {
    post: (c) => port2.postMessage(c),
    on: (l) => void port2.on('message', l),
    end: async () => {
      port1.close();
      port2.close();
    },
  };
}

/** Collect one report of `type` from every endpoint. */
function gather<T extends FanoutReport['type']>(endpoints: Endpoint[], waiting: Map<string, ((r: FanoutReport) => void)[]>, type: T): Promise<Extract<FanoutReport, { type: T }>[]> {
  return new Promise((resolve) => {
    const got: Extract<FanoutReport, { type: T }>[] = [];
    waiting.set(
      type,
      endpoints.map(() => (r: FanoutReport) => {
        got.push(r as Extract<FanoutReport, { type: T }>);
        if (got.length === endpoints.length) resolve(got);
      }),
    );
  });
}

/** Start the clients of `plan`; `onProgress` sees connection counts while they open. */
export function startClientPool(plan: PoolPlan, onProgress: (connected: number, failed: number) => void): ClientPool {
  const threads = Math.max(0, Math.min(plan.workers, plan.connections));
  const shares = threads === 0 ? [plan.connections] : Array.from({ length: threads }, (_, i) => Math.floor(plan.connections / threads) + (i < plan.connections % threads ? 1 : 0));
  const source = threads > 0 ? workerSource() : '';
  const waiting = new Map<string, ((r: FanoutReport) => void)[]>();
  const progress = shares.map(() => ({ connected: 0, failed: 0 }));
  const counted = shares.map(() => 0);
  let rejectFatal!: (err: Error) => void;
  // A worker that dies would leave its waiters hanging: every wait also races this.
  const fatal = new Promise<never>((_, reject) => (rejectFatal = reject));
  fatal.catch(() => undefined);
  let offset = 0;
  const started = performance.now();
  const endpoints = shares.map((count, i) => {
    const data: FanoutWorkerData = {
      url: plan.url, offset, count, codes: plan.codes, perConnection: plan.perConnection, market: plan.market,
      connectConcurrency: Math.max(1, Math.ceil(plan.connectConcurrency / shares.length)), timeoutMs: plan.timeoutMs,
      latencySample: LATENCY_SAMPLE,
    };
    offset += count;
    const ep = threads > 0 ? threadEndpoint(source, data, (err) => rejectFatal(err)) : inlineEndpoint(data);
    ep.on((r) => {
      if (r.type === 'progress' || r.type === 'ready') {
        progress[i] = { connected: r.connected, failed: r.failed };
        onProgress(progress.reduce((a, p) => a + p.connected, 0), progress.reduce((a, p) => a + p.failed, 0));
      }
      if (r.type === 'count') counted[i] = r.messages;
      // Each endpoint answers each request once: hand the report to that endpoint's waiter.
      const list = waiting.get(r.type);
      list?.[i]?.(r);
    });
    return ep;
  });
  const readyP = gather(endpoints, waiting, 'ready');
  let closing: Promise<void> | undefined;

  return {
    async ready() {
      const all = await Promise.race([readyP, fatal]);
      const connect = new Histogram();
      const subscribe = new Histogram();
      const failures: Record<string, number> = {};
      for (const r of all) {
        connect.merge(r.connect);
        subscribe.merge(r.subscribe);
        for (const [k, v] of Object.entries(r.failures)) failures[k] = (failures[k] ?? 0) + v;
      }
      return {
        connected: all.reduce((a, r) => a + r.connected, 0),
        failed: all.reduce((a, r) => a + r.failed, 0),
        failures, connect, subscribe, elapsedMs: performance.now() - started,
      };
    },
    measure() {
      counted.fill(0);
      for (const ep of endpoints) ep.post({ cmd: 'measure' });
    },
    messagesSoFar: () => counted.reduce((a, b) => a + b, 0),
    async stop() {
      const results = gather(endpoints, waiting, 'result');
      for (const ep of endpoints) ep.post({ cmd: 'stop' });
      const all = await Promise.race([results, fatal]);
      const latency = new Histogram();
      const sum = (k: 'messages' | 'frames' | 'gaps' | 'missing' | 'disconnects') => all.reduce((a, r) => a + r[k], 0);
      const merge = (k: 'closeCodes' | 'errors') => {
        const out: Record<string, number> = {};
        for (const r of all) for (const [c, v] of Object.entries(r[k])) out[c] = (out[c] ?? 0) + v;
        return out;
      };
      for (const r of all) latency.merge(r.latency);
      return {
        messages: sum('messages'), frames: sum('frames'), latency, gaps: sum('gaps'), missing: sum('missing'), disconnects: sum('disconnects'),
        closeCodes: merge('closeCodes'), errors: merge('errors'), elapsedMs: Math.max(...all.map((r) => r.elapsedMs)),
      };
    },
    close() {
      closing ??= (async () => {
        const closed = gather(endpoints, waiting, 'closed');
        for (const ep of endpoints) ep.post({ cmd: 'close' });
        await Promise.race([closed, new Promise((r) => setTimeout(r, 5000).unref())]);
        await Promise.all(endpoints.map((ep) => ep.end()));
      })();
      return closing;
    },
  };
}
