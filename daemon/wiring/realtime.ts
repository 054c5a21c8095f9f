/**
 * Real-time wiring: the market bus, live quotes, the market clock, the price feed, the alert
 * evaluator that watches its ticks, the live screens and the screen alerts that watch them,
 * and the WebSocket gateway that fans them out; the tick pipeline (tick-pipeline.ts) takes each
 * tick through them in its written order. Parts, in the order they start: `bus` (built early:
 * it closes after everything that publishes on it), then `price alerts`, `live screens` (the
 * pipeline reads the bus), `screen alerts`, `feed`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { alertEventOf, createAlertEvaluator, type AlertEvaluator } from '../alerts/evaluator.js';
import { createAverageVolumes } from '../alerts/average-volume.js';
import { createScreenAlertEvaluator, type ScreenAlertEvaluator } from '../alerts/screen-alert-evaluator.js';
import { createScreenAlertCauses } from '../alerts/screen-alert-rules.js';
import type { PartList } from '../infra/parts.js';
import { createMarketBus, type StreamMarketBus } from '../market/bus.js';
import { createPriceFeed, type PriceFeed } from '../market/feed/feed.js';
import { createQuoteStore, type QuoteStore } from '../market/feed/quote-store.js';
import { createStockLoader } from '../market/feed/stock-loader.js';
import { createMarketClock, type MarketClock } from '../market/market-clock.js';
import { createAlertsRepo, type AlertsRepo, type AlertsRepoHooks } from '../store/alerts-repo.js';
import { membershipQuery, membershipWatch } from '../live/engine.js';
import { createLiveScreens, type LiveScreens } from '../live/runtime.js';
import { createLiveScreenHook, type LiveScreenHook } from '../ws/live-screens.js';
import { createWsGateway, type WsGateway } from '../ws/gateway.js';
import { createSnapshotUniverse } from '../ws/snapshot-universe.js';
import type { AuthParts } from './auth.js';
import { buildKis, type KisParts } from './kis.js';
import type { CoreParts } from './core.js';
import type { ScreeningParts } from './market.js';
import type { AlertEvent } from '../kernel/events.js';
import { quoteAt } from '../screening/snapshot.js';
import { createTickPipeline, type TickPipeline } from './tick-pipeline.js';

/** The real-time parts. */
export interface RealtimeParts {
  bus: StreamMarketBus;
  quotes: QuoteStore;
  marketClock: MarketClock;
  feed: PriceFeed;
  alertsRepo: AlertsRepo;
  alerts: AlertEvaluator;
  gateway: WsGateway;
  /** Live screens. */
  live: LiveScreens;
  /** The WebSocket side of live screens (each subscription's dwell). */
  liveScreens: LiveScreenHook;
  /** Alerts on screens. */
  screenAlerts: ScreenAlertEvaluator;
  /** The KIS feed's parts (feed `kis` only). */
  kis?: KisParts;
  /** The stages every tick goes through. */
  ticks: TickPipeline;
}

/** What happens to a firing besides the owner's sockets: its notification deliveries. */
export interface FiringDelivery {
  /** Inside the firing's claim transaction (the outbox). */
  firingRecorded: AlertsRepoHooks['firingRecorded'];
  /** After the claim committed, on the daemon that won it. Never throws. */
  onFiring(eventId: string): Promise<void>;
}

/** The market bus (its connections open now; it is read once the live screens start). */
export function buildBus(core: CoreParts, list: PartList): StreamMarketBus {
  const bus = createMarketBus({ redis: core.redis, logger: core.logger, maxLen: core.config.ws_history });
  list.add({ name: 'bus', stop: () => bus.close() });
  return bus;
}

/**
 * Build the real-time parts (nothing reads, listens or ticks until their parts start).
 * `clientAddress` reads a WebSocket upgrade's address as the HTTP app would (`trust_proxy`).
 */
