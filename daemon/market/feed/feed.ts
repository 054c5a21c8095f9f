/**
 * The price feed runner. Every tick — simulated, posted to
 * `POST /admin/ticks`, or read from the `ticks:in` stream — goes through one path:
 * write the live quotes, run `onTick` (alert evaluation plugs in here), publish on the
 * market bus (which every daemon instance reads and serves).
 *
 * Modes: `simulator` — the lease holder (one daemon across instances, see ./leader-lease.ts)
 * steps the simulator every `intervalMs` while the market clock says open or closing
 * auction, and ticks are ingested as well; `ingest` — only external ticks; `off` — nothing
 * (ingest answers 503). Ticks ingested while a simulator runs are handed to the leader
 * (`<prefix>feed:ingested`) so it continues from them instead of overwriting them.
 * `kis` — the lease holder runs the KIS Open API source (../feeds/kis) instead of the
 * simulator; its ticks take the same path, and ingest works beside it.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AppError, isAppError } from '../../errors.js';
import type { Clock } from '../../infra/clock.js';
import { waitReady, type RedisFactory } from '../../infra/redis.js';
import { parseOrThrow } from '../../validation.js';
import type { MarketBus } from '../bus.js';
import type { MarketEvent, MarketStatusEvent, PriceEvent } from '../../kernel/events.js';
import { kstDate, type MarketClock } from '../market-clock.js';
import { applyTicks, tickBodySchema, ticksOf, type TickBody } from './ingest.js';
import { createLeaderLease, type LeaderLease } from './leader-lease.js';
import type { QuoteStore } from './quote-store.js';
import { createSimulator, type Simulator } from './simulator.js';
import { createTickStreamConsumer, type TickStreamConsumer } from './tick-stream.js';
import type { FeedStock } from './types.js';

/** Where prices come from (config `feed`). */
export type FeedMode = 'simulator' | 'ingest' | 'kis' | 'off';

/** What a real source the leader runs gets from the feed. */
export interface FeedSourceHooks {
  /** Quotes, alerts, bus: the one path of every tick. */
  deliver(events: MarketEvent[]): Promise<void>;
  /** The listed stocks. */
  stocks(): Map<string, FeedStock>;
}

/** A real source the lease holder runs (mode `kis`). */
export interface LeaderSource {
  start(): void;
  stop(): Promise<void>;
}

/** Collaborators and settings of the feed. */
export interface PriceFeedOptions {
  mode: FeedMode;
  bus: Pick<MarketBus, 'publishMany'>;
  quotes: QuoteStore;
  redis: RedisFactory;
  /** A command connection (lease, hand-over, status de-duplication). */
  commands: Redis;
  clock: Clock;
  marketClock: Pick<MarketClock, 'isTrading'>;
  /** Simulator step period (config feed_interval_ms). */
  intervalMs: number;
  loadStocks(): Promise<FeedStock[]>;
  /** Runs on every batch of price events before they are published (alerts). Failures are logged. */
  onTick?(events: PriceEvent[]): Promise<void>;
  logger: Logger;
  /** How often each stock trades in the simulator, per second on average (config feed_updates_per_stock_per_s; default 1). */
  updatesPerStockPerSecond?: number;
  volatility?: number;
  seed?: number;
  instanceId?: string;
  leaseMs?: number;
  renewMs?: number;
  /** Read the `ticks:in` stream (default true unless mode is off). */
  consumeStream?: boolean;
  /** Called when this instance starts (true, simulator synced) or stops (false) producing. */
  onLeadership?(leader: boolean): void;
  /** Mode `kis`: builds the source the lease holder runs. */
  leaderSource?(hooks: FeedSourceHooks): LeaderSource;
}

/** Counters for monitoring. */
export interface FeedStats {
  mode: FeedMode;
  instance_id: string;
  leader: boolean;
  stocks: number;
  steps: number;
  events_published: number;
  ticks_ingested: number;
}

/** A running feed. */
export interface PriceFeed {
  start(): Promise<void>;
  /** Stop producing, release the lease, stop the stream reader; idempotent. */
  stop(): Promise<void>;
  /**
   * Apply external ticks (POST /admin/ticks, the stream).
   * @throws AppError INVALID_REQUEST per tick field; SERVICE_UNAVAILABLE when the feed is off or Redis is down
   */
  ingest(body: TickBody): Promise<{ accepted: number }>;
  /** Publish market_status events once across instances (the first daemon to claim a transition wins). */
  publishStatus(events: MarketStatusEvent[]): Promise<number>;
  /** Reload the stock list (new data loaded). */
  refreshStocks(): Promise<void>;
  isLeader(): boolean;
  stats(): FeedStats;
}

const isPrice = (e: MarketEvent): e is PriceEvent => e.type === 'price';

