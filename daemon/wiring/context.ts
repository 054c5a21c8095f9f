/**
 * Everything the daemon built, grouped by role. Each area builder (daemon/wiring/*.ts) takes the
 * roles built before it and returns its own; a name means one thing everywhere: the repositories
 * are `store.<aggregate>` (`store.alerts` is the alerts table), the parts that act on them are
 * named for what they do (`realtime.alertEvaluator`, `notify.deliveryService`), and the job
 * queues are `jobs.<queue>`.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AlertEvaluator } from '../alerts/evaluator.js';
import type { AlertChannelLinks } from '../alerts/alert-service.js';
import type { ScreenAlertEvaluator } from '../alerts/screen-alert-evaluator.js';
import type { AuthService } from '../auth/auth-service.js';
import type { Revocations } from '../auth/revocations.js';
import type { TokenService } from '../auth/tokens.js';
import type { BacktestService } from '../backtest/backtest-service.js';
import type { Config } from '../config.js';
import type { AsOfService } from '../history/as-of-service.js';
import type { BuiltApp } from '../http/app.js';
import type { RateLimiter } from '../http/middleware/rate-limit.js';
import type { Clock } from '../infra/clock.js';
import type { Metrics } from '../infra/metrics.js';
import type { Notifier } from '../infra/notifier.js';
import type { RedisFactory } from '../infra/redis.js';
import type { RedisGuard } from '../infra/redis-guard.js';
import type { BacktestJobs } from '../jobs/backtest-jobs.js';
import type { DeliveryJobs } from '../jobs/delivery-jobs.js';
import type { MarketJobs } from '../jobs/market-jobs.js';
import type { LiveScreens } from '../live/runtime.js';
import type { StreamMarketBus } from '../market/bus.js';
import type { PriceFeed } from '../market/feed/feed.js';
import type { QuoteStore } from '../market/feed/quote-store.js';
import type { MarketClock } from '../market/market-clock.js';
import type { MarketDataService } from '../market/market-data-service.js';
import type { ChannelService } from '../notify/channel-service.js';
import type { DeliveryService } from '../notify/delivery-service.js';
import type { Digests } from '../notify/digests.js';
import type { Outbound } from '../notify/outbound.js';
import type { ScheduleService } from '../notify/schedule-service.js';
import type { ScreenService } from '../screening/engine/screen-service.js';
import type { SnapshotService } from '../screening/engine/snapshot-service.js';
import type { SourceDriver } from '../sources/driver.js';
import type { SourceRegistry } from '../sources/registry.js';
import type { SourceStatusStore } from '../sources/status-store.js';
import type { SourceSyncDeps } from '../sources/sync.js';
import type { AlertsRepo } from '../store/alerts-repo.js';
import type { BacktestsRepo } from '../store/backtests-repo.js';
import type { ChannelsRepo } from '../store/channels-repo.js';
import type { Db } from '../store/db.js';
import type { DeliveriesRepo } from '../store/deliveries-repo.js';
import type { DesignationsRepo } from '../store/designations-repo.js';
import type { FinancialsRepo } from '../store/financials-repo.js';
import type { HoldingsRepo } from '../store/holdings-repo.js';
import type { IndexRepo } from '../store/index-repo.js';
import type { IndicatorsRepo } from '../store/indicators-repo.js';
import type { PresetsRepo } from '../store/presets-repo.js';
import type { PricesRepo } from '../store/prices-repo.js';
import type { RefreshTokensRepo } from '../store/refresh-tokens-repo.js';
import type { SchedulesRepo } from '../store/schedules-repo.js';
import type { SourceDatesRepo } from '../store/source-dates-repo.js';
import type { StocksRepo } from '../store/stocks-repo.js';
import type { TransactionsRepo } from '../store/transactions-repo.js';
import type { UsersRepo } from '../store/users-repo.js';
import type { WsGateway } from '../ws/gateway.js';
import type { LiveScreenHook } from '../ws/live-screens.js';
import type { KisParts } from './kis.js';
import type { SnapshotSwaps } from './snapshot-version.js';
import type { TickPipeline } from './tick-pipeline.js';

/** What every process has first: its configuration, time, log and metrics. */
export interface CoreContext {
  config: Config;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /**
   * The database's identity (generated once, kept in the database): what names its job queues,
   * so daemons sharing a Redis keep each database's jobs apart.
   */
  databaseId: string;
}

/** Redis, by connection role. */
export interface RedisContext {
  /** Makes connections by role and prefixed key names (`factory.key('screen', k)`). */
  factory: RedisFactory;
  /** The API-side command connection (fails fast when Redis is down). */
  commands: Redis;
  /** Pub/sub between the processes of a deployment. */
  notifier: Notifier;
  /**
   * How long a part built at start may wait for a Redis connection of its own: the start's grace
   * (2 s), or none once the command connection found Redis unreachable within it. Redis being
   * down is then known and logged; each part connects by itself when Redis comes back.
   */
  startupWaitMs: number;
}

