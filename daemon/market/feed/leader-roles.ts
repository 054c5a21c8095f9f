/**
 * What the lease holder runs (./leader-lease.ts decides who holds it): the simulator, stepped
 * every interval while the market trades, or a real source (mode `kis`). Each role starts
 * producing when the lease is won and stops when it is lost, before anyone else can start.
 */
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../infra/clock.js';
import type { MarketEvent } from '../../kernel/events.js';
import type { MarketClock } from '../market-clock.js';
import type { Handover } from './handover.js';
import type { QuoteStore } from './quote-store.js';
import { createSimulator, type Simulator } from './simulator.js';
import type { StockList } from './stock-list.js';
import type { FeedStock } from './types.js';

/**
 * Trades made between two deliveries of a step: each a price and an order book, so one slice is
 * one chunk of the tick path. A full market's step made at once held the daemon's thread for tens
 * of milliseconds every interval.
 */
const STEP_SLICE_TRADES = 125;

/** What the lease holder does. */
export interface LeaderRole {
  /** Start what runs whether or not this daemon leads (the simulator's step timer). */
  begin(): void;
  /** The lease was won: get ready and start producing. */
  lead(): Promise<void>;
  /** The lease was lost: stop producing. */
  resign(): Promise<void>;
  /** Producing now. */
  producing(): boolean;
  /** The feed stops: no more producing; resolves once a step or source under way finished. */
  stop(): Promise<void>;
}

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

/** What both roles need from the feed. */
interface RoleDeps {
  stocks: StockList;
  deliver(events: MarketEvent[]): Promise<void>;
  logger: Logger;
  /** This daemon holds the lease and the feed is not stopping. */
  holding(): boolean;
  /** Called when this daemon starts (true) or stops (false) producing. */
  onLeadership?(leader: boolean): void;
}

/** Collaborators and settings of the simulator role. */
export interface SimulatorRoleDeps extends RoleDeps {
  quotes: Pick<QuoteStore, 'getAll'>;
  handover: Handover;
  clock: Clock;
  marketClock: Pick<MarketClock, 'isTrading'>;
  /** The lease is held and was confirmed recently (a paused leader does not step). */
  leaseValid(): boolean;
  intervalMs: number;
  /** The simulator's share of the stocks per step (stepShare). */
  share: number;
  seed?: number;
  volatility?: number;
}

/** The simulator role, with the count of steps it took. */
export interface SimulatorRole extends LeaderRole {
  steps(): number;
}

/** Create the simulator role: the leader syncs a simulator from the live quotes, then steps it. */
export function createSimulatorRole(deps: SimulatorRoleDeps): SimulatorRole {
  const { stocks, logger } = deps;
  let sim: Simulator | undefined;
  let ready = false;
  let timer: NodeJS.Timeout | undefined;
  let stepping: Promise<void> | undefined;
  let lastStepError = '';
  let steps = 0;
  stocks.onReload((list) => sim?.setStocks(list));

  async function lead(): Promise<void> {
    try {
      await stocks.refresh();
      sim ??= createSimulator({ stocks: [...stocks.map().values()], seed: deps.seed ?? randomInt(2 ** 31), share: deps.share, volatility: deps.volatility });
      // Continue today's prices and totals from whoever produced them before (restart, old leader).
      sim.sync(await deps.quotes.getAll(), deps.clock.now());
      await deps.handover.clear();
      if (!deps.holding()) return;
      ready = true;
      deps.onLeadership?.(true);
    } catch (err) {
      logger.error({ err }, 'feed: could not prepare the simulator; retrying in 1 s');
      setTimeout(() => {
        if (deps.holding() && !ready) void lead();
      }, 1_000).unref();
    }
  }

  async function step(): Promise<void> {
    if (!ready || !sim || !deps.leaseValid() || !deps.marketClock.isTrading()) return;
    try {
      await stocks.refreshIfStale(stocks.map().size === 0);
      // Ticks ingested on any daemon since the last step: the simulator continues from them.
      const ingested = await deps.handover.take();
      if (ingested.length) sim.sync(ingested, deps.clock.now());
      for (const events of sim.slices(deps.clock.now(), STEP_SLICE_TRADES)) if (events.length) await deps.deliver(events);
      steps++;
      lastStepError = '';
    } catch (err) {
      const message = (err as Error).message;
      if (message !== lastStepError) logger.warn({ err: message }, 'feed step failed; retrying on the next interval');
      lastStepError = message;
    }
  }

  return {
    begin() {
      timer = setInterval(() => {
        stepping ??= step().finally(() => (stepping = undefined));
      }, deps.intervalMs);
      timer.unref();
    },
    lead,
    async resign() {
      if (!ready) return;
      ready = false;
      deps.onLeadership?.(false);
    },
    producing: () => ready,
    async stop() {
      clearInterval(timer);
      await stepping;
    },
    steps: () => steps,
  };
}

/** Collaborators of the real-source role. */
export interface SourceRoleDeps extends RoleDeps {
  /** Builds the source (absent: the role leads without producing). */
  build?(hooks: FeedSourceHooks): LeaderSource;
}

/** Create the real-source role: losing the lease stops the source before anyone else starts it. */
export function createSourceRole(deps: SourceRoleDeps): LeaderRole {
  const { stocks, logger } = deps;
  const source = deps.build?.({ deliver: deps.deliver, stocks: () => stocks.map() });
  let running = false;

  async function resign(): Promise<void> {
    if (!running) return;
    running = false;
    await source?.stop();
    deps.onLeadership?.(false);
  }

  return {
    begin() {},
    async lead() {
      await stocks.refresh().catch((err: Error) => logger.warn({ err: err.message }, 'feed: stock list not loaded; the source starts with what it has'));
      if (!deps.holding() || running) return;
      running = true;
      source?.start();
      deps.onLeadership?.(true);
    },
    resign,
    producing: () => running,
    stop: resign,
  };
}
