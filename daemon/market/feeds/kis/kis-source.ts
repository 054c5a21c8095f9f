/**
 * The KIS price source, run by the feed leader only (the existing lease): the whole market by
 * REST, tick by tick where it matters over the one WebSocket session, and an explicit account
 * of freshness.
 *
 * - Sweep: every listed code, 30 per multi-price call, each call in its slot under the
 *   configured rate; rows that changed become price events (`source: "sweep"`). EGW00201 waits
 *   and retries the same call; an expired token (EGW00123) is dropped and the call retried
 *   with a new one (the shared cache never asks more than once a minute).
 * - Socket: registrations for the most-watched and alert codes up to the limit, re-chosen
 *   every few seconds; trade frames become price events (`source: "tick"`), book frames
 *   order-book events.
 * - Freshness, evaluated every second during a session: stale when no sweep succeeded within
 *   twice the expected sweep time, or when the socket holds registrations but no message of
 *   any kind came for `silenceMs` (the socket is then recycled). A change is published as a
 *   `market_status` message with `prices: "stale" | "fresh"`, and the state is written to
 *   Redis for every daemon's /health and source status.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { MarketEvent, MarketStatus, MarketStatusEvent, OrderBookEvent, PriceEvent } from '../../../kernel/events.js';
import { MARKETS } from '../../../kernel/records.js';
import { priceLimits } from '../../../kernel/tick-size.js';
import { kstDate, type TradingSession } from '../../market-clock.js';
import type { FeedStock } from '../../feed/types.js';
import type { InterestBoard } from './interest.js';
import { createPacer, type Pacer } from './pacer.js';
import { KIS, parseBookRecord, parseMultiPriceRow, parseTradeRecords, type KisRejectReason } from './protocol.js';
import { KisApiError, type KisRest } from './rest-client.js';
import { createKisSocket, type KisSocket, type KisSocketOptions, type Registration } from './socket.js';
import type { KisCredentials } from './token-cache.js';
import { toPriceEvent } from './to-event.js';
import { statusKey, type KisFeedStatus } from './status-record.js';

/** Counters the source reports to /metrics. */
export interface KisCounters {
  calls(kind: 'multi_price', outcome: 'ok' | 'rate_limited' | 'token_expired' | 'error'): void;
  rejected(reason: KisRejectReason): void;
  sweep(ms: number, changes: number): void;
}

/** Collaborators and settings of the KIS source. */
export interface KisSourceOptions {
  rest: Pick<KisRest, 'multiPrice'>;
  credentials: KisCredentials;
  wsUrl: string;
  /** The listed stocks (the feed's current list). */
  stocks(): Map<string, FeedStock>;
  current(codes: readonly string[]): Promise<Map<string, PriceEvent>>;
  /** Quotes, alerts, bus (the feed's one path for every tick). */
  deliver(events: MarketEvent[]): Promise<void>;
  /** Publish freshness messages on the bus. */
  publish(events: MarketStatusEvent[]): Promise<unknown>;
  marketClock: { session(): TradingSession | null; status(): MarketStatus };
  interest: Pick<InterestBoard, 'ranked'>;
  redis: Redis;
  key(...parts: string[]): string;
  instanceId: string;
  callsPerSecond: number;
  maxRegistrations: number;
  silenceMs: number;
  sweepPauseMs: number;
  counters: KisCounters;
  logger: Logger;
  now(): number;
  /** Socket overrides (reconnect timing in tests). */
  socket?: Partial<Pick<KisSocketOptions, 'reconnectBaseMs' | 'reconnectMaxMs' | 'random'>>;
}

/** A running source. */
export interface KisSource {
  start(): void;
  /** Stop the sweep, close the socket, publish the last status; idempotent. */
  stop(): Promise<void>;
  status(): KisFeedStatus;
}

// Retries of one multi-price call after EGW00201 / an expired token before the sweep moves on.
const MAX_CALL_RETRIES = 3;
const RATE_LIMIT_BACKOFF_MS = 1_000;
const INTEREST_EVERY_MS = 3_000;
const CALLS_IN_FLIGHT = 4;