export function buildRealtime(
  core: CoreParts,
  auth: AuthParts,
  screening: ScreeningParts,
  bus: StreamMarketBus,
  clientAddress: (req: IncomingMessage) => string,
  list: PartList,
  delivery?: FiringDelivery,
): RealtimeParts {
  const { config, clock, logger, redis, commands } = core;
  const quotes = createQuoteStore({ redis: commands, key: redis.key });
  const alertsRepo = createAlertsRepo(core.db, { firingRecorded: delivery?.firingRecorded });
  const { alerts, publishFiring } = buildPriceAlerts(core, screening, bus, alertsRepo, list, delivery);
  const marketClock = createMarketClock({ mode: config.market_clock, clock });
  let live: LiveScreens | undefined;
  const causes = createScreenAlertCauses(() => live?.engine.version() ?? '');
  const ticks = createTickPipeline({ bus, priceAlerts: (events) => alerts.onTick(events), live: () => live, causes, logger });
  const built = buildLive(core, screening, ticks, quotes, alertsRepo, publishFiring, causes.cause, list);
  live = built.live;
  let gatewayRef: WsGateway | undefined;
  const { feed, kis } = buildFeed(core, screening, { bus, quotes, marketClock, alertsRepo, ticks, watchers: () => gatewayRef?.stockWatchers() ?? new Map() }, list);
  // A feed gone stale (or fresh) on any daemon's reading: screens hold entered/exited until prices are fresh again.
  kis?.onFreshness((stale) => built.live.engine.hold(stale));
  const liveScreens = createLiveScreenHook(built.live.service, clock, () => built.live.engine.held());
  const gateway = buildGateway(core, auth, screening, { bus: ticks.fanOutBus(bus), quotes, marketClock, alertsRepo, liveScreens, clientAddress, ...(kis ? { kis } : {}) });
  gatewayRef = gateway;
  return { bus, quotes, marketClock, feed, alertsRepo, alerts, gateway, live: built.live, liveScreens, screenAlerts: built.screenAlerts, ticks, ...(kis ? { kis } : {}) };
}

/** The price alert evaluator (part `price alerts`) and how a firing is published and delivered. */
function buildPriceAlerts(core: CoreParts, screening: ScreeningParts, bus: StreamMarketBus, alertsRepo: AlertsRepo, list: PartList, delivery?: FiringDelivery) {
  // The winner of a firing's claim publishes it and queues its deliveries (published or not).
  const publishFiring = async (e: AlertEvent) => {
    try {
      return await bus.publish(e);
    } finally {
      if (e.event_id) void delivery?.onFiring(e.event_id);
    }
  };
  const alerts = createAlertEvaluator({
    alerts: alertsRepo, publish: publishFiring, notifier: core.notifier,
    averageVolumes: createAverageVolumes(screening.parts), clock: core.clock, logger: core.logger,
  });
  // Firings already claimed are recorded and published before the bus and database close.
  list.add({ name: 'price alerts', start: () => alerts.start(), stop: () => alerts.drain() });
  screening.swaps.on(() => alerts.refreshAverages());
  return { alerts, publishFiring };
}

/** What the feed is built over. */
interface FeedDeps {
  bus: StreamMarketBus;
  quotes: QuoteStore;
  marketClock: MarketClock;
  alertsRepo: AlertsRepo;
  ticks: TickPipeline;
  /** This daemon's connections per watched code (the KIS interest board). */
  watchers(): Map<string, number>;
}

