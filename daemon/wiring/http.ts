/**
 * HTTP wiring (the role `http`): the services only routes use (alerts CRUD, portfolio), one registrar per
 * resource, the per-route rate limiter, and the express app with its health checks.
 */
import { createAlertService } from '../alerts/alert-service.js';
import { buildApp, type RouteRegistrar } from '../http/app.js';
import { createRateLimiter } from '../http/middleware/rate-limit.js';
import { createIdempotencyStore } from '../http/idempotency.js';
import { registerAdminExportRoute, registerAdminJobRoutes } from '../http/routes/admin-jobs.js';
import { registerLoadtestExemptionRoutes } from '../http/routes/admin-loadtest.js';
import { registerAdminTickRoutes } from '../http/routes/admin-ticks.js';
import { registerAdminUploadRoute } from '../http/routes/admin-uploads.js';
import { registerAdminUserRoutes } from '../http/routes/admin-users.js';
import { registerAdminSourceRoutes } from '../http/routes/admin-sources.js';
import { registerAlertRoutes } from '../http/routes/alerts.js';
import { registerAuthRoutes } from '../http/routes/auth.js';
import { registerBacktestRoutes } from '../http/routes/backtests.js';
import { registerChannelRoutes } from '../http/routes/channels.js';
import { registerDeliveryRoutes } from '../http/routes/deliveries.js';
import { registerScheduleRoutes } from '../http/routes/schedules.js';
import { registerPortfolioRoutes } from '../http/routes/portfolio.js';
import { registerPresetRoutes } from '../http/routes/presets.js';
import { registerScreenRoutes } from '../http/routes/screen.js';
import { registerLiveScreenRoutes } from '../http/routes/screen-live.js';
import { registerStockRoutes } from '../http/routes/stocks.js';
import type { Clock } from '../infra/clock.js';
import { toLiveQuote } from '../market/feed/quote-store.js';
import { createPortfolioService } from '../portfolio/portfolio-service.js';
import { VERSION } from '../version.js';
import { WS_PROTOCOL_DOC } from '../ws/protocol-docs.js';
import { registerWsRoutes } from '../ws/routes.js';
import type { DaemonContext, HttpContext } from './context.js';
import { importRootsOf } from './market.js';
import type { MarketJobs } from '../jobs/market-jobs.js';
import type { MarketLoadHealth } from '../contract/health.js';
import type { JobProgress } from '../jobs/types.js';
import { hasConditions } from '../live/engine.js';

/** What the HTTP app is built over: every other role, and two settings of its own. */
export interface HttpSources {
  /** True once shutdown began (new requests get 503). */
  isDraining: () => boolean;
  /** Injected by tests; production windows use Redis TIME (one clock for every daemon). */
  limiterClock?: Clock | undefined;
}

/** Everything the routes serve from. */
type RouteContext = Omit<DaemonContext, 'http'>;

/** The route registrars, one per resource. */
function registrarsOf(ctx: RouteContext): RouteRegistrar[] {
  const { config, clock, logger } = ctx.core;
  const { store, screening, realtime, notify } = ctx;
  const { users } = store;
  const { snapshot, screens } = screening;
  const { quotes, liveScreens, screenAlertEvaluator } = realtime;
  const alertService = createAlertService({
    alerts: store.alerts, stocks: store.stocks, presets: store.presets, caps: config.alert_caps, channels: notify.alertLinks,
    checkScreen: (query, tier) => ({ conditions: hasConditions(screens.parse(query, tier)) }),
    // The price evaluator broadcasts the change to every daemon; the screen evaluators listen too.
    onChange: async (id) => void (await Promise.all([realtime.alertEvaluator.changed(id), screenAlertEvaluator.reload(id)])),
  });
  const portfolio = createPortfolioService({
    db: store.db, holdings: store.holdings, transactions: store.transactions, stocks: store.stocks, prices: store.prices,
    index: store.index, riskFreeRate: config.risk_free_rate, clock, logger, liveQuote: (code) => quotes.getQuote(code),
  });
  const importRoots = importRootsOf(config);
  const marketState = async () => ({ content: await store.marketData.content(), stocks: await store.stocks.count() });
  return [
    (api) => registerAuthRoutes(api, { auth: ctx.auth.service, users }),
    (api) => registerAdminUserRoutes(api, { users }),
    (api) => registerLoadtestExemptionRoutes(api, { users, logger }),
    (api) => registerStockRoutes(api, { ...store, snapshot, liveQuote: async (code) => {
      const q = await quotes.getQuote(code).catch(() => null);
      return q && toLiveQuote(q);
    } }),
    (api) => registerPortfolioRoutes(api, { portfolio }),
    (api) => registerAlertRoutes(api, { alerts: alertService }),
    (api) => registerAdminTickRoutes(api, { feed: realtime.feed }),
    (api) => registerWsRoutes(api, { gateway: realtime.gateway }),
    (api) => registerScreenRoutes(api, { screens, snapshot, liveSnapshot: () => liveScreens.liveSnapshot() }),
    (api) => registerLiveScreenRoutes(api, { registry: liveScreens.registry }),
    (api) => registerPresetRoutes(api, { presets: store.presets, screens, onChange: (id) => screenAlertEvaluator.presetChanged(id) }),
    (api) => registerBacktestRoutes(api, { backtests: screening.backtestService }),
    (api) => registerAdminJobRoutes(api, {
      jobs: ctx.jobs.market, ...importRoots, idempotency: createIdempotencyStore(ctx.redis.commands, (...parts) => ctx.redis.factory.key(...parts), 'admin-jobs'),
      marketState,
    }),
    (api) => registerAdminSourceRoutes(api, {
      registry: ctx.sources.registry, drivers: ctx.sources.drivers, jobs: ctx.jobs.market, now: () => clock.now(), marketState,
    }),
    (api) => registerAdminUploadRoute(api, { dir: importRoots.uploadsDir, maxBytes: config.upload_max_bytes }),
    (api) => registerAdminExportRoute(api, store),
    (api) => registerChannelRoutes(api, { channels: notify.channelService }),
    (api) => registerDeliveryRoutes(api, { deliveries: store.deliveries, service: notify.deliveryService }),
    (api) => registerScheduleRoutes(api, { schedules: notify.scheduleService }),
  ];
}

