/**
 * createDaemon(config, overrides) → { start, close, address }: builds every part in
 * dependency order, listens, and shuts down in the written order (CONVENTIONS "Lifecycle").
 * Tests start it on port 0 with a temp data dir and their own Redis prefix.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createAuthService, type AuthService } from './auth/auth-service.js';
import { createTokenService, type TokenService } from './auth/tokens.js';
import { createPasswordHasher } from './auth/passwords.js';
import { createRevocations } from './auth/revocations.js';
import type { Config } from './config.js';
import { systemClock, type Clock } from './infra/clock.js';
import { createConfiguredLogger } from './infra/logger.js';
import { createMetrics, JOB_STATES, registerJobCounts, type Metrics } from './infra/metrics.js';
import { closeRedis, createRedisFactory, waitReady, type RedisFactory } from './infra/redis.js';
import { createRedisGuard, type RedisGuard } from './infra/redis-guard.js';
import { runShutdownSteps } from './infra/shutdown.js';
import { buildApp, type BuiltApp, type RouteRegistrar } from './http/app.js';
import { clientAddressOf } from './http/client-address.js';
import { answerClientErrors } from './http/client-errors.js';
import { registerAdminUserRoutes } from './http/routes/admin-users.js';
import { registerLoadtestExemptionRoutes } from './http/routes/admin-loadtest.js';
import { createRateLimiter, type RateLimiter } from './http/middleware/rate-limit.js';
import { alertEventOf, createAlertEvaluator, type AlertEvaluator } from './alerts/evaluator.js';
import { createAlertService } from './alerts/alert-service.js';
import { createAverageVolumes } from './alerts/average-volume.js';
import { registerAdminTickRoutes } from './http/routes/admin-ticks.js';
import { registerAlertRoutes } from './http/routes/alerts.js';
import { registerPortfolioRoutes } from './http/routes/portfolio.js';
import { createMarketBus, type StreamMarketBus } from './market/bus.js';
import { createWsGateway, type WsGateway } from './ws/gateway.js';
import { createSnapshotUniverse } from './ws/snapshot-universe.js';
import { registerWsRoutes } from './ws/routes.js';
import { createPriceFeed, type PriceFeed } from './market/feed/feed.js';
import { createQuoteStore, toLiveQuote, type QuoteStore } from './market/feed/quote-store.js';
import { createStockLoader } from './market/feed/stock-loader.js';
import { createMarketClock, type MarketClock } from './market/market-clock.js';
import { createPortfolioService } from './portfolio/portfolio-service.js';
import { createAlertsRepo } from './store/alerts-repo.js';
import { createHoldingsRepo } from './store/holdings-repo.js';
import { createTransactionsRepo } from './store/transactions-repo.js';
import { registerAuthRoutes } from './http/routes/auth.js';
import { registerAdminExportRoute, registerAdminJobRoutes } from './http/routes/admin-jobs.js';
import { registerAdminUploadRoute } from './http/routes/admin-uploads.js';
import { uploadsDir } from './jobs/uploads.js';
import { registerStockRoutes } from './http/routes/stocks.js';
import { INDICATOR_IDS } from './indicators/registry.js';
import { createNotifier, type Notifier } from './infra/notifier.js';
import { createCachedUsersRepo } from './auth/cached-users.js';
import { createMarketJobs, type MarketJobs } from './jobs/market-jobs.js';
import { sampleSource } from './jobs/sample-source.js';
import { createMarketDataService, type MarketDataService } from './market/market-data-service.js';
import { createScreenService, type ScreenService } from './screening/screen-service.js';
import { createSnapshotService, type SnapshotService } from './screening/snapshot-service.js';
import { registerPresetRoutes } from './http/routes/presets.js';
import { registerScreenRoutes } from './http/routes/screen.js';
import { createPresetsRepo } from './store/presets-repo.js';
import type { SnapshotRow } from './screening/snapshot.js';
import { createFinancialsRepo, type FinancialsRepo } from './store/financials-repo.js';
import { createIndexRepo, type IndexRepo } from './store/index-repo.js';
import { createIndicatorsRepo, type IndicatorsRepo } from './store/indicators-repo.js';
import { createPricesRepo, type PricesRepo } from './store/prices-repo.js';
import { createStocksRepo, type StocksRepo } from './store/stocks-repo.js';
import { createRefreshTokensRepo } from './store/refresh-tokens-repo.js';
import type { Db } from './store/db.js';
import { openStore } from './store/open.js';
import { sharedDirectoryMode } from './store/private-files.js';
import { createSecretsRepo } from './store/secrets-repo.js';
import { createUsersRepo, type UsersRepo } from './store/users-repo.js';
import { VERSION } from './version.js';
import { createAsOfService, type AsOfService } from './history/as-of-service.js';
import { loadMarketHistory } from './history/history-loader.js';
import { createBacktestService, type BacktestService } from './backtest/backtest-service.js';
import { createBacktestsRepo } from './store/backtests-repo.js';
import { registerBacktestRoutes } from './http/routes/backtests.js';

/** Replaceable parts, for tests and embedding. */
export interface DaemonOverrides {
  clock?: Clock;
  logger?: Logger;
}

