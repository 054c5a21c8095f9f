/**
 * Where the WebSocket scenarios' price updates come from. `ingest` posts real ticks to
 * POST /api/v1/admin/ticks (an admin token is needed): prices on the KRX tick grid,
 * alternating by one tick around each stock's current price, cumulative volume rising, no
 * `ts` (the daemon stamps receipt time, so latency runs from ingest to delivery). `feed`
 * leaves it to the daemon's own feed (the simulator): nothing to control, offered load unknown.
 */
import { tickSize } from '../../daemon/kernel/tick-size.js';
import type { ApiClient } from '../api.js';

/** What a source sent. */
export interface TickStats {
  /** Ticks the daemon accepted. */
  accepted: number;
  /** Ticks in rejected or failed requests. */
  rejected: number;
  /** Ticks not sent because earlier requests were still in flight (the target could not keep up). */
  skipped: number;
  /** Seconds between start and stop. */
  elapsedS: number;
  lastError?: string;
}

/** A source of price updates. */
export interface TickSource {
  readonly kind: string;
  /** True when the source sets the rate (the offered load is known). */
  readonly controlled: boolean;
  /** Start offering about `ratePerSecond` ticks spread round-robin over `codes`. @throws when the source cannot start */
  start(codes: readonly string[], ratePerSecond: number): Promise<void>;
  /** Stop; resolves once requests in flight settled. Idempotent. */
  stop(): Promise<TickStats>;
}

/** The daemon's own feed: nothing to do. */
export function feedTickSource(): TickSource {
  let started = 0;
  return {
    kind: 'daemon feed',
    controlled: false,
    async start() {
      started = performance.now();
    },
    async stop() {
      return { accepted: 0, rejected: 0, skipped: 0, elapsedS: started ? (performance.now() - started) / 1000 : 0 };
    },
  };
}

/** A stock's live quote, and the ticks made from it so far. */
export interface Quote {
  code: string;
  base: number;
  volume: number;
  /** Day change against the previous close when the quote was read (0 when unknown). */
  changePercent: number;
  n: number;
}

/** One tick of POST /admin/ticks. */
export interface IngestTick {
  code: string;
  price: number;
  volume: number;
}

/** Send interval of the ingest source. */
const INTERVAL_MS = 50;
const MAX_PER_REQUEST = 1000;
const MAX_IN_FLIGHT = 4;

/**
 * The live quote of each code (GET /stocks/{code}/price, 16 at a time): ticks made from it
 * pass the ingest checks (on the grid, near the previous close, volume not decreasing).
 * @throws ApiCallError when a quote cannot be read
 */
export async function loadQuotes(api: ApiClient, token: string, codes: readonly string[], signal?: AbortSignal): Promise<Quote[]> {
  const quotes: Quote[] = [];
  for (let i = 0; i < codes.length; i += 16) {
    const part = await Promise.all(
      codes.slice(i, i + 16).map(async (code) => {
        const q = await api.ok<{ data: { price: number; volume: number | null; change_percent: number | null } }>(`/api/v1/stocks/${code}/price`, { token, signal });
        return { code, base: q.data.price, volume: q.data.volume ?? 0, changePercent: q.data.change_percent ?? 0, n: 0 };
      }),
    );
    quotes.push(...part);
  }
  return quotes;
}

/** The next tick of a stock: its price alternates base, base + one tick (on the grid, far inside ±30 %), its volume rises by one. */
export function nextTick(q: Quote): IngestTick {
  q.n++;
  const price = q.n % 2 === 0 ? q.base : q.base + tickSize(q.base);
  return { code: q.code, price, volume: q.volume + q.n };
}

/** Ticks through POST /api/v1/admin/ticks. */
export function ingestTickSource(api: ApiClient, adminToken: string, userToken: string): TickSource {
  let timer: NodeJS.Timeout | undefined;
  let inFlight = new Set<Promise<void>>();
  let stats: TickStats = { accepted: 0, rejected: 0, skipped: 0, elapsedS: 0 };
  let quotes: Quote[] = [];
  let loadedFor = '';
  let started = 0;

  function send(ticks: IngestTick[]): void {
    if (inFlight.size >= MAX_IN_FLIGHT) {
      stats.skipped += ticks.length;
      return;
    }
    const p = api
      .call('/api/v1/admin/ticks', { json: { ticks }, token: adminToken, timeoutMs: 10_000 })
      .then((res) => {
        if (res.status >= 200 && res.status < 300) stats.accepted += ticks.length;
        else {
          stats.rejected += ticks.length;
          stats.lastError = `POST /api/v1/admin/ticks → ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`;
        }
      })
      .catch((err: Error) => {
        stats.rejected += ticks.length;
        stats.lastError = err.message;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  return {
    kind: 'POST /api/v1/admin/ticks',
    controlled: true,
    async start(codes, rate) {
      if (loadedFor !== codes.join(',')) {
        quotes = await loadQuotes(api, userToken, codes);
        loadedFor = codes.join(',');
      }
      stats = { accepted: 0, rejected: 0, skipped: 0, elapsedS: 0 };
      inFlight = new Set();
      started = performance.now();
      let owed = 0;
      let cursor = 0;
      timer = setInterval(() => {
        owed += (rate * INTERVAL_MS) / 1000;
        const n = Math.floor(owed);
        owed -= n;
        for (let left = n; left > 0; left -= MAX_PER_REQUEST) {
          const batch = Array.from({ length: Math.min(left, MAX_PER_REQUEST) }, () => nextTick(quotes[cursor++ % quotes.length]!));
          send(batch);
        }
      }, INTERVAL_MS);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await Promise.all([...inFlight]);
      if (started) stats.elapsedS = (performance.now() - started) / 1000;
      started = 0;
      return { ...stats };
    },
  };
}