/** The market data's tables and the service that writes them (the daemon, the worker and the benches). */
export interface MarketStore {
  stocks: StocksRepo;
  prices: PricesRepo;
  financials: FinancialsRepo;
  indicators: IndicatorsRepo;
  index: IndexRepo;
  designations: DesignationsRepo;
  /** Loads, replaces and computes the market data over the repositories above. */
  marketData: MarketDataService;
}

/** The database and one repository per aggregate. */
export interface StoreContext extends MarketStore {
  db: Db;
  /** Cached in process; a change is announced to every daemon. */
  users: UsersRepo;
  refreshTokens: RefreshTokensRepo;
  presets: PresetsRepo;
  /** The alerts and their firings (a firing's claim also records its deliveries: the outbox). */
  alerts: AlertsRepo;
  backtests: BacktestsRepo;
  holdings: HoldingsRepo;
  transactions: TransactionsRepo;
  channels: ChannelsRepo;
  deliveries: DeliveriesRepo;
  schedules: SchedulesRepo;
  /** Which dates each data source has delivered. */
  sourceDates: SourceDatesRepo;
}

/** Identity: tokens, their revocation, accounts. */
export interface AuthContext {
  /** The guarded Redis connection of the checks that fail open (rate limits, revocation lookups). */
  guard: RedisGuard;
  revocations: Revocations;
  tokens: TokenService;
  /** Registration, login, refresh, logout, the configured admin. */
  service: AuthService;
}

/** Screening over the market data, now and as of a past date. */
export interface ScreeningContext {
  /** Holds the current indicator snapshot and swaps in a new version. */
  snapshot: SnapshotService;
  /** The snapshot swap event: every part that follows the snapshot listens to it. */
  swaps: SnapshotSwaps;
  screens: ScreenService;
  knownFields: ReadonlySet<string>;
  /** As-of snapshots and the market's history. */
  asOf: AsOfService;
  backtestService: BacktestService;
}

/** The job queues, each with this process's workers on it. */
export interface JobsContext {
  /** Loads, indicator computation, data-source runs. */
  market: MarketJobs;
  /** Backtest runs, shared by every daemon. */
  backtest: BacktestJobs;
  /** Notification deliveries and digests. */
  delivery: DeliveryJobs;
}

/** Ticks and what follows them: quotes, alerts, live screens, the WebSocket gateway. */
export interface RealtimeContext {
  bus: StreamMarketBus;
  /** The stages every tick goes through. */
  ticks: TickPipeline;
  quotes: QuoteStore;
  marketClock: MarketClock;
  feed: PriceFeed;
  /** The KIS feed's parts (feed `kis` only). */
  kis?: KisParts;
  /** Price alerts, evaluated on every tick. */
  alertEvaluator: AlertEvaluator;
  liveScreens: LiveScreens;
  /** The WebSocket side of live screens (each subscription's dwell). */
  liveScreenHook: LiveScreenHook;
  /** Alerts on screens, watching the live screens. */
  screenAlertEvaluator: ScreenAlertEvaluator;
  gateway: WsGateway;
}

/** Notification channels, their deliveries and digests. */
export interface NotifyContext {
  outbound: Outbound;
  deliveryService: DeliveryService;
  channelService: ChannelService;
  scheduleService: ScheduleService;
  digests: Digests;
  /** Alerts' links to channels (the alert service's port). */
  alertLinks: AlertChannelLinks;
  /** Stop the delivery worker, the queue, outbound connections and SMTP; idempotent. */
  close(): Promise<void>;
}

/** The data sources. */
export interface SourcesContext {
  drivers: ReadonlyMap<string, SourceDriver>;
  /** Calls, last success and last error per source (in Redis). */
  status: SourceStatusStore;
  /** Every source's status provider (job-run ones registered here; others register their own). */
  registry: SourceRegistry;
  /** What a market worker needs to run source-sync jobs. */
  syncDeps(marketData: MarketDataService): SourceSyncDeps;
  close(): Promise<void>;
}

/** The HTTP app (its routes and OpenAPI document) and the rate limiter it was built with. */
export interface HttpContext extends BuiltApp {
  limiter: RateLimiter;
}

/** The built daemon's parts, by role. */
export interface DaemonContext {
  core: CoreContext;
  redis: RedisContext;
  store: StoreContext;
  auth: AuthContext;
  screening: ScreeningContext;
  jobs: JobsContext;
  realtime: RealtimeContext;
  notify: NotifyContext;
  sources: SourcesContext;
  http: HttpContext;
}