/** Everything the daemon built, for tests and feature wiring. */
export interface DaemonContext {
  config: Config;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  db: Db;
  redis: RedisFactory;
  /** The API-side command connection (fails fast when Redis is down). */
  commands: Redis;
  /** The guarded connection of the checks that fail open (rate limits, revocation lookups). */
  guard: RedisGuard;
  users: UsersRepo;
  tokens: TokenService;
  auth: AuthService;
  http: BuiltApp;
  /** The rate limiter the route table was built with. */
  limiter: RateLimiter;
  notifier: Notifier;
  stocks: StocksRepo;
  prices: PricesRepo;
  financials: FinancialsRepo;
  indicators: IndicatorsRepo;
  index: IndexRepo;
  market: MarketDataService;
  snapshot: SnapshotService;
  screens: ScreenService;
  /** As-of snapshots and the market's history (issue 23). */
  asOf: AsOfService;
  backtests: BacktestService;
  jobs: MarketJobs;
  bus: StreamMarketBus;
  quotes: QuoteStore;
  feed: PriceFeed;
  marketClock: MarketClock;
  alerts: AlertEvaluator;
  gateway: WsGateway;
}

/** Redis pub/sub channel announcing a new indicator snapshot version. */
export const SNAPSHOT_CHANNEL = 'snapshot';

/** Redis pub/sub channel announcing a revoked access token ({jti, exp}) to every daemon. */
export const REVOKED_CHANNEL = 'revoked';

/** Build the market-data parts over an open database (shared by the daemon and `stockscreend worker`). */
export function createMarketParts(db: Db) {
  const stocks = createStocksRepo(db);
  const prices = createPricesRepo(db);
  const financials = createFinancialsRepo(db);
  const indicators = createIndicatorsRepo(db);
  const index = createIndexRepo(db);
  const market = createMarketDataService({ db, stocks, prices, financials, index, indicators });
  return { stocks, prices, financials, indicators, index, market };
}

/** Snapshot rows: every stock with its latest indicators and universe flags. */
export async function loadSnapshotRows(parts: ReturnType<typeof createMarketParts>): Promise<{ version: string; rows: SnapshotRow[] }> {
  const run = await parts.indicators.latestRun();
  const [stocks, values, halts] = await Promise.all([parts.stocks.all(), parts.indicators.all(), parts.prices.latestHalts()]);
  const rows = stocks.map((s): SnapshotRow => ({
    code: s.code, name: s.name, name_english: s.name_english, market: s.market, sector: s.sector, industry: s.industry, board: s.board,
    flags: { administrative: s.is_administrative, spac: s.is_spac, preferred: s.is_preferred, halted: halts.get(s.code)?.trade_date === run?.as_of },
    values: values.get(s.code) ?? {},
  }));
  return { version: run?.version ?? `none:${stocks.length}`, rows };
}

