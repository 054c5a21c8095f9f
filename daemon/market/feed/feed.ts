/**
 * The price feed runner. Every tick — simulated, posted to
 * `POST /admin/ticks`, or read from the `ticks:in` stream — goes through one path
 * (./tick-path.ts): write the live quotes, run `onTick` (alert evaluation plugs in here),
 * publish on the market bus (which every daemon instance reads and serves).
 *
 * Modes: `simulator` — the lease holder (one daemon across instances, see ./leader-lease.ts)
 * steps the simulator every `intervalMs` while the market clock says open or closing
 * auction, and ticks are ingested as well; `ingest` — only external ticks; `off` — nothing
 * (ingest answers 503). Ticks ingested while a simulator runs are handed to the leader
 * (./handover.ts) so it continues from them instead of overwriting them.
 * `kis` — the lease holder runs the KIS Open API source (../feeds/kis) instead of the
 * simulator; its ticks take the same path, and ingest works beside it.
 *
 * This file composes the parts: the stock list, the tick path, the ingest (./tick-ingest.ts),
 * the lease and the role its holder plays (./leader-roles.ts), the stream reader.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock } from '../../infra/clock.js';
import { waitReady, type RedisFactory } from '../../infra/redis.js';
import { parseOrThrow } from '../../validation.js';
import type { MarketBus } from '../bus.js';
import type { MarketStatusEvent, PriceEvent } from '../../kernel/events.js';
import { kstDate, type MarketClock } from '../market-clock.js';
import { createHandover } from './handover.js';
import { tickBodySchema, type TickBody } from './ingest.js';
import { createLeaderLease, type LeaderLease } from './leader-lease.js';
import { createSimulatorRole, createSourceRole, type FeedSourceHooks, type LeaderRole, type LeaderSource, type SimulatorRole } from './leader-roles.js';
import type { QuoteStore } from './quote-store.js';
import { createStockList } from './stock-list.js';
import { createTickIngest } from './tick-ingest.js';
import { createTickPath } from './tick-path.js';
import { createTickStreamConsumer, type TickStreamConsumer } from './tick-stream.js';
import type { FeedStock } from './types.js';

export type { FeedSourceHooks, LeaderSource } from './leader-roles.js';

/** Where prices come from (config `feed`). */
export type FeedMode = 'simulator' | 'ingest' | 'kis' | 'off';

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

/**
 * The simulator's share per step: each stock trades `updatesPerStockPerSecond` times a
 * second on average whatever the step interval — 0.1 of the stocks per 100 ms step at 1/s,
 * every stock twice per 1 s step at 2/s (see SimulatorOptions.share).
 */
export function stepShare(intervalMs: number, updatesPerStockPerSecond: number): number {
  return (intervalMs / 1000) * updatesPerStockPerSecond;
}

/** Create the price feed (nothing runs until start()). */
export function createPriceFeed(options: PriceFeedOptions): PriceFeed {
  const { mode, redis, commands, logger } = options;
  const instanceId = options.instanceId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const stocks = createStockList(options.loadStocks);
  const path = createTickPath(options);
  const handover = createHandover(commands, redis.key('feed', 'ingested'));
  const ingest = createTickIngest({
    enabled: mode !== 'off', stocks, quotes: options.quotes, clock: options.clock, deliver: path.deliver,
    handover: mode === 'simulator' ? handover : undefined,
  });
  let lease: LeaderLease | undefined;
  let role: LeaderRole | undefined;
  let simulator: SimulatorRole | undefined;
  let stream: TickStreamConsumer | undefined;
  let started = false;
  let stopped = false;
  const leading = () => (role?.producing() ?? false) && (lease?.isValid() ?? false);

  function createRole(): LeaderRole {
    const common = { stocks, deliver: path.deliver, logger, onLeadership: options.onLeadership, holding: () => !stopped && (lease?.isLeader() ?? false) };
    if (mode === 'kis') return createSourceRole({ ...common, build: options.leaderSource });
    const share = stepShare(options.intervalMs, options.updatesPerStockPerSecond ?? 1);
    return (simulator = createSimulatorRole({
      ...common, quotes: options.quotes, handover, clock: options.clock, marketClock: options.marketClock, leaseValid: () => lease?.isValid() ?? false,
      intervalMs: options.intervalMs, share, seed: options.seed, volatility: options.volatility,
    }));
  }

  return {
    async start() {
      if (started || mode === 'off') return;
      started = true;
      // The command connection fails fast while connecting; give it a moment (never throws).
      await waitReady(commands, 2_000);
      await stocks.refresh().catch((err: Error) => logger.warn({ err: err.message }, 'feed: stock list not loaded yet'));
      if (options.consumeStream ?? true) {
        stream = createTickStreamConsumer({ redis, instanceId, logger, handle: async (raw) => void (await ingest.ingest(parseOrThrow(tickBodySchema, raw))) });
        stream.start();
      }
      if (mode !== 'kis' && mode !== 'simulator') return;
      const leader = (role = createRole());
      const onChange = (won: boolean) => void (won ? leader.lead() : leader.resign());
      lease = createLeaderLease({ redis: commands, key: redis.key('feed', 'leader'), instanceId, leaseMs: options.leaseMs, renewMs: options.renewMs, onChange, logger });
      lease.start();
      leader.begin();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // The role stops before the lease is released, so two daemons never feed at once.
      await role?.stop();
      await lease?.stop();
      await stream?.stop();
      await ingest.drain();
    },
    ingest: (body) => ingest.ingest(body),
    publishStatus: (events) => publishStatusOnce({ commands, redis, instanceId, bus: options.bus }, events),
    refreshStocks: () => stocks.refresh(),
    isLeader: leading,
    stats: () => ({
      mode, instance_id: instanceId, leader: leading(), stocks: stocks.map().size,
      steps: simulator?.steps() ?? 0, events_published: path.published(), ticks_ingested: ingest.ingested(),
    }),
  };
}

/** Publish market_status events once across instances: one key per market, day and status; every daemon's clock fires, the first claim publishes. */
async function publishStatusOnce(
  deps: { commands: Redis; redis: RedisFactory; instanceId: string; bus: Pick<MarketBus, 'publishMany'> },
  events: MarketStatusEvent[],
): Promise<number> {
  const claimed: MarketStatusEvent[] = [];
  for (const e of events) {
    const ok = await deps.commands.set(deps.redis.key('feed', 'status', e.market, kstDate(e.ts), e.status), deps.instanceId, 'PX', 2 * 86_400_000, 'NX');
    if (ok === 'OK') claimed.push(e);
  }
  if (claimed.length) await deps.bus.publishMany(claimed);
  return claimed.length;
}