/** Build the rate limiter and the express app (not yet listening). */
export function buildHttp(ctx: RouteContext, sources: HttpSources): HttpContext {
  const { config, logger, metrics, clock } = ctx.core;
  const { tokens, guard, revocations } = ctx.auth;
  const { users } = ctx.store;
  const limiter = createRateLimiter({
    guard, key: ctx.redis.factory.key, config: config.rate_limit, logger, metrics,
    clock: sources.limiterClock,
    authGuard: { tokens, users, clock },
    revocationKey: revocations.key,
  });
  const http = buildApp({
    logger, metrics, tokens, users,
    bodyLimit: config.body_limit,
    trustProxy: config.trust_proxy,
    version: VERSION,
    isDraining: sources.isDraining,
    registrars: registrarsOf(ctx),
    limiter: limiter.forRoute,
    metricsAccess: { public: config.metrics_public, token: config.metrics_token },
    docTags: [{ name: 'websocket', description: WS_PROTOCOL_DOC }],
    health: healthChecks(ctx),
  });
  for (const name of limiter.unusedEndpointLimits()) logger.warn({ endpoint: name }, 'rate_limit.endpoints names a route that does not exist: ignored');
  return { ...http, limiter };
}

/** What /health reads: the real feed's freshness, stale sources, the database, Redis, a market load under way. */
function healthChecks(ctx: RouteContext): Parameters<typeof buildApp>[0]['health'] {
  const { realtime } = ctx;
  const { commands } = ctx.redis;
  return {
    feed: () => {
      const kis = realtime.kis;
      if (!kis) return null;
      const f = kis.freshness();
      const success = f.record?.last_success_at;
      return {
        source: 'kis', stale: f.stale, stale_reason: f.stale_reason, session: realtime.marketClock.session(),
        last_success_at: success ? new Date(success).toISOString() : null, leader: realtime.feed.isLeader(),
      };
    },
    // Read at most once a second (a source goes stale over hours; health checks may come many
    // times a second): liveness must not wait on the database and Redis under every probe.
    degraded: readAtMostEvery(1000, async () => (await ctx.sources.registry.statuses()).filter((s) => s.stale).map((s) => `source ${s.name} stale: ${s.stale_reason ?? ''}`)),
    pingDb: () => ctx.store.db.ping().then(() => true, () => false),
    marketLoad: marketLoadProbe(ctx.jobs.market),
    pingRedis: async () => {
      if (commands.status !== 'ready') return false;
      try {
        return (await withTimeout(commands.ping(), 1000)) === 'PONG';
      } catch {
        return false;
      }
    },
  };
}

/**
 * The market load running now, for /health: read from the job queue at most once a second (health
 * checks may come often) and within 500 ms (a slow Redis must not slow the liveness answer much).
 */
function marketLoadProbe(jobs: MarketJobs): () => Promise<MarketLoadHealth | null | undefined> {
  let cached: { at: number; value: Promise<MarketLoadHealth | null | undefined> } | undefined;
  const read = async (): Promise<MarketLoadHealth | null> => {
    // Plain reads of the queue's lists and the job's hash (no Lua script, unlike the jobs API's
    // listing): a few round trips, and they answer even while Redis refuses writes.
    const client = (await jobs.queue.client) as unknown as {
      lindex(key: string, i: number): Promise<string | null>;
      hmget(key: string, ...fields: string[]): Promise<(string | null)[]>;
    };
    const activeId = await client.lindex(jobs.queue.toKey('active'), -1);
    const id = activeId ?? (await client.lindex(jobs.queue.toKey('wait'), -1));
    if (!id) return null;
    const [data, progress] = await client.hmget(jobs.queue.toKey(id), 'data', 'progress');
    if (!data) return null;
    const type = (JSON.parse(data) as { type: MarketLoadHealth['type'] }).type;
    const parsed: unknown = activeId && progress ? JSON.parse(progress) : null;
    const p = parsed && typeof parsed === 'object' ? (parsed as Partial<JobProgress>) : null;
    return { type, phase: p?.phase ?? (activeId ? 'plan' : 'queued'), done: p?.done ?? 0, total: p?.total ?? 0, rows_ok: p?.rows_ok ?? 0 };
  };
  return () => {
    const now = Date.now();
    if (!cached || now - cached.at >= 1000) cached = { at: now, value: withTimeout(read(), 500).catch(() => undefined) };
    return cached.value;
  };
}

/** `read`, called at most once per `ms`: callers within that time share the last call's promise. */
function readAtMostEvery<T>(ms: number, read: () => Promise<T>): () => Promise<T> {
  let cached: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (!cached || now - cached.at >= ms) cached = { at: now, value: read() };
    return cached.value;
  };
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
