/**
 * Real-time wiring (the role `realtime`): the market bus, live quotes, the market clock, the price feed, the alert
 * evaluator that watches its ticks, the live screens and the screen alerts that watch them,
 * and the WebSocket gateway that fans them out; the tick pipeline (tick-pipeline.ts) takes each
 * tick through them in its written order. Parts, in the order they start: `bus` (built early:
 * it closes after everything that publishes on it), then `price alerts`, `live screens` (the
 * pipeline reads the bus), `screen alerts`, `feed`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { alertEventOf, createAlertEvaluator } from '../alerts/evaluator.js';
import { createAverageVolumes } from '../alerts/average-volume.js';
import { createTimeSlicer } from '../screening/engine/time-slicer.js';
import { createScreenAlertEvaluator, type ScreenAlertEvaluator } from '../alerts/screen-alert-evaluator.js';
import { createScreenAlertCauses } from '../alerts/screen-alert-rules.js';
import type { PartList } from '../infra/parts.js';
import { createMarketBus, type StreamMarketBus } from '../market/bus.js';
import { createPriceFeed, type PriceFeed } from '../market/feed/feed.js';
import { createQuoteStore, type QuoteStore } from '../market/feed/quote-store.js';
import { createStockLoader } from '../market/feed/stock-loader.js';
import { createMarketClock, type MarketClock } from '../market/market-clock.js';
import { membershipQuery, membershipWatch } from '../live/engine.js';
import { createLiveScreens, type LiveScreens } from '../live/runtime.js';
import { createLiveScreenHook, type LiveScreenHook } from '../ws/live-screens.js';
import { createWsGateway, type WsGateway } from '../ws/gateway.js';
import { createSnapshotUniverse } from '../ws/snapshot-universe.js';
import type { DaemonContext, RealtimeContext } from './context.js';
import { buildKis, type KisParts } from './kis.js';
import type { AlertEvent } from '../kernel/events.js';
import { quoteAt } from '../screening/engine/snapshot.js';
import { createTickPipeline, type TickPipeline } from './tick-pipeline.js';

/** The roles the real-time parts are built over. */
type RealtimeDeps = Pick<DaemonContext, 'core' | 'redis' | 'store' | 'auth' | 'screening'>;

/** The market bus (its connections open now; it is read once the live screens start). */
export function buildBus(ctx: Pick<DaemonContext, 'core' | 'redis'>, list: PartList): StreamMarketBus {
  const bus = createMarketBus({ redis: ctx.redis.factory, logger: ctx.core.logger, maxLen: ctx.core.config.ws_history });
  list.add({ name: 'bus', stop: () => bus.close() });
  return bus;
}

/**
 * Build the real-time parts (nothing reads, listens or ticks until their parts start).
 * `clientAddress` reads a WebSocket upgrade's address as the HTTP app would (`trust_proxy`);
 * `onFiring` runs after a firing's claim committed, on the daemon that won it (its deliveries).
 */
export function buildRealtime(
  ctx: RealtimeDeps,
  bus: StreamMarketBus,
  clientAddress: (req: IncomingMessage) => string,
  list: PartList,
  onFiring?: (eventId: string) => Promise<void>,
): RealtimeContext {
  const { config, clock, logger } = ctx.core;
  const quotes = createQuoteStore({ redis: ctx.redis.commands, key: ctx.redis.factory.key });
  const { alertEvaluator, publishFiring } = buildPriceAlerts(ctx, bus, list, onFiring);
  const marketClock = createMarketClock({ mode: config.market_clock, clock });
  let liveRef: LiveScreens | undefined;
  const causes = createScreenAlertCauses(() => liveRef?.engine.version() ?? '');
  const ticks = createTickPipeline({ bus, priceAlerts: (events) => alertEvaluator.onTick(events), live: () => liveRef, causes, logger });
  const { liveScreens, screenAlertEvaluator } = buildLive(ctx, { ticks, quotes, publishFiring, cause: causes.cause }, list);
  liveRef = liveScreens;
  let gatewayRef: WsGateway | undefined;
  const { feed, kis } = buildFeed(ctx, { bus, quotes, marketClock, ticks, watchers: () => gatewayRef?.stockWatchers() ?? new Map() }, list);
  // A feed gone stale (or fresh) on any daemon's reading: screens hold entered/exited until prices are fresh again.
  kis?.onFreshness((stale) => liveScreens.engine.hold(stale));
  const liveScreenHook = createLiveScreenHook(liveScreens.service, clock, () => liveScreens.engine.held());
  const gateway = buildGateway(ctx, { bus: ticks.fanOutBus(bus), quotes, marketClock, liveScreenHook, clientAddress, ...(kis ? { kis } : {}) });
  gatewayRef = gateway;
  return { bus, ticks, quotes, marketClock, feed, alertEvaluator, liveScreens, liveScreenHook, screenAlertEvaluator, gateway, ...(kis ? { kis } : {}) };
}

