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
 *
 * The parts: ./sweep.ts (the REST sweep), ./quote-path.ts (rows and frames into feed events),
 * ./heartbeat.ts (freshness and the status record); this file runs them and the socket.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { MarketEvent, MarketStatus, MarketStatusEvent, PriceEvent } from '../../../kernel/events.js';
import type { TradingSession } from '../../market-clock.js';
import type { FeedStock } from '../../feed/types.js';
import { newFeedState } from './feed-state.js';
import { createKisHeartbeat } from './heartbeat.js';
import type { InterestBoard } from './interest.js';
import { KIS, parseBookRecord, parseTradeRecords, type KisRejectReason } from './protocol.js';
import { createKisQuotePath } from './quote-path.js';
import type { KisRest } from './rest-client.js';
import { createKisSocket, type KisSocket, type KisSocketOptions, type Registration } from './socket.js';
import { createKisSweep } from './sweep.js';
import type { KisCredentials } from './token-cache.js';
import type { KisFeedStatus } from './status-record.js';

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

const INTEREST_EVERY_MS = 3_000;

/** An unreferenced timer running `work` every `ms`. */
function every(ms: number, work: () => void): NodeJS.Timeout {
  const timer = setInterval(work, ms);
  timer.unref();
  return timer;
}

/** Create the source (nothing runs until start()). */
export function createKisSource(options: KisSourceOptions): KisSource {
  const { logger, counters, now } = options;
  const state = newFeedState();
  let running = false;
  let socket: KisSocket | undefined;
  let sweeping: Promise<void> | undefined;
  let timers: NodeJS.Timeout[] = [];
  let startedAt = 0;
  let registrationsWanted = 0;
  const quotes = createKisQuotePath({ ...options, rejected: (reason) => counters.rejected(reason) });
  const sweep = createKisSweep({ ...options, session: () => options.marketClock.session(), quotes, state });
  const heartbeat = createKisHeartbeat({
    ...options, state, socket: () => socket, registrationsWanted: () => registrationsWanted, startedAt: () => startedAt, takeCalls: () => sweep.takeCalls(),
  });

  function onData(trId: string, count: number, body: string, encrypted: boolean): void {
    state.last_frame_at = now();
    if (encrypted) return counters.rejected('undecryptable');
    const session = options.marketClock.session() ?? 'regular';
    if (trId === KIS.trade) {
      void quotes.apply(parseTradeRecords(body, count), 'tick', session).then(() => (state.last_success_at = now())).catch((err: Error) => logger.warn({ err: err.message }, 'KIS ticks not applied'));
      return;
    }
    if (trId === KIS.book) {
      const book = parseBookRecord(body, count);
      if (typeof book === 'string') return counters.rejected(book);
      void quotes.deliverBook(book).catch((err: Error) => logger.warn({ err: err.message }, 'KIS order book not applied'));
      return;
    }
    counters.rejected('bad_layout');
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

  return {
    start() {
      if (running) return;
      running = true;
      startedAt = now();
      heartbeat.reset();
      socket = createKisSocket({
        url: options.wsUrl, approvalKey: () => options.credentials.approvalKey(), dropApprovalKey: (k) => options.credentials.dropApprovalKey(k),
        onData, onBadFrame: () => counters.rejected('bad_layout'), logger, ...options.socket,
      });
      if (options.maxRegistrations > 0) socket.start();
      sweeping = sweep.run();
      const warn = (failure: string) => (err: Error) => logger.warn({ err: err.message }, failure);
      timers.push(every(1_000, () => void heartbeat.beat().catch(warn('KIS status not written'))));
      const choose = () => void chooseRegistrations().catch(warn('KIS registrations not chosen'));
      timers.push(every(INTEREST_EVERY_MS, choose));
      choose();
    },
    async stop() {
      if (!running) return;
      running = false;
      for (const timer of timers) clearInterval(timer);
      timers = [];
      sweep.stop();
      await socket?.stop();
      await sweeping;
      await quotes.drain();
    },
    status: () => heartbeat.snapshot(options.marketClock.session()),
  };
}