/**
 * The simulator's share per step: each stock trades `updatesPerStockPerSecond` times a
 * second on average whatever the step interval — 0.1 of the stocks per 100 ms step at 1/s,
 * every stock twice per 1 s step at 2/s (see SimulatorOptions.share).
 */
export function stepShare(intervalMs: number, updatesPerStockPerSecond: number): number {
  return (intervalMs / 1000) * updatesPerStockPerSecond;
}
const STOCK_RELOAD_MIN_MS = 5_000;
/** Events of one step stored, evaluated and published together (each code's events stay in order: chunks go one after another). */
const DELIVER_CHUNK = 250;

/** Create the price feed (nothing runs until start()). */
export function createPriceFeed(options: PriceFeedOptions): PriceFeed {
  const { mode, bus, quotes, redis, commands, clock, logger } = options;
  const instanceId = options.instanceId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const handoverKey = redis.key('feed', 'ingested');
  const share = stepShare(options.intervalMs, options.updatesPerStockPerSecond ?? 1);
  let stocks = new Map<string, FeedStock>();
  let lastReload = -Infinity;
  let sim: Simulator | undefined;
  let simReady = false;
  let lease: LeaderLease | undefined;
  let stream: TickStreamConsumer | undefined;
  let stepTimer: NodeJS.Timeout | undefined;
  let stepping: Promise<void> | undefined;
  let ingestChain: Promise<unknown> = Promise.resolve();
  let started = false;
  let stopped = false;
  let lastStepError = '';
  let source: LeaderSource | undefined;
  let sourceRunning = false;
  const counters = { steps: 0, events_published: 0, ticks_ingested: 0 };

  async function refreshStocks(): Promise<void> {
    lastReload = performance.now();
    const list = await options.loadStocks();
    stocks = new Map(list.map((s) => [s.code, s]));
    sim?.setStocks(list);
  }

  /**
   * Quotes, then alerts, then the bus, DELIVER_CHUNK events at a time: a full market's step is
   * thousands of events, and each chunk's Redis round trips give the event loop a turn, so the
   * requests arriving meanwhile wait for one chunk's encoding, not the whole step's.
   */
  async function deliver(events: MarketEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += DELIVER_CHUNK) await deliverChunk(events.length <= DELIVER_CHUNK ? events : events.slice(i, i + DELIVER_CHUNK));
  }

  async function deliverChunk(events: MarketEvent[]): Promise<void> {
    await quotes.put(events);
    const prices = events.filter(isPrice);
    if (options.onTick && prices.length) {
      try {
        await options.onTick(prices);
      } catch (err) {
        logger.error({ err }, 'onTick (alert evaluation) failed; the ticks are still published');
      }
    }
    await bus.publishMany(events);
    counters.events_published += events.length;
  }

  async function becomeLeader(): Promise<void> {
    try {
      await refreshStocks();
      sim ??= createSimulator({ stocks: [...stocks.values()], seed: options.seed ?? randomInt(2 ** 31), share, volatility: options.volatility });
      // Continue today's prices and totals from whoever produced them before (restart, old leader).
      sim.sync(await quotes.getAll(), clock.now());
      await commands.del(handoverKey);
      if (!lease?.isLeader() || stopped) return;
      simReady = true;
      options.onLeadership?.(true);
    } catch (err) {
      logger.error({ err }, 'feed: could not prepare the simulator; retrying in 1 s');
      setTimeout(() => {
        if (!stopped && lease?.isLeader() && !simReady) void becomeLeader();
      }, 1_000).unref();
    }
  }

  /** Mode kis: the lease holder runs the real source; losing the lease stops it before anyone else starts. */
  async function becomeSourceLeader(): Promise<void> {
    await refreshStocks().catch((err: Error) => logger.warn({ err: err.message }, 'feed: stock list not loaded; the source starts with what it has'));
    if (!lease?.isLeader() || stopped || sourceRunning) return;
    sourceRunning = true;
    source?.start();
    options.onLeadership?.(true);
  }

  function onLeaseChange(leader: boolean): void {
    if (mode === 'kis') {
      if (leader) void becomeSourceLeader();
      else if (sourceRunning) {
        sourceRunning = false;
        void source?.stop();
        options.onLeadership?.(false);
      }
      return;
    }
    if (leader) void becomeLeader();
    else if (simReady) {
      simReady = false;
      options.onLeadership?.(false);
    }
  }

  /** Ticks ingested on any daemon since the last step: the simulator continues from them. */
  async function adoptIngested(): Promise<void> {
    const res = await commands.multi().hgetall(handoverKey).del(handoverKey).exec();
    const raw = (res?.[0]?.[1] ?? {}) as Record<string, string>;
    const events = Object.values(raw).map((v) => JSON.parse(v) as PriceEvent);
    if (events.length) sim!.sync(events, clock.now());
  }

  async function step(): Promise<void> {
    if (!simReady || !sim || !lease?.isValid() || !options.marketClock.isTrading()) return;
    try {
      if (stocks.size === 0 && performance.now() - lastReload > STOCK_RELOAD_MIN_MS) await refreshStocks();
      await adoptIngested();
      const events = sim.step(clock.now());
      if (events.length) await deliver(events);
      counters.steps++;
      lastStepError = '';
    } catch (err) {
      const message = (err as Error).message;
      if (message !== lastStepError) logger.warn({ err: message }, 'feed step failed; retrying on the next interval');
      lastStepError = message;
    }
  }

  async function ingestNow(body: TickBody): Promise<{ accepted: number }> {
    const { ticks, batch } = ticksOf(body);
    const codes = [...new Set(ticks.map((t) => t.code))];
    try {
      if (codes.some((c) => !stocks.has(c)) && performance.now() - lastReload > STOCK_RELOAD_MIN_MS) await refreshStocks();
      const current = await quotes.getQuotes(codes);
      const events = applyTicks(ticks, { lookup: (c) => stocks.get(c) ?? null, current: (c) => current.get(c) ?? null, now: clock.now() }, batch);
      await deliver(events);
      if (mode === 'simulator') await handOver(events);
    } catch (err) {
      if (isAppError(err)) throw err;
      throw new AppError('SERVICE_UNAVAILABLE', 'The market data store is unavailable; ticks were not applied', { reason: (err as Error).message });
    }
    counters.ticks_ingested += ticks.length;
    return { accepted: ticks.length };
  }

  async function handOver(events: MarketEvent[]): Promise<void> {
    const latest = new Map<string, string>();
    for (const e of events) if (isPrice(e)) latest.set(e.code, JSON.stringify(e));
    await commands.multi().hset(handoverKey, latest).pexpire(handoverKey, 60_000).exec();
  }

  /** Ingests run one at a time per daemon, so two requests never validate against the same stale quote. */
  function ingestSerial(body: TickBody): Promise<{ accepted: number }> {
    if (mode === 'off') return Promise.reject(new AppError('SERVICE_UNAVAILABLE', 'The price feed is off; start the daemon with --feed ingest or --feed simulator', { feed: 'off' }));
    const run = ingestChain.then(() => ingestNow(body));
    ingestChain = run.catch(() => undefined);
    return run;
  }

  return {
    async start() {
      if (started || mode === 'off') return;
      started = true;
      // The command connection fails fast while connecting; give it a moment (never throws).
      await waitReady(commands, 2_000);
      await refreshStocks().catch((err: Error) => logger.warn({ err: err.message }, 'feed: stock list not loaded yet'));
      if (options.consumeStream ?? true) {
        stream = createTickStreamConsumer({ redis, instanceId, logger, handle: async (raw) => void (await ingestSerial(parseOrThrow(tickBodySchema, raw))) });
        stream.start();
      }
      if (mode === 'kis') {
        source = options.leaderSource?.({ deliver, stocks: () => stocks });
        lease = createLeaderLease({ redis: commands, key: redis.key('feed', 'leader'), instanceId, leaseMs: options.leaseMs, renewMs: options.renewMs, onChange: onLeaseChange, logger });
        lease.start();
        return;
      }
      if (mode !== 'simulator') return;
      lease = createLeaderLease({ redis: commands, key: redis.key('feed', 'leader'), instanceId, leaseMs: options.leaseMs, renewMs: options.renewMs, onChange: onLeaseChange, logger });
      lease.start();
      stepTimer = setInterval(() => {
        stepping ??= step().finally(() => (stepping = undefined));
      }, options.intervalMs);
      stepTimer.unref();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(stepTimer);
      await stepping;
      // The source stops before the lease is released, so two daemons never feed at once.
      if (sourceRunning) {
        sourceRunning = false;
        await source?.stop();
        options.onLeadership?.(false);
      }
      await lease?.stop();
      await stream?.stop();
      await ingestChain.catch(() => undefined);
    },
    ingest: (body) => ingestSerial(body),
    async publishStatus(events) {
      const claimed: MarketStatusEvent[] = [];
      for (const e of events) {
        // One key per market, day and status: every daemon's clock fires, one publishes.
        const ok = await commands.set(redis.key('feed', 'status', e.market, kstDate(e.ts), e.status), instanceId, 'PX', 2 * 86_400_000, 'NX');
        if (ok === 'OK') claimed.push(e);
      }
      if (claimed.length) await bus.publishMany(claimed);
      return claimed.length;
    },
    refreshStocks,
    isLeader: () => (simReady || sourceRunning) && (lease?.isValid() ?? false),
    stats: () => ({ mode, instance_id: instanceId, leader: (simReady || sourceRunning) && (lease?.isValid() ?? false), stocks: stocks.size, ...counters }),
  };
}