/** The price alert evaluator (part `price alerts`) and how a firing is published and delivered. */
function buildPriceAlerts(ctx: RealtimeDeps, bus: StreamMarketBus, list: PartList, onFiring?: (eventId: string) => Promise<void>) {
  // The winner of a firing's claim publishes it and queues its deliveries (published or not).
  const publishFiring = async (e: AlertEvent) => {
    try {
      return await bus.publish(e);
    } finally {
      if (e.event_id) void onFiring?.(e.event_id);
    }
  };
  const alertEvaluator = createAlertEvaluator({
    alerts: ctx.store.alerts, publish: publishFiring, notifier: ctx.redis.notifier,
    averageVolumes: createAverageVolumes(ctx.store), clock: ctx.core.clock, logger: ctx.core.logger,
  });
  // Firings already claimed are recorded and published before the bus and database close.
  list.add({ name: 'price alerts', start: () => alertEvaluator.start(), stop: () => alertEvaluator.drain() });
  ctx.screening.swaps.on(() => alertEvaluator.refreshAverages());
  return { alertEvaluator, publishFiring };
}

/** What the feed is built over. */
interface FeedDeps {
  bus: StreamMarketBus;
  quotes: QuoteStore;
  marketClock: MarketClock;
  ticks: TickPipeline;
  /** This daemon's connections per watched code (the KIS interest board). */
  watchers(): Map<string, number>;
}

/** The price feed and, with feed `kis`, the KIS parts (part `feed`: the market clock, the feed, the KIS freshness watch). */
function buildFeed(ctx: RealtimeDeps, deps: FeedDeps, list: PartList): { feed: PriceFeed; kis?: KisParts } {
  const { config, clock, logger, metrics } = ctx.core;
  const { factory, commands } = ctx.redis;
  const { bus, quotes, marketClock, ticks } = deps;
  const stockLoader = createStockLoader(ctx.store);
  let listed: string[] = [];
  const kis = config.feed === 'kis'
    ? buildKis({
        config, redis: commands, key: factory.key, clock, logger, registry: metrics.registry, quotes, marketClock,
        publish: (events) => bus.publishMany(events), daemonId: randomBytes(8).toString('hex'), watchers: deps.watchers,
        alertCodes: async () => (await ctx.store.alerts.listActive()).flatMap((a) => (a.code && !a.preset_id ? [a.code] : [])),
        sampleCode: () => (listed.includes('005930') ? '005930' : listed[0]),
      })
    : undefined;
  const feed = createPriceFeed({
    mode: config.feed, bus, quotes, redis: factory, commands, clock, marketClock, intervalMs: config.feed_interval_ms,
    updatesPerStockPerSecond: config.feed_updates_per_stock_per_s,
    loadStocks: async () => {
      const stocks = await stockLoader();
      listed = stocks.map((s) => s.code);
      return stocks;
    },
    logger,
    ...(kis ? { leaderSource: (hooks: Parameters<KisParts['leaderSource']>[0]) => kis.leaderSource(hooks) } : {}),
    // Evaluation must not delay the ticks: the evaluator records and publishes firings itself.
    onTick: (events) => ticks.priceAlerts(events),
  });
  ctx.screening.swaps.on(() => feed.refreshStocks());
  marketClock.onTransition((ev) => void feed.publishStatus(ev).catch((err: Error) => logger.warn({ err: err.message }, 'market_status not published')));
  list.add({
    name: 'feed',
    async start() {
      marketClock.start();
      await feed.start();
      kis?.start();
    },
    async stop() {
      marketClock.stop();
      await feed.stop();
      await kis?.close();
    },
  });
  return { feed, ...(kis ? { kis } : {}) };
}

/** What the gateway serves from. */
interface GatewayDeps {
  /** The bus as the tick pipeline's fan-out stage sees it. */
  bus: StreamMarketBus;
  quotes: QuoteStore;
  marketClock: MarketClock;
  liveScreenHook: LiveScreenHook;
  clientAddress: (req: IncomingMessage) => string;
  kis?: KisParts;
}

