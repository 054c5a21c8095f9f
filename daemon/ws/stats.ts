/**
 * In-process figures of the gateway for `GET /ws/stats` (the SRE part): messages sent,
 * messages per second over the last 10 s, send-latency percentiles, memory.
 * Send latency = time from the gateway building a message (bus dispatch, reply) to the
 * frame carrying it being handed to the socket; one sample per flush, last 2048 kept.
 */
import type { LatencySummary, MemoryFigures } from '../contract/ws.js';

/** Send-latency percentiles in milliseconds (daemon/contract/ws.ts). */
export type { LatencySummary } from '../contract/ws.js';

/** Counters behind the stats. */
export interface WsCounters {
  recordSent(messages: number, frames: number, latencyMs: number): void;
  messagesSent(): number;
  framesSent(): number;
  /** Messages delivered per second, averaged over the last 10 s (or the uptime when shorter). */
  messagesPerSecond(): number;
  latency(): LatencySummary;
}

const WINDOW_S = 10;
const RESERVOIR = 2048;

/** Create the counters; `now` is a monotonic millisecond clock (performance.now by default). */
export function createWsCounters(now: () => number = () => performance.now()): WsCounters {
  const started = now();
  const bucketCounts = new Float64Array(WINDOW_S);
  const bucketSecond = new Float64Array(WINDOW_S).fill(-1);
  const samples = new Float64Array(RESERVOIR);
  let sampleCount = 0;
  let messages = 0;
  let frames = 0;

  return {
    recordSent(n, f, latencyMs) {
      messages += n;
      frames += f;
      const second = Math.floor((now() - started) / 1000);
      const slot = second % WINDOW_S;
      if (bucketSecond[slot] !== second) {
        bucketSecond[slot] = second;
        bucketCounts[slot] = 0;
      }
      bucketCounts[slot] = (bucketCounts[slot] ?? 0) + n;
      samples[sampleCount++ % RESERVOIR] = latencyMs;
    },
    messagesSent: () => messages,
    framesSent: () => frames,
    messagesPerSecond() {
      const elapsedMs = now() - started;
      const second = Math.floor(elapsedMs / 1000);
      let sum = 0;
      for (let i = 0; i < WINDOW_S; i++) {
        const s = bucketSecond[i] ?? -1;
        if (s >= 0 && s > second - WINDOW_S) sum += bucketCounts[i] ?? 0;
      }
      // The window covers the current partial second plus the 9 before it.
      const windowS = Math.min(elapsedMs / 1000, WINDOW_S - 1 + (elapsedMs % 1000) / 1000);
      return windowS > 0 ? Math.round((sum / windowS) * 10) / 10 : 0;
    },
    latency() {
      const n = Math.min(sampleCount, RESERVOIR);
      if (n === 0) return { p50: null, p95: null, p99: null, max: null, samples: 0 };
      const sorted = Array.from(samples.subarray(0, n)).sort((a, b) => a - b);
      const pick = (q: number) => round2(sorted[Math.min(n - 1, Math.ceil(q * n) - 1)] ?? 0);
      return { p50: pick(0.5), p95: pick(0.95), p99: pick(0.99), max: round2(sorted[n - 1] ?? 0), samples: n };
    },
  };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Process memory figures in bytes. */
export function memoryFigures(): MemoryFigures {
  const m = process.memoryUsage();
  return { rss: m.rss, heap_used: m.heapUsed, heap_total: m.heapTotal, external: m.external, array_buffers: m.arrayBuffers };
}