/** A running (or runnable) daemon. */
export interface Daemon {
  /** Open storage, connect Redis, listen. @throws when the database cannot be opened or the port is taken */
  start(): Promise<void>;
  /** Graceful, idempotent shutdown. */
  close(): Promise<void>;
  /** Base URL once listening, e.g. http://127.0.0.1:8000. */
  url(): string;
  address(): AddressInfo;
  /** Built parts (after start). */
  context(): DaemonContext;
}

/**
 * The JWT signing key: configured, or generated once and kept where every daemon of
 * the deployment finds it — in the database with PostgreSQL (several daemons must
 * accept each other's tokens), in `data_dir/jwt-secret` (mode 0600) with sqlite.
 */
async function loadOrCreateSecret(config: Config, db: Db): Promise<string> {
  if (config.jwt_secret) return config.jwt_secret;
  if (db.dialect.name === 'postgres') return createSecretsRepo(db).getOrCreate('jwt_secret', () => randomBytes(48).toString('base64url'));
  const file = join(config.data_dir, 'jwt-secret');
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing.length >= 32) return existing;
  } catch {
    // absent: generate below
  }
  // Written whole to a temp file, then linked into place: link() fails if another process
  // sharing the data dir got there first, and then its complete secret is the one to use.
  const secret = randomBytes(48).toString('base64url');
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temp, secret + '\n', { mode: 0o600 });
  try {
    await link(temp, file);
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const theirs = (await readFile(file, 'utf8')).trim();
    if (theirs.length < 32) throw new Error(`${file} holds no usable secret (under 32 characters): delete it to have one generated`);
    return theirs;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Create the daemon (nothing is opened until start()). */
export function createDaemon(config: Config, overrides: DaemonOverrides = {}): Daemon {
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createConfiguredLogger(config);
  let ctx: DaemonContext | undefined;
  let server: Server | undefined;
  let draining = false;
  let closing: Promise<void> | undefined;

  /**
   * Build every part and listen.
   * @throws whatever prevented the start; what was already opened is closed first, so a
   *   failed start leaves no connection behind and the process can exit
   */
  async function start(): Promise<void> {
    const opened: [string, () => Promise<unknown>][] = [];
    try {
      await startParts(opened);
    } catch (err) {
      // Once ctx exists, close() knows everything; before that only `opened` does.
      if (!ctx) {
        await runShutdownSteps(opened.reverse(), logger, 'warn', 'cleanup after a failed start failed');
      }
      throw err;
    }
  }

  async function startParts(opened: [string, () => Promise<unknown>][]): Promise<void> {
    await mkdir(config.data_dir, { recursive: true, mode: 0o700 });
    const shared = await sharedDirectoryMode(config.data_dir);
    if (shared) logger.warn({ data_dir: config.data_dir, mode: shared }, 'the data directory is open to other users: chmod 700 it (it holds the database and the JWT secret)');
    const db = await openStore(config, (err) => logger.warn({ err: err.message }, 'database connection lost; reconnecting on next use'));
    opened.push(['database', () => db.close()]);
    logger.info({ database: db.label }, 'database open');
    const metrics = createMetrics();
    const redis = createRedisFactory({ url: config.redis_url, prefix: config.redis_prefix, logger, commandTimeoutMs: config.redis_command_timeout_ms });
    const commands = redis.connect('command', 'api');
    opened.push(['redis', () => closeRedis(commands)]);
    if (!(await waitReady(commands, 2000))) {
      logger.warn({ redis_url: config.redis_url }, 'redis not reachable yet; serving anyway (rate limits fail open, /health/redis reports it)');
    }
    const notifier = createNotifier(redis, commands, logger);
    opened.push(['notifier', () => notifier.close()]);
    const users = createCachedUsersRepo(createUsersRepo(db), { notifier, clock });
    // The checks that fail open (limits, revocation) get a connection of their own with no
    // command timeout: the guard judges lateness after our event loop has read the socket.
    // No auto-pipelining: a command is written when sent, so its deadline starts at the write.
    const guardConnection = redis.connect('command', 'guard', { commandTimeoutMs: 0, autoPipelining: false });
    opened.push(['redis guard', () => closeRedis(guardConnection)]);
    await waitReady(guardConnection, 2000);
    const guard = createRedisGuard(guardConnection, { timeoutMs: config.rate_limit.timeout_ms, failuresToTrip: config.rate_limit.failures_to_fail_open });
    const revocations = createRevocations({
      redis: commands, guard, key: redis.key, clock, logger,
      announce: (token) => notifier.publish(REVOKED_CHANNEL, JSON.stringify({ jti: token.jti, exp: token.exp })),
    });
    const tokens = createTokenService({
      secret: await loadOrCreateSecret(config, db),
      ttlSeconds: config.access_token_ttl_s,
      clock,
      isRevoked: (token) => revocations.isRevoked(token),
    });
    const auth = createAuthService({
      users,
      refreshTokens: createRefreshTokensRepo(db),
      tokens,
      clock,
      refreshTtlSeconds: config.refresh_token_ttl_s,
      passwords: createPasswordHasher({ logN: config.password_scrypt_log_n }),
      onRehashFailed: (err) => logger.warn({ err: err.message }, 'password re-hash not stored; retried at the next login'),
      revokeAccess: (token) => revocations.revoke(token),
    });
    notifier.subscribe(REVOKED_CHANNEL, (message) => {
      try {
        const { jti, exp } = JSON.parse(message) as { jti: unknown; exp: unknown };
        if (typeof jti === 'string' && typeof exp === 'number') tokens.markRevoked({ jti, exp });
      } catch {
        logger.warn('malformed revocation announcement ignored');
      }
    });
    if (config.admin_email && config.admin_password) {
      await auth.ensureAdmin(config.admin_email, config.admin_password);
      logger.info({ email: config.admin_email }, 'admin account ensured');
    }
    const parts = createMarketParts(db);
    const snapshot = createSnapshotService({ fields: INDICATOR_IDS, loadRows: () => loadSnapshotRows(parts) });
    await snapshot.refresh();
    notifier.subscribe(SNAPSHOT_CHANNEL, (version) => {
      snapshot.refresh(version).catch((err: Error) => logger.error({ err }, 'snapshot refresh failed'));
    });
    const knownFields = new Set<string>(INDICATOR_IDS);
    const presets = createPresetsRepo(db);
    const asOf = createAsOfService({ version: () => snapshot.current().version, loadHistory: (v) => loadMarketHistory(parts, v) });
    const screens = createScreenService({
      snapshot,
      asOf: (date) => asOf.snapshotAt(date),
      knownFields,
      ttlSeconds: config.screen_cache_ttl_s,
      cache: {
        get: (key) => commands.get(redis.key('screen', key)),
        set: async (key, value, ttl) => void (await commands.set(redis.key('screen', key), value, 'EX', ttl)),
      },
    });
    const backtests = createBacktestService({
      asOf, parseScreen: (body) => screens.parse(body), presetQuery: async (userId, id) => (await presets.get(userId, id))?.query,
      repo: createBacktestsRepo(db), riskFreeRate: config.risk_free_rate, onError: (err, id) => logger.warn({ err, backtest: id }, 'backtest failed'),
    });
    const bus = createMarketBus({ redis, logger, maxLen: config.ws_history });
    opened.push(['bus', () => bus.close()]);
    const quotes = createQuoteStore({ redis: commands, key: redis.key });
    const alertsRepo = createAlertsRepo(db);
    const alerts = createAlertEvaluator({
      alerts: alertsRepo, publish: (e) => bus.publish(e), notifier,
      averageVolumes: createAverageVolumes(parts), clock, logger,
    });
    await alerts.start();
    const alertService = createAlertService({ alerts: alertsRepo, stocks: parts.stocks, caps: config.alert_caps, onChange: (id) => alerts.changed(id) });
    const portfolio = createPortfolioService({
      db, holdings: createHoldingsRepo(db), transactions: createTransactionsRepo(db), stocks: parts.stocks, prices: parts.prices,
      index: parts.index, riskFreeRate: config.risk_free_rate, clock, logger, liveQuote: (code) => quotes.getQuote(code),
    });
    let feed: PriceFeed | undefined;
    const marketClock = createMarketClock({
      mode: config.market_clock,
      clock,
      onTransition: (ev) => void feed?.publishStatus(ev).catch((err: Error) => logger.warn({ err: err.message }, 'market_status not published')),
    });
    feed = createPriceFeed({
      mode: config.feed, bus, quotes, redis, commands, clock, marketClock, intervalMs: config.feed_interval_ms,
      updatesPerStockPerSecond: config.feed_updates_per_stock_per_s,
      loadStocks: createStockLoader(parts), logger,
      // Evaluation must not delay the ticks: the evaluator records and publishes firings itself.
      onTick: async (events) => void alerts.onTick(events).catch((err: Error) => logger.error({ err }, 'alert evaluation failed')),
    });
    notifier.subscribe(SNAPSHOT_CHANNEL, () => {
      void alerts.refreshAverages().catch(() => undefined);
      void feed?.refreshStocks().catch(() => undefined);
    });
    const gateway = createWsGateway({
      bus, redis: commands, key: redis.key, tokens, logger, clock, registry: metrics.registry,
      universe: createSnapshotUniverse(() => snapshot.current()),
      snapshot: async (codes) => [...(await quotes.getQuotes(codes)).values()],
      marketStatus: () => marketClock.statusEvents(),
      missedAlerts: async (userId, from, to, limit) => (await alertsRepo.firedBetween(userId, from, to, limit)).map(alertEventOf),
      options: {
        batchIntervalMs: config.ws_batch_interval_ms, rateLimit: config.ws_rate_limit, maxSubscriptions: config.ws_max_subscriptions,
        maxTargetsPerRequest: config.ws_max_targets_per_request, sessionTtlS: config.ws_session_ttl_s, heartbeatMs: config.ws_heartbeat_ms,
        maxReplayMessages: config.ws_replay_max_messages,
        maxConnectionsPerAddress: config.ws_max_connections_per_address, maxConnectionsPerUser: config.ws_max_connections_per_user,
      },
      // The address express would see (req.ip): the same `trust_proxy` rule as the HTTP rate limits.
      clientAddress: (req) => clientAddressOf(http.app, req),
    });
    opened.push(['ws', () => gateway.close()]);
    const jobs = createMarketJobs({ redis, logger, lockMs: config.job_lock_ms });
    opened.push(['jobs', () => jobs.close()]);
    const importRoots = { importDirs: config.import_dirs, uploadsDir: uploadsDir(config.data_dir) }; // issue 19
    registerJobCounts(metrics.registry, () => jobs.queue.getJobCounts(...JOB_STATES));
    // Let BullMQ finish its connection handshake so an early close() cannot interrupt it.
    await jobs.ready(2000);
    if (config.workers > 0) {
      await jobs.startWorkers(config.workers, {
        market: parts.market,
        sample: sampleSource,
        logger,
        ...importRoots,
        onIndicatorsComputed: async (run) => {
          // This instance is up to date before the job completes; others hear it over pub/sub.
          await snapshot.refresh(run.version);
          await feed?.refreshStocks().catch(() => undefined);
          await alerts.refreshAverages().catch(() => undefined);
          await notifier.publish(SNAPSHOT_CHANNEL, run.version).catch(() => undefined);
        },
      });
    }
    const registrars: RouteRegistrar[] = [
      (api) => registerAuthRoutes(api, { auth, users }),
      (api) => registerAdminUserRoutes(api, { users }),
      (api) => registerLoadtestExemptionRoutes(api, { users, logger }),
      (api) => registerStockRoutes(api, { ...parts, snapshot, liveQuote: async (code) => {
        const q = await quotes.getQuote(code).catch(() => null);
        return q && toLiveQuote(q);
      } }),
      (api) => registerPortfolioRoutes(api, { portfolio }),
      (api) => registerAlertRoutes(api, { alerts: alertService }),
      (api) => registerAdminTickRoutes(api, { feed: feed! }),
      (api) => registerWsRoutes(api, { gateway }),
      (api) => registerScreenRoutes(api, { screens, snapshot, knownFields }),
      (api) => registerPresetRoutes(api, { presets, screens }),
      (api) => registerBacktestRoutes(api, { backtests }),
      (api) => registerAdminJobRoutes(api, { jobs, ...importRoots }),
      (api) => registerAdminUploadRoute(api, { dir: importRoots.uploadsDir, maxBytes: config.upload_max_bytes }),
      (api) => registerAdminExportRoute(api, parts),
    ];
    const limiter = createRateLimiter({
      guard,
      key: redis.key,
      config: config.rate_limit,
      logger,
      metrics,
      // Production windows use Redis TIME (one clock for every daemon); tests inject theirs.
      clock: overrides.clock,
      authGuard: { tokens, users },
      revocationKey: revocations.key,
    });
    const http = buildApp({
      logger,
      metrics,
      tokens,
      users,
      bodyLimit: config.body_limit,
      trustProxy: config.trust_proxy,
      version: VERSION,
      isDraining: () => draining,
      registrars,
      limiter: limiter.forRoute,
      metricsAccess: { public: config.metrics_public, token: config.metrics_token },
      health: {
        pingDb: () => db.ping().then(() => true, () => false),
        pingRedis: async () => {
          if (commands.status !== 'ready') return false;
          try {
            return (await withTimeout(commands.ping(), 1000)) === 'PONG';
          } catch {
            return false;
          }
        },
      },
    });
    for (const name of limiter.unusedEndpointLimits()) logger.warn({ endpoint: name }, 'rate_limit.endpoints names a route that does not exist: ignored');
    ctx = { config, clock, logger, metrics, db, redis, commands, guard, users, tokens, auth, http, limiter, notifier, ...parts, snapshot, screens, asOf, backtests, jobs, bus, quotes, feed, marketClock, alerts, gateway };
    server = createServer(http.app);
    server.on('error', (err) => logger.error({ err }, 'http server error'));
    answerClientErrors(server);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(config.port, config.host, () => {
        server!.off('error', reject);
        resolve();
      });
    });
    gateway.attach(server);
    marketClock.start();
    await feed.start();
    logger.info({ url: url() }, `stockscreend listening on ${url()}`);
    if (config.sample && (await parts.stocks.count()) === 0) {
      const job = await jobs.enqueue({ type: 'load-sample', seed: config.sample_seed, compute: true }, null).catch((err: Error) => {
        logger.warn({ err: err.message }, 'could not enqueue the sample market load');
        return null;
      });
      if (job) logger.info({ job: job.id }, 'database empty: loading the sample market (follow with `stockscreen jobs show`)');
    }
  }

  function address(): AddressInfo {
    const a = server?.address();
    if (!a || typeof a === 'string') throw new Error('daemon is not listening');
    return a;
  }

  function url(): string {
    const { address: host, port, family } = address();
    return `http://${family === 'IPv6' ? `[${host}]` : host}:${port}`;
  }

  async function shutdown(): Promise<void> {
    draining = true;
    const steps: [string, () => Promise<unknown>][] = [
      // WebSockets first: open sockets keep server.close() waiting, and sessions are saved to Redis on close.
      ['ws', async () => ctx?.gateway.close()],
      ['http', () => closeServer(server)],
      ['feed', async () => {
        ctx?.marketClock.stop();
        await ctx?.feed.stop();
      }],
      // Firings already claimed are recorded and published before the bus and database close.
      ['alerts', async () => ctx?.alerts.drain()],
      ['jobs', async () => ctx?.jobs.close()],
      ['backtests', async () => ctx?.backtests.close()],
      ['bus', async () => ctx?.bus.close()],
      ['notifier', async () => ctx?.notifier.close()],
      ['redis', async () => ctx && Promise.all([closeRedis(ctx.commands), closeRedis(ctx.guard.redis)])],
      ['database', async () => ctx?.db.close()],
    ];
    await runShutdownSteps(steps, logger);
    logger.info('stockscreend stopped');
  }

  return {
    start,
    close: () => (closing ??= shutdown()),
    url,
    address,
    context() {
      if (!ctx) throw new Error('daemon not started');
      return ctx;
    },
  };
}

function closeServer(server: Server | undefined): Promise<void> {
  if (!server?.listening) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), 5000);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