/** The WebSocket gateway (its part, `ws`, is the daemon's: it attaches to the HTTP server). */
function buildGateway(ctx: RealtimeDeps, deps: GatewayDeps): WsGateway {
  const { config, clock, logger, metrics } = ctx.core;
  const { quotes, marketClock, kis } = deps;
  return createWsGateway({
    bus: deps.bus, redis: ctx.redis.commands, key: ctx.redis.factory.key, tokens: ctx.auth.tokens, logger, clock, registry: metrics.registry,
    universe: createSnapshotUniverse(() => ctx.screening.snapshot.current()),
    snapshot: async (codes) => [...(await quotes.getQuotes(codes)).values()],
    // A client subscribing while the real feed is stale learns it with the market status.
    marketStatus: () => {
      const fresh = kis?.freshness();
      return fresh?.stale ? marketClock.statusEvents().map((e) => ({ ...e, prices: 'stale' as const, ...(fresh.stale_reason ? { stale_reason: fresh.stale_reason } : {}) })) : marketClock.statusEvents();
    },
    missedAlerts: async (userId, from, to, limit) => (await ctx.store.alerts.firedBetween(userId, from, to, limit)).map(alertEventOf),
    options: {
      batchIntervalMs: config.ws_batch_interval_ms, rateLimit: config.ws_rate_limit, maxSubscriptions: config.ws_max_subscriptions,
      maxTargetsPerRequest: config.ws_max_targets_per_request, sessionTtlS: config.ws_session_ttl_s, heartbeatMs: config.ws_heartbeat_ms,
      maxReplayMessages: config.ws_replay_max_messages,
      maxConnectionsPerAddress: config.ws_max_connections_per_address, maxConnectionsPerUser: config.ws_max_connections_per_user,
    },
    clientAddress: deps.clientAddress,
    liveScreens: deps.liveScreenHook,
  });
}

/** What the live screens are built over. */
interface LiveDeps {
  ticks: TickPipeline;
  quotes: QuoteStore;
  publishFiring: (e: AlertEvent) => Promise<unknown>;
  /** The screen alerts' cause of the change under way. */
  cause: () => string;
}

/** The live screens and the screen alerts that watch them (parts `live screens`, `screen alerts`; the tick pipeline feeds both). */
function buildLive(ctx: RealtimeDeps, deps: LiveDeps, list: PartList): { liveScreens: LiveScreens; screenAlertEvaluator: ScreenAlertEvaluator } {
  const { config, clock, logger } = ctx.core;
  const { snapshot, screens } = ctx.screening;
  const { presets } = ctx.store;
  const { ticks, quotes } = deps;
  const liveScreens = createLiveScreens({
    snapshot: () => snapshot.current(), screens, redis: ctx.redis.commands, key: ctx.redis.factory.key, logger,
    quotes: async (codes) => [...(await quotes.getQuotes(codes)).values()],
    presetQuery: async (userId, id) => (await presets.get(userId, id))?.query ?? null,
    limits: config.live_screen_limits, daemonId: randomBytes(8).toString('hex'), now: () => clock.now(),
    rerun: { share: config.live_rerun_share, sliceMs: config.live_rerun_slice_ms, everyMs: config.live_rerun_every_ms },
  });
  ctx.screening.swaps.on((next) => liveScreens.onSnapshot(next));
  list.add({
    name: 'live screens',
    // The bus is read from here on; the quotes known at start are in the view before the screen alerts take their baseline.
    async start() {
      ticks.start();
      await liveScreens.start();
    },
    async stop() {
      ticks.stop();
      liveScreens.close();
    },
  });
  const screenAlertEvaluator = buildScreenAlerts(ctx, liveScreens, deps.cause, deps.publishFiring);
  list.add({
    name: 'screen alerts',
    start: () => screenAlertEvaluator.start(),
    async stop() {
      screenAlertEvaluator.close();
      await screenAlertEvaluator.drain();
    },
  });
  return { liveScreens, screenAlertEvaluator };
}

/** The screen alert evaluator over this daemon's live-screen engine. */
function buildScreenAlerts(
  ctx: RealtimeDeps,
  live: LiveScreens,
  cause: () => string,
  publish: (e: AlertEvent) => Promise<unknown>,
): ScreenAlertEvaluator {
  const { screens } = ctx.screening;
  const { presets } = ctx.store;
  const { commands, factory, notifier } = ctx.redis;
  return createScreenAlertEvaluator({
    alerts: ctx.store.alerts, publish, cause, notifier, clock: ctx.core.clock, logger: ctx.core.logger,
    // A whole list's change: the first daemon to see it takes the key and fires; Redis down: fire (a duplicate at worst).
    once: async (key, ttlMs) => (await commands.set(factory.key(key), '1', 'PX', ttlMs, 'NX').catch(() => 'OK')) === 'OK',
    preset: async (userId, id) => {
      const p = await presets.get(userId, id);
      return p ? { name: p.name, query: p.query } : null;
    },
    // Checked against the owner's budget when the alert was created (createAlertService.checkScreen).
    async watch(query, membership, listener) {
      const watched = membershipQuery(screens.parse(query, 'trusted'), membership);
      // A whole list's first run in slices (ten alerts on dear presets load at a start); the add takes it.
      await live.engine.prepare(watched, createTimeSlicer().checkpoint);
      return membershipWatch(live.engine.add(watched, listener));
    },
    // The live view's snapshot: the tick that moved a stock in or out is already in its close.
    quote: (code) => quoteAt(live.engine.view().snapshot, code),
  });
}
