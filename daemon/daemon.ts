/**
 * buildDaemon(config) wires every part, area by area (daemon/wiring/), opening storage and
 * connections but running nothing; `listen()` starts the parts in the order they were built and
 * `close()` stops them in the reverse order (daemon/infra/parts.ts: every stop runs, whatever the
 * ones before it did, bounded by `shutdown_timeout_ms`). The parts, in starting order:
 *
 *   database, redis, notifier          (wiring/core.ts)
 *   redis guard                        (wiring/auth.ts)
 *   bus                                (wiring/realtime.ts)
 *   backtests                          (wiring/market.ts: their worker and queue)
 *   sources                            (wiring/sources.ts)
 *   jobs                               (wiring/market.ts: the market queue's workers)
 *   deliveries                         (wiring/notify.ts)
 *   price alerts, live screens,
 *   screen alerts, feed                (wiring/realtime.ts; the tick pipeline reads the bus)
 *   http, ws, as-of preload            (here)
 *
 * So closing takes WebSockets first (open sockets keep the HTTP server waiting; sessions are
 * saved on close), then HTTP, the feed, the alerts (claimed firings recorded and published while
 * the bus is open), deliveries (the firings' deliveries are queued by then), jobs (a load under
 * way rolls back and goes back to the queue), backtests, the bus, and Redis and the database last.
 * What was built is the context, by role (wiring/context.ts: core, redis, store, auth, screening,
 * jobs, realtime, notify, sources, http). createDaemon(config) → { start, close, url, address,
 * context } wraps build and listen for main.ts and the tests (port 0, a temp data dir, their own Redis prefix).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { answerClientErrors } from './http/client-errors.js';
import { clientAddressOf } from './http/client-address.js';
import { systemClock, type Clock } from './infra/clock.js';
import { createConfiguredLogger } from './infra/logger.js';
import { createPartList, type PartList } from './infra/parts.js';
import { buildAuth } from './wiring/auth.js';
import { SAMPLE_UNIVERSE_SIZE } from '../loaders/sample-market.js';
import { buildCore } from './wiring/core.js';
import { buildHttp } from './wiring/http.js';
import { buildJobs, buildScreening } from './wiring/market.js';
import { buildNotify, type NotifyOverrides } from './wiring/notify.js';
import { buildBus, buildRealtime } from './wiring/realtime.js';
import { buildStore } from './wiring/store.js';
import { buildSources, registerSourceMetrics } from './wiring/sources.js';
import { kisRegistryProvider } from './wiring/kis.js';
import { createSnapshotVersions } from './wiring/snapshot-version.js';
import type { DaemonContext, HttpContext, NotifyContext } from './wiring/context.js';

export type { DaemonContext } from './wiring/context.js';

/** Replaceable parts, for tests and embedding. */
export interface DaemonOverrides {
  clock?: Clock;
  logger?: Logger;
  /** Notification seams (outbound name resolution). */
  notify?: NotifyOverrides;
}

/** A wired daemon that does not listen yet. */
export interface BuiltDaemon {
  readonly context: DaemonContext;
  /** Start every part in order (the HTTP server listens on config.host:config.port among them). @throws when a part cannot start (the port is taken) */
  listen(): Promise<AddressInfo>;
  /** Graceful, idempotent shutdown: the parts stop in the reverse order. */
  close(): Promise<void>;
  /** The parts' names, in starting order. */
  parts(): string[];
}

/**
 * Wire every part. Opens the database and Redis; runs and serves nothing until listen().
 * @throws whatever prevented the build; what was already opened is closed first
 */
export async function buildDaemon(config: Config, overrides: DaemonOverrides = {}): Promise<BuiltDaemon> {
  const logger = overrides.logger ?? createConfiguredLogger(config);
  const list = createPartList();
  let draining = false;
  const server = createServer();
  let context: DaemonContext;
  try {
    context = await wire(config, { ...overrides, logger }, list, () => draining);
    attachServer(server, context, list);
  } catch (err) {
    await list.stop(logger, { level: 'warn', message: 'cleanup after a failed start failed' });
    throw err;
  }
  server.on('error', (err) => logger.error({ err }, 'http server error'));
  answerClientErrors(server);
  let closing: Promise<void> | undefined;

  async function shutdown(): Promise<void> {
    draining = true;
    // Bounded: the parts are stopped (or left behind) a little before shutdown_timeout_ms, which
    // leaves the launcher time to exit whatever is still pending.
    const bound = config.shutdown_timeout_ms;
    await list.stop(logger, { deadline: Date.now() + bound - Math.min(3000, bound / 5) });
    logger.info('stockscreend stopped');
  }

  return {
    context,
    async listen() {
      await list.start();
      return server.address() as AddressInfo;
    },
    close: () => (closing ??= shutdown()),
    parts: () => list.names(),
  };
}