/** Create the source (nothing runs until start()). */
export function createKisSource(options: KisSourceOptions): KisSource {
  const { logger, counters, now } = options;
  let pacer: Pacer = createPacer(options.callsPerSecond);
  let running = false;
  let socket: KisSocket | undefined;
  let sweeping: Promise<void> | undefined;
  let beat: NodeJS.Timeout | undefined;
  let interestTimer: NodeJS.Timeout | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  let startedAt = 0;
  let callsUnflushed = 0;
  let registrationsWanted = 0;
  // The first heartbeat of a leader always announces the freshness: a takeover after a silent death releases held screens.
  let announced = false;
  // When the socket was found silent (Date.now() ms): it stays silent until a message arrives after that, whatever reconnects in between.
  let silentSince: number | null = null;
  let lastRecycle = 0;
  const state: Omit<KisFeedStatus, 'leader' | 'at' | 'session' | 'socket'> = {
    stale: false, stale_reason: null, stale_since: null, last_sweep_ok_at: null, last_sweep: null,
    last_frame_at: null, last_error: null, last_success_at: null,
  };

  /** One path at a time: each batch reads the live quotes it builds on after the previous batch wrote its own. */
  function serial(work: () => Promise<void>): Promise<void> {
    const run = chain.then(work);
    chain = run.catch(() => undefined);
    return run;
  }

  function fail(err: unknown): void {
    if (!(err instanceof KisApiError)) {
      state.last_error = { at: now(), code: 'STORE_UNAVAILABLE', message: `quotes not stored: ${(err as Error).message}` };
      return;
    }
    state.last_error = { at: now(), code: err.code ?? (err.status ? `HTTP_${err.status}` : 'UNREACHABLE'), message: err.message };
  }

  /** Price events of quotes against the live quotes; rejects counted. */
  async function apply(quotes: ReturnType<typeof parseMultiPriceRow>[], source: 'tick' | 'sweep', session: TradingSession): Promise<number> {
    let changes = 0;
    await serial(async () => {
      const good = quotes.filter((q): q is Exclude<typeof q, string> => typeof q !== 'string');
      for (const q of quotes) if (typeof q === 'string') counters.rejected(q);
      if (!good.length) return;
      const stocks = options.stocks();
      const current = await options.current([...new Set(good.map((q) => q.code))]);
      const events: PriceEvent[] = [];
      const t = now();
      for (const q of good) {
        const e = toPriceEvent(q, { stock: stocks.get(q.code) ?? null, prev: current.get(q.code) ?? null, now: t, source, session });
        if (typeof e === 'string') counters.rejected(e);
        else if (e) {
          events.push(e);
          current.set(e.code, e);
        }
      }
      changes = events.length;
      if (events.length) await options.deliver(events);
    });
    return changes;
  }

  /** One multi-price call with its retries; the rows, or null when it failed for good. */
  async function call(codes: string[]): Promise<unknown[] | null> {
    for (let attempt = 0; attempt <= MAX_CALL_RETRIES; attempt++) {
      if (!(await pacer.wait())) return null;
      let token: string;
      try {
        token = await options.credentials.token();
      } catch (err) {
        fail(err);
        return null;
      }
      callsUnflushed++;
      try {
        const rows = await options.rest.multiPrice(token, codes);
        counters.calls('multi_price', 'ok');
        return rows;
      } catch (err) {
        fail(err);
        if (err instanceof KisApiError && err.rateLimited) {
          counters.calls('multi_price', 'rate_limited');
          pacer.penalize(RATE_LIMIT_BACKOFF_MS);
          continue;
        }
        if (err instanceof KisApiError && err.tokenExpired) {
          counters.calls('multi_price', 'token_expired');
          await options.credentials.dropToken(token);
          continue;
        }
        counters.calls('multi_price', 'error');
        return null;
      }
    }
    return null;
  }

  async function sweepOnce(session: TradingSession): Promise<void> {
    const codes = [...options.stocks().keys()].sort();
    if (!codes.length) {
      // Nothing listed yet (no market data loaded): nothing can be stale either.
      state.last_sweep_ok_at = now();
      await pacer.sleep(1_000);
      return;
    }
    const t0 = performance.now();
    let changes = 0;
    let failed = 0;
    let calls = 0;
    const chunks: string[][] = [];
    for (let i = 0; i < codes.length; i += KIS.multiPriceMax) chunks.push(codes.slice(i, i + KIS.multiPriceMax));
    let next = 0;
    // A few calls in flight, each in its paced slot: a slow answer does not hold the next slot back.
    const worker = async () => {
      while (running && next < chunks.length) {
        const chunk = chunks[next++]!;
        calls++;
        const rows = await call(chunk);
        if (!rows) {
          failed++;
          continue;
        }
        const asked = new Set(chunk);
        // A row for a code not asked for is not trusted: it could price the wrong stock.
        const quotes = rows.map((r) => {
          const q = parseMultiPriceRow(r);
          return typeof q !== 'string' && !asked.has(q.code) ? ('unknown_code' as const) : q;
        });
        try {
          // Read the total after the await: workers run side by side.
          const changed = await apply(quotes, 'sweep', session);
          changes += changed;
        } catch (err) {
          // The store did not take them (Redis slow or down): this call's rows count as failed, the sweep goes on.
          fail(err);
          failed++;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CALLS_IN_FLIGHT, chunks.length) }, worker));
    if (!running) return;
    const ms = Math.round(performance.now() - t0);
    counters.sweep(ms, changes);
    state.last_sweep = { at: now(), calls, failed_calls: failed, ms, changes, codes: codes.length };
    if (failed === 0) {
      state.last_sweep_ok_at = now();
      state.last_success_at = now();
    }
    if (options.sweepPauseMs > 0) await pacer.sleep(options.sweepPauseMs);
  }

  async function sweepLoop(): Promise<void> {
    while (running) {
      const session = options.marketClock.session();
      if (!session) {
        await pacer.sleep(1_000);
        continue;
      }
      try {
        await sweepOnce(session);
      } catch (err) {
        fail(err);
        logger.warn({ err: (err as Error).message }, 'KIS sweep failed; the next one starts after a pause');
        await pacer.sleep(1_000);
      }
    }
  }

  function onData(trId: string, count: number, body: string, encrypted: boolean): void {
    state.last_frame_at = now();
    if (encrypted) return counters.rejected('undecryptable');
    const session = options.marketClock.session() ?? 'regular';
    if (trId === KIS.trade) {
      void apply(parseTradeRecords(body, count), 'tick', session).then(() => (state.last_success_at = now())).catch((err: Error) => logger.warn({ err: err.message }, 'KIS ticks not applied'));
      return;
    }
    if (trId === KIS.book) {
      const book = parseBookRecord(body, count);
      if (typeof book === 'string') return counters.rejected(book);
      void deliverBook(book).catch((err: Error) => logger.warn({ err: err.message }, 'KIS order book not applied'));
      return;
    }
    counters.rejected('bad_layout');
  }

  async function deliverBook(book: Exclude<ReturnType<typeof parseBookRecord>, string>): Promise<void> {
    const stock = options.stocks().get(book.code);
    if (!stock) return counters.rejected('unknown_code');
    await serial(async () => {
      const prev = (await options.current([book.code])).get(book.code);
      const base = prev && kstDate(prev.ts) === kstDate(now()) ? prev.prev_close : stock.prev_close;
      const limits = priceLimits(base);
      const levels = [...book.bids, ...book.asks];
      if (levels.some((l) => l.price > limits.upper || l.price < limits.lower)) return counters.rejected('outside_limit');
      const ordered = book.bids.every((l, i) => i === 0 || l.price < book.bids[i - 1]!.price) && book.asks.every((l, i) => i === 0 || l.price > book.asks[i - 1]!.price);
      const crossed = book.bids[0] && book.asks[0] && book.bids[0].price >= book.asks[0].price;
      if (!ordered || crossed) return counters.rejected('bad_layout');
      const event: OrderBookEvent = { type: 'orderbook', code: stock.code, market: stock.market, sector: stock.sector, bids: book.bids, asks: book.asks, ts: now() };
      await options.deliver([event]);
    });
  }

  /** Trades for the top codes; order books for the most-watched with what is left of the limit. */
  async function chooseRegistrations(): Promise<void> {
    if (!socket || !running) return;
    const max = options.maxRegistrations;
    const listed = options.stocks();
    const ranked = (await options.interest.ranked()).filter((r) => listed.has(r.code));
    const trades: Registration[] = ranked.slice(0, max).map((r) => ({ trId: KIS.trade, code: r.code }));
    const books: Registration[] = ranked.filter((r) => r.watchers > 0).slice(0, Math.max(0, max - trades.length)).map((r) => ({ trId: KIS.book, code: r.code }));
    registrationsWanted = trades.length + books.length;
    socket.want([...trades, ...books]);
  }

  function expectedSweepMs(): number {
    const calls = Math.ceil(options.stocks().size / KIS.multiPriceMax);
    return Math.max(2_000, (calls * 1000) / options.callsPerSecond + options.sweepPauseMs);
  }

  /** Staleness now: a reason, or null when fresh (or when no session trades). */
  function staleReason(session: TradingSession | null): string | null {
    if (!session) return null;
    const t = now();
    const since = state.last_sweep_ok_at ?? startedAt;
    const limit = 2 * expectedSweepMs();
    if (t - since > limit) {
      return state.last_error ? `no successful sweep for ${Math.round((t - since) / 1000)} s (last error: ${state.last_error.code})` : `no successful sweep for ${Math.round((t - since) / 1000)} s`;
    }
    const s = socket?.stats();
    const wall = Date.now();
    if (silentSince !== null && s && s.last_message_at > silentSince) silentSince = null;
    if (silentSince === null && s?.connected && registrationsWanted > 0 && wall - Math.max(s.last_message_at, s.connected_at) > options.silenceMs) silentSince = wall;
    if (silentSince !== null && registrationsWanted > 0) {
      const quiet = wall - Math.max(s?.last_message_at ?? 0, silentSince - options.silenceMs);
      return `the real-time socket is connected but silent for ${Math.round(quiet / 1000)} s`;
    }
    return null;
  }

  function snapshot(session: TradingSession | null): KisFeedStatus {
    const s = socket?.stats();
    return {
      ...state, leader: options.instanceId, at: now(), session,
      socket: s ? { connected: s.connected, registered: s.registered, wanted: s.wanted, reconnects: s.reconnects, pingpongs: s.pingpongs, refused_over_limit: s.refused_over_limit } : null,
    };
  }

  async function heartbeat(): Promise<void> {
    const session = options.marketClock.session();
    const reason = staleReason(session);
    const stale = reason !== null;
    // A silent session is dropped and reconnected (after the socket's backoff), at most every few silence periods.
    if (silentSince !== null && Date.now() - lastRecycle > 4 * options.silenceMs) {
      lastRecycle = Date.now();
      socket?.recycle(reason ?? 'silent');
    }
    if (stale !== state.stale || !announced) {
      announced = true;
      state.stale = stale;
      state.stale_reason = reason;
      state.stale_since = stale ? now() : null;
      if (stale !== state.stale || stale) logger.warn({ stale, reason }, stale ? 'KIS prices are stale' : 'KIS prices are fresh again');
      const status = options.marketClock.status();
      await options.publish(MARKETS.map((market) => ({ type: 'market_status', market, status, ts: now(), prices: stale ? 'stale' : 'fresh', ...(reason ? { stale_reason: reason } : {}) })));
    } else if (stale) state.stale_reason = reason;
    const calls = callsUnflushed;
    callsUnflushed = 0;
    const day = options.key('kis', 'calls', kstDate(now()));
    await options.redis.multi()
      .set(options.key(...statusKey), JSON.stringify(snapshot(session)), 'PX', 10_000)
      .incrby(day, calls).pexpire(day, 2 * 86_400_000)
      .exec();
  }

  return {
    start() {
      if (running) return;
      running = true;
      startedAt = now();
      announced = false;
      pacer = createPacer(options.callsPerSecond);
      socket = createKisSocket({
        url: options.wsUrl, approvalKey: () => options.credentials.approvalKey(), dropApprovalKey: (k) => options.credentials.dropApprovalKey(k),
        onData, onBadFrame: () => counters.rejected('bad_layout'), logger, ...options.socket,
      });
      if (options.maxRegistrations > 0) socket.start();
      sweeping = sweepLoop();
      beat = setInterval(() => void heartbeat().catch((err: Error) => logger.warn({ err: err.message }, 'KIS status not written')), 1_000);
      beat.unref();
      const choose = () => void chooseRegistrations().catch((err: Error) => logger.warn({ err: err.message }, 'KIS registrations not chosen'));
      interestTimer = setInterval(choose, INTEREST_EVERY_MS);
      interestTimer.unref();
      choose();
    },
    async stop() {
      if (!running) return;
      running = false;
      clearInterval(beat);
      clearInterval(interestTimer);
      pacer.stop();
      await socket?.stop();
      await sweeping;
      await chain;
    },
    status: () => snapshot(options.marketClock.session()),
  };
}