/** The price feed and, with feed `kis`, the KIS parts (part `feed`: the market clock, the feed, the KIS freshness watch). */
function buildFeed(core: CoreParts, screening: ScreeningParts, deps: FeedDeps, list: PartList): { feed: PriceFeed; kis?: KisParts } {
  const { config, clock, logger, redis, commands, metrics } = core;
  const { bus, quotes, marketClock, alertsRepo, ticks } = deps;
  const stockLoader = createStockLoader(screening.parts);
  let listed: string[] = [];
  const kis = config.feed === 'kis'
    ? buildKis({
        config, redis: commands, key: redis.key, clock, logger, registry: metrics.registry, quotes, marketClock,
        publish: (events) => bus.publishMany(events), daemonId: randomBytes(8).toString('hex'), watchers: deps.watchers,
        alertCodes: async () => (await alertsRepo.listActive()).flatMap((a) => (a.code && !a.preset_id ? [a.code] : [])),
        sampleCode: () => (listed.includes('005930') ? '005930' : listed[0]),
      })
    : undefined;
  const feed = createPriceFeed({
    mode: config.feed, bus, quotes, redis, commands, clock, marketClock, intervalMs: config.feed_interval_ms,
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
  screening.swaps.on(() => feed.refreshStocks());
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
  alertsRepo: AlertsRepo;
  liveScreens: LiveScreenHook;
  clientAddress: (req: IncomingMessage) => string;
  kis?: KisParts;
}

/** The WebSocket gateway (its part, `ws`, is the daemon's: it attaches to the HTTP server). */
function buildGateway(core: CoreParts, auth: AuthParts, screening: ScreeningParts, deps: GatewayDeps): WsGateway {
  const { config, clock, logger, redis, commands, metrics } = core;
  const { quotes, marketClock, alertsRepo, kis } = deps;
  return createWsGateway({
    bus: deps.bus, redis: commands, key: redis.key, tokens: auth.tokens, logger, clock, registry: metrics.registry,
    universe: createSnapshotUniverse(() => screening.snapshot.current()),
    snapshot: async (codes) => [...(await quotes.getQuotes(codes)).values()],
    // A client subscribing while the real feed is stale learns it with the market status.
    marketStatus: () => {
      const fresh = kis?.freshness();
      return fresh?.stale ? marketClock.statusEvents().map((e) => ({ ...e, prices: 'stale' as const, ...(fresh.stale_reason ? { stale_reason: fresh.stale_reason } : {}) })) : marketClock.statusEvents();
    },
    missedAlerts: async (userId, from, to, limit) => (await alertsRepo.firedBetween(userId, from, to, limit)).map(alertEventOf),
    options: {
      batchIntervalMs: config.ws_batch_interval_ms, rateLimit: config.ws_rate_limit, maxSubscriptions: config.ws_max_subscriptions,
      maxTargetsPerRequest: config.ws_max_targets_per_request, sessionTtlS: config.ws_session_ttl_s, heartbeatMs: config.ws_heartbeat_ms,
      maxReplayMessages: config.ws_replay_max_messages,
      maxConnectionsPerAddress: config.ws_max_connections_per_address, maxConnectionsPerUser: config.ws_max_connections_per_user,
    },
    clientAddress: deps.clientAddress,
    liveScreens: deps.liveScreens,
  });
}

/** The live screens and the screen alerts that watch them (parts `live screens`, `screen alerts`; the tick pipeline feeds both). */
function buildLive(
  core: CoreParts,
  screening: ScreeningParts,
  ticks: TickPipeline,
  quotes: QuoteStore,
  alertsRepo: AlertsRepo,
  publishFiring: (e: AlertEvent) => Promise<unknown>,
  cause: () => string,
  list: PartList,
): { live: LiveScreens; screenAlerts: ScreenAlertEvaluator } {
  const { config, clock, logger, redis, commands } = core;
  const { snapshot, screens, presets } = screening;
  const live = createLiveScreens({
    snapshot: () => snapshot.current(), parse: (body, caller) => screens.parse(body, caller), redis: commands, key: redis.key, logger,
    quotes: async (codes) => [...(await quotes.getQuotes(codes)).values()],
    presetQuery: async (userId, id) => (await presets.get(userId, id))?.query ?? null,
    limits: config.live_screen_limits, daemonId: randomBytes(8).toString('hex'), now: () => clock.now(),
    rerun: { share: config.live_rerun_share, sliceMs: config.live_rerun_slice_ms, everyMs: config.live_rerun_every_ms },
  });
  screening.swaps.on((next) => live.onSnapshot(next));
  list.add({
    name: 'live screens',
    // The bus is read from here on; the quotes known at start are in the view before the screen alerts take their baseline.
    async start() {
      ticks.start();
      await live.start();
    },
    async stop() {
      ticks.stop();
      live.close();
    },
  });
  const screenAlerts = buildScreenAlerts(core, screening, live, cause, publishFiring, alertsRepo);
  list.add({
    name: 'screen alerts',
    start: () => screenAlerts.start(),
    async stop() {
      screenAlerts.close();
      await screenAlerts.drain();
    },
  });
  return { live, screenAlerts };
}

/** The screen alert evaluator over this daemon's live-screen engine. */
function buildScreenAlerts(
  core: CoreParts,
  screening: ScreeningParts,
  live: LiveScreens,
  cause: () => string,
  publish: (e: AlertEvent) => Promise<unknown>,
  alertsRepo: AlertsRepo,
): ScreenAlertEvaluator {
  const { screens, presets } = screening;
  return createScreenAlertEvaluator({
    alerts: alertsRepo, publish, cause, notifier: core.notifier, clock: core.clock, logger: core.logger,
    // A whole list's change: the first daemon to see it takes the key and fires; Redis down: fire (a duplicate at worst).
    once: async (key, ttlMs) => (await core.commands.set(core.redis.key(key), '1', 'PX', ttlMs, 'NX').catch(() => 'OK')) === 'OK',
    preset: async (userId, id) => {
      const p = await presets.get(userId, id);
      return p ? { name: p.name, query: p.query } : null;
    },
    // Checked against the owner's budget when the alert was created (createAlertService.checkScreen).
    watch: (query, membership, listener) => membershipWatch(live.engine.add(membershipQuery(screens.parse(query, 'trusted'), membership), listener)),
    // The live view's snapshot: the tick that moved a stock in or out is already in its close.
    quote: (code) => quoteAt(live.engine.view().snapshot, code),
  });
}