/** Build every role, area by area, each over the roles built before it (the parts' order is the list's). */
async function wire(config: Config, overrides: DaemonOverrides & { logger: Logger }, list: PartList, isDraining: () => boolean): Promise<DaemonContext> {
  const clock = overrides.clock ?? systemClock;
  const base = await buildCore(config, { clock, logger: overrides.logger, connectionName: 'api' }, list);
  // A firing's claim records its deliveries (the outbox); alerts fire only once every part is built and started.
  let deliveries: NotifyContext['deliveryService'] | undefined;
  const store = buildStore(base, { firingRecorded: (tx, record) => deliveries!.recordFiringItems(tx, record) });
  const { core, redis } = base;
  const auth = await buildAuth({ core, redis, store }, list);
  const bus = buildBus(base, list);
  const { screening, backtestJobs } = await buildScreening({ core, redis, store }, list);
  // Before the real-time parts, so a real-time feed can register its status provider in sources.registry.
  const sources = buildSources({ core, redis, store });
  list.add({ name: 'sources', stop: () => sources.close() });
  registerSourceMetrics(core.metrics.registry, sources, () => clock.now());
  const versions = createSnapshotVersions({ snapshot: screening.snapshot, swaps: screening.swaps, notifier: redis.notifier, logger: core.logger });
  versions.listen();
  // This instance is up to date before the job completes; others hear it over pub/sub.
  const marketJobs = await buildJobs(base, store.marketData, config.workers, (run) => versions.computedHere(run.version), list, sources);
  const { notify, deliveryJobs } = buildNotify({ core, redis, store, screening }, list, overrides.notify);
  deliveries = notify.deliveryService;
  const jobs = { market: marketJobs, backtest: backtestJobs, delivery: deliveryJobs };
  let app: HttpContext['app'] | undefined;
  // The address express would see (req.ip): the same `trust_proxy` rule as the HTTP rate limits.
  const realtime = buildRealtime({ core, redis, store, auth, screening }, bus, (req) => clientAddressOf(app!, req), list, (eventId) => notify.deliveryService.onFiring(eventId));
  if (realtime.kis) sources.registry.registerSourceStatus('kis', kisRegistryProvider(realtime.kis.statusProvider));
  const roles = { core, redis, store, auth, screening, jobs, realtime, notify, sources };
  const http = buildHttp(roles, { isDraining, limiterClock: overrides.clock });
  app = http.app;
  return { ...roles, http };
}

/** The parts `http`, `ws` and `as-of preload`: the server serves the app, the gateway upgrades on it. */
function attachServer(server: Server, ctx: DaemonContext, list: PartList): void {
  const { config, logger } = ctx.core;
  server.on('request', ctx.http.app);
  list.add({
    name: 'http',
    start: () => listenOn(server, config),
    stop: (ms) => closeServer(server, Math.min(5000, ms / 2)),
  });
  list.add({ name: 'ws', start: () => ctx.realtime.gateway.attach(server), stop: () => ctx.realtime.gateway.close() });
  // as_of_preload: the history and common series are read in the background (not awaited: a job's completion does not wait for them).
  const preloadAsOf = () => {
    if (config.as_of_preload) void ctx.screening.asOf.warmed().catch((err: Error) => logger.warn({ err }, 'as-of preload failed'));
  };
  ctx.screening.swaps.on(preloadAsOf);
  list.add({ name: 'as-of preload', start: preloadAsOf });
}

/** Listen on config.host:config.port. @throws when the port is taken */
function listenOn(server: Server, config: Config): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A backlog sized for every client reconnecting at once after a restart (Node's default, 511,
    // resets the rest of such a storm); the kernel caps it at net.core.somaxconn.
    server.listen({ port: config.port, host: config.host, backlog: config.listen_backlog }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** A running (or runnable) daemon. */
export interface Daemon {
  /** Build, listen, load the sample when asked and the database is empty. @throws when the database cannot be opened or the port is taken */
  start(): Promise<void>;
  /** Graceful, idempotent shutdown. */
  close(): Promise<void>;
  /** Base URL once listening, e.g. http://127.0.0.1:8000. */
  url(): string;
  address(): AddressInfo;
  /** Built parts (after start). */
  context(): DaemonContext;
}

/** Create the daemon (nothing is opened until start()). */
export function createDaemon(config: Config, overrides: DaemonOverrides = {}): Daemon {
  let built: BuiltDaemon | undefined;
  let address: AddressInfo | undefined;
  let closing: Promise<void> | undefined;

  async function start(): Promise<void> {
    built = await buildDaemon(config, overrides);
    try {
      address = await built.listen();
    } catch (err) {
      await built.close();
      throw err;
    }
    const { logger } = built.context.core;
    logger.info({ url: url() }, `stockscreend listening on ${url()}`);
    await loadSampleWhenEmpty(built.context);
  }

  function addressOf(): AddressInfo {
    if (!address) throw new Error('daemon is not listening');
    return address;
  }

  function url(): string {
    const { address: host, port, family } = addressOf();
    return `http://${family === 'IPv6' ? `[${host}]` : host}:${port}`;
  }

  return {
    start,
    close: () => (closing ??= built ? built.close() : Promise.resolve()),
    url,
    address: addressOf,
    context() {
      if (!built) throw new Error('daemon not started');
      return built.context;
    },
  };
}

/** `--sample`: queue the sample market load when the database has no stocks. */
async function loadSampleWhenEmpty(ctx: DaemonContext): Promise<void> {
  const { config, logger } = ctx.core;
  if (!config.sample || (await ctx.store.stocks.count()) !== 0) return;
  const request = {
    type: 'load-sample' as const, seed: config.sample_seed, compute: true, replace: false,
    // A size above the listed universe means all of it.
    ...(config.sample_stocks !== undefined ? { stocks: Math.min(config.sample_stocks, SAMPLE_UNIVERSE_SIZE) } : {}),
    ...(config.sample_days !== undefined ? { days: config.sample_days } : {}),
  };
  const job = await ctx.jobs.market.enqueue(request, null).catch((err: Error) => {
    logger.warn({ err: err.message }, 'could not enqueue the sample market load');
    return null;
  });
  if (job) logger.info({ job: job.id }, 'database empty: loading the sample market (follow with `stockscreen jobs show`)');
}

/** Stop listening; requests still open after `forceAfterMs` have their connections dropped. */
function closeServer(server: Server, forceAfterMs: number): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), forceAfterMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
