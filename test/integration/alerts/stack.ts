/**
 * Alert test stack: a fresh database (sqlite or PostgreSQL) with a small market, and "daemon instances" made of
 * their own handle on that database, Redis connections under one shared test prefix,
 * the real market bus and notifier, an evaluator, the alert service and (optionally) the
 * alert routes served on port 0.
 */
import { Redis } from 'ioredis';
import { createAlertService, DEFAULT_ALERT_CAPS, type AlertCaps, type AlertService } from '../../../daemon/alerts/alert-service.js';
import { createAverageVolumes } from '../../../daemon/alerts/average-volume.js';
import { createAlertEvaluator, type AlertEvaluator } from '../../../daemon/alerts/evaluator.js';
import { registerAlertRoutes } from '../../../daemon/http/routes/alerts.js';
import type { Clock } from '../../../daemon/infra/clock.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { createNotifier, type Notifier } from '../../../daemon/infra/notifier.js';
import { closeRedis, createRedisFactory, waitReady, type RedisFactory } from '../../../daemon/infra/redis.js';
import { createMarketBus, type StreamMarketBus } from '../../../daemon/market/bus.js';
import type { AlertEvent, MarketEvent, PriceEvent } from '../../../daemon/kernel/events.js';
import { createAlertsRepo, type AlertsRepo } from '../../../daemon/store/alerts-repo.js';
import { createPresetsRepo } from '../../../daemon/store/presets-repo.js';
import { createIndicatorsRepo } from '../../../daemon/store/indicators-repo.js';
import { createPricesRepo } from '../../../daemon/store/prices-repo.js';
import type { Db } from '../../../daemon/store/db.js';
import type { StoreSettings } from '../../../daemon/store/open.js';
import { openTestDb } from '../../helpers/test-store.js';
import { createStocksRepo } from '../../../daemon/store/stocks-repo.js';
import { bar, loadMarket, openTestStore, serveRoutes, stock, type TestServer, type TestStore } from '../../helpers/portfolio-harness.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';

/** The test universe. */
export const STOCKS = {
  '005930': { name: 'Samsung Electronics', market: 'KOSPI', sector: 'Semiconductors' },
  '000660': { name: 'SK hynix', market: 'KOSPI', sector: 'Semiconductors' },
  '035720': { name: 'Kakao', market: 'KOSPI', sector: 'Internet' },
} as const;
type Code = keyof typeof STOCKS;

/** A price event; change and change_percent are against a previous close of 70,000. */
export function tick(code: Code, price: number, extra: Partial<PriceEvent> = {}): PriceEvent {
  const s = STOCKS[code];
  return {
    type: 'price', code, name: s.name, market: s.market, sector: s.sector, price, change: price - 70000,
    change_percent: Math.round(((price - 70000) / 70000) * 10000) / 100, volume: 1000, trading_value: price * 1000,
    open: 70000, high: Math.max(70000, price), low: Math.min(70000, price), prev_close: 70000, ts: Date.parse('2025-03-04T01:00:00Z'), ...extra,
  };
}

/**
 * Create the shared database: three stocks; 005930 has a computed avg_volume_20 of
 * 400,000; 000660 has 20 bars of 50,000 and 150,000 shares (mean 100,000) and no indicators.
 */
export async function openAlertStore(): Promise<TestStore> {
  const store = await openTestStore('alerts');
  const dates = Array.from({ length: 20 }, (_, i) => new Date(Date.UTC(2025, 1, 3 + i)).toISOString().slice(0, 10));
  await loadMarket(store, {
    stocks: Object.entries(STOCKS).map(([code, s]) => stock(code, s.name, s.market, s.sector)),
    bars: dates.map((d, i) => bar('000660', d, 200000, i % 2 === 0 ? 50_000 : 150_000)),
  });
  await store.indicators.replaceAll(new Map([['005930', { avg_volume_20: 400_000 }]]), {
    version: 'v1', as_of: '2025-03-03', stocks: 1, duration_ms: 1, computed_at: new Date().toISOString(),
  });
  return store;
}

/** One daemon instance's alert parts. */
export interface AlertInstance {
  db: Db;
  repo: AlertsRepo;
  redis: RedisFactory;
  commands: Redis;
  bus: StreamMarketBus;
  notifier: Notifier;
  evaluator: AlertEvaluator;
  service: AlertService;
  server?: TestServer;
  /** Alert events on the bus so far. */
  published(): Promise<AlertEvent[]>;
  close(): Promise<void>;
}

/** Options of an instance. */
export interface InstanceOptions {
  prefix: string;
  clock: Clock;
  caps?: AlertCaps;
  /** Serve the alert routes (over `store`'s accounts). */
  serve?: TestStore;
  /** Wrap the repository the evaluator sees (to observe its calls). */
  wrapRepo?(repo: AlertsRepo): AlertsRepo;
  /** Publish replacement (defaults to the real bus). */
  publish?(bus: StreamMarketBus, repo: AlertsRepo): (event: AlertEvent) => Promise<unknown>;
}

/** Start an instance with its own handle on the database of `settings`. */
export async function startInstance(settings: StoreSettings & { data_dir: string }, options: InstanceOptions): Promise<AlertInstance> {
  const logger = createLogger('silent');
  const handle = await openTestDb('alerts', settings);
  const { db } = handle;
  const repo = createAlertsRepo(db);
  const redis = createRedisFactory({ url: testRedisUrl(), prefix: options.prefix, logger });
  const commands = redis.connect('command', 'alerts-test');
  await waitReady(commands, 5000);
  const bus = createMarketBus({ redis, logger, maxLen: 10_000 });
  const notifier = createNotifier(redis, commands, logger);
  const evaluator = createAlertEvaluator({
    alerts: options.wrapRepo ? options.wrapRepo(repo) : repo,
    publish: options.publish ? options.publish(bus, repo) : (e) => bus.publish(e),
    notifier,
    averageVolumes: createAverageVolumes({ indicators: createIndicatorsRepo(db), prices: createPricesRepo(db) }),
    clock: options.clock,
    logger,
  });
  await evaluator.start();
  const service = createAlertService({ alerts: repo, stocks: createStocksRepo(db), presets: createPresetsRepo(db), caps: options.caps ?? DEFAULT_ALERT_CAPS, onChange: (id) => evaluator.changed(id) });
  const server = options.serve ? await serveRoutes(options.serve, [(api) => registerAlertRoutes(api, { alerts: service })]) : undefined;
  return {
    db, repo, redis, commands, bus, notifier, evaluator, service, server,
    async published() {
      const entries: [string, MarketEvent][] = await bus.range('0-0', 10_000);
      return entries.map(([, e]) => e).filter((e): e is AlertEvent => e.type === 'alert');
    },
    async close() {
      await server?.close();
      await notifier.close();
      await bus.close();
      await closeRedis(commands);
      await handle.close();
    },
  };
}

/** A unique Redis prefix for one test, and its cleanup. */
export function redisPrefix(label: string): { prefix: string; cleanup(): Promise<void> } {
  const prefix = testPrefix(label);
  return { prefix, cleanup: () => deleteKeys(testRedisUrl(), prefix) };
}

/** Subscribers on the alerts channel (to await another instance's subscription). */
export async function alertSubscribers(instance: AlertInstance): Promise<number> {
  const [, n] = (await instance.commands.pubsub('NUMSUB', instance.redis.key('notify', 'alerts'))) as [string, number];
  return Number(n);
}
