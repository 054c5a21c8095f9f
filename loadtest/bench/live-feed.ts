/**
 * The live-delivery bench's feed: one tick per stock per second over `quotes` (every stock of
 * the market), sent through POST /admin/ticks every 50 ms in round-robin order (prices on the
 * KRX grid alternating by one tick, see ws/tick-source.ts), at most 4 requests in flight. It
 * remembers when each stock's last two ticks were sent (Date.now(), the daemon's clock too),
 * so that a screen_update can be attributed to the tick that caused it.
 */
import type { ApiClient } from '../api.js';
import { nextTick, type Quote } from '../ws/tick-source.js';

const INTERVAL_MS = 50;
const MAX_IN_FLIGHT = 4;

/** A running feed. */
export interface LiveFeed {
  /** Send for `seconds`; resolves with the ticks accepted and rejected (requests in flight settled). */
  run(seconds: number): Promise<{ accepted: number; rejected: number }>;
  /** Latest send time (ms) of a tick of one of `codes` at or before `atMs`; null when none. */
  lastSentBefore(codes: readonly string[], atMs: number): number | null;
  stop(): void;
}

/** A feed over `quotes` (started by `run`). */
export function startFeed(api: ApiClient, adminToken: string, quotes: Quote[]): LiveFeed {
  const index = new Map(quotes.map((q, i) => [q.code, i]));
  // The last and the one-before-last send time of each stock.
  const last = new Float64Array(quotes.length).fill(Number.NaN);
  const prev = new Float64Array(quotes.length).fill(Number.NaN);
  let cursor = 0;
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();
  let stats = { accepted: 0, rejected: 0 };

  function tick(owed: { n: number }): void {
    owed.n += (quotes.length * INTERVAL_MS) / 1000;
    const n = Math.min(Math.floor(owed.n), 1000);
    owed.n -= n;
    if (n === 0 || inFlight.size >= MAX_IN_FLIGHT) return void (stats.rejected += n);
    const now = Date.now();
    const ticks = Array.from({ length: n }, () => {
      const k = cursor++ % quotes.length;
      prev[k] = last[k]!;
      last[k] = now;
      return nextTick(quotes[k]!);
    });
    const p = api
      .call('/api/v1/admin/ticks', { json: { ticks }, token: adminToken, timeoutMs: 10_000 })
      .then((res) => {
        if (res.status >= 200 && res.status < 300) stats.accepted += n;
        else stats.rejected += n;
      })
      .catch(() => void (stats.rejected += n))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  return {
    async run(seconds) {
      stats = { accepted: 0, rejected: 0 };
      const owed = { n: 0 };
      timer = setInterval(() => tick(owed), INTERVAL_MS);
      await new Promise((r) => setTimeout(r, seconds * 1000));
      clearInterval(timer);
      timer = undefined;
      await Promise.all([...inFlight]);
      return { ...stats };
    },
    lastSentBefore(codes, atMs) {
      let best: number | null = null;
      for (const code of codes) {
        const k = index.get(code);
        if (k === undefined) continue;
        const t = last[k]! <= atMs ? last[k]! : prev[k]! <= atMs ? prev[k]! : Number.NaN;
        if (t === t && (best === null || t > best)) best = t;
      }
      return best;
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
