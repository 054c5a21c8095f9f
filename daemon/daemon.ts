/**
 * buildDaemon(config) wires every part, area by area (daemon/wiring/), without listening;
 * `listen()` is a separate step and `close()` shuts down in the order written in
 * daemon/infra/shutdown.ts (every step runs, whatever the ones before it did). createDaemon(config) → { start, close, url, address } wraps both for
 * main.ts and the tests (port 0, a temp data dir, their own Redis prefix).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { answerClientErrors } from './http/client-errors.js';
import { clientAddressOf } from './http/client-address.js';
import { systemClock, type Clock } from './infra/clock.js';
import { createConfiguredLogger } from './infra/logger.js';
import { closeRedis } from './infra/redis.js';
import { runShutdownSteps, type ShutdownStep } from './infra/shutdown.js';
import { buildAuth } from './wiring/auth.js';
import { SAMPLE_UNIVERSE_SIZE } from '../loaders/sample-market.js';
import { buildCore } from './wiring/core.js';
import { buildHttp } from './wiring/http.js';
import { buildJobs, buildScreening } from './wiring/market.js';
import { buildNotify, type NotifyOverrides } from './wiring/notify.js';
import { buildRealtime } from './wiring/realtime.js';
import { createSnapshotVersionHandler } from './wiring/snapshot-version.js';
import type { DaemonContext } from './wiring/context.js';

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
  /** Listen on config.host:config.port, then start the market clock and feed. @throws when the port is taken */
  listen(): Promise<AddressInfo>;
  /** Graceful, idempotent shutdown in the written order. */
  close(): Promise<void>;
}

/**
 * Wire every part. Opens the database and Redis; serves nothing until listen().
 * @throws whatever prevented the build; what was already opened is closed first
 */
export async function buildDaemon(config: Config, overrides: DaemonOverrides = {}): Promise<BuiltDaemon> {
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createConfiguredLogger(config);
  const opened: ShutdownStep[] = [];
  let context: DaemonContext;
  let draining = false;
  let preloadAsOf: () => Promise<void> = async () => undefined;
  try {
    const core = await buildCore(config, { clock, logger, connectionName: 'api' }, opened);
    const auth = await buildAuth(core, opened);
    const screening = await buildScreening(core, opened);
    const notify = await buildNotify(core, screening, opened, overrides.notify);
    let app: DaemonContext['http']['app'] | undefined;
    // The address express would see (req.ip): the same `trust_proxy` rule as the HTTP rate limits.
    const realtime = await buildRealtime(core, auth, screening, (req) => clientAddressOf(app!, req), opened, {
      firingRecorded: (tx, record) => notify.deliveries.recordFiringItems(tx, record),
      onFiring: (eventId) => notify.deliveries.onFiring(eventId),
    });
    // as_of_preload: the history and common series are read in the background (not awaited: a job's completion does not wait for them).
    preloadAsOf = async () => {
      if (config.as_of_preload) void screening.asOf.warmed().catch((err: Error) => logger.warn({ err }, 'as-of preload failed'));
    };
    const versions = createSnapshotVersionHandler({
      snapshot: screening.snapshot, notifier: core.notifier, logger,
      followers: [() => realtime.feed.refreshStocks(), () => realtime.alerts.refreshAverages(), preloadAsOf],
    });
    versions.listen();
    // This instance is up to date before the job completes; others hear it over pub/sub.
    const jobs = await buildJobs(core, screening.parts, config.workers, (run) => versions.computedHere(run.version), opened);
    const { http, limiter } = buildHttp(core, { auth, screening, realtime, jobs, notify, isDraining: () => draining, limiterClock: overrides.clock });
    app = http.app;
    context = { ...core, ...auth, ...screening.parts, ...screening, ...realtime, jobs, http, limiter, notify };
  } catch (err) {
    await runShutdownSteps(opened.reverse(), logger, 'warn', 'cleanup after a failed start failed');
    throw err;
  }
  const server = createServer(context.http.app);
  server.on('error', (err) => logger.error({ err }, 'http server error'));
  answerClientErrors(server);
  let closing: Promise<void> | undefined;

  async function listen(): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    context.gateway.attach(server);
    context.marketClock.start();
    await context.feed.start();
    await preloadAsOf();
    return server.address() as AddressInfo;
  }

  async function shutdown(): Promise<void> {
    draining = true;
    const ctx = context;
    const steps: ShutdownStep[] = [
      // WebSockets first: open sockets keep server.close() waiting, and sessions are saved to Redis on close.
      ['ws', () => ctx.gateway.close()],
      ['live screens', async () => ctx.live.close()],
      ['http', () => closeServer(server)],
      ['feed', async () => {
        ctx.marketClock.stop();
        await ctx.feed.stop();
      }],
      // Firings already claimed are recorded and published before the bus and database close.
      ['alerts', async () => {
        ctx.screenAlerts.close();
        await Promise.all([ctx.alerts.drain(), ctx.screenAlerts.drain()]);
      }],
      // Firings recorded above have queued their deliveries; the worker finishes (or gives back) its attempts.
      ['deliveries', () => ctx.notify.close()],
      ['jobs', () => ctx.jobs.close()],
      // A backtest under way stops at its next rebalance date and goes back to the queue, where
      // another daemon's worker takes it; then this daemon's worker and the queue close.
      ['backtests', async () => {
        await ctx.backtests.close();
        await ctx.backtestJobs.close();
      }],
      ['bus', () => ctx.bus.close()],
      ['notifier', () => ctx.notifier.close()],
      ['redis', () => Promise.all([closeRedis(ctx.commands), closeRedis(ctx.guard.redis)])],
      ['database', () => ctx.db.close()],
    ];
    await runShutdownSteps(steps, logger);
    logger.info('stockscreend stopped');
  }

  return { context, listen, close: () => (closing ??= shutdown()) };
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
    const { logger } = built.context;
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
  const { config, logger, jobs } = ctx;
  if (!config.sample || (await ctx.stocks.count()) !== 0) return;
  const request = {
    type: 'load-sample' as const, seed: config.sample_seed, compute: true, replace: false,
    // A size above the listed universe means all of it.
    ...(config.sample_stocks !== undefined ? { stocks: Math.min(config.sample_stocks, SAMPLE_UNIVERSE_SIZE) } : {}),
    ...(config.sample_days !== undefined ? { days: config.sample_days } : {}),
  };
  const job = await jobs.enqueue(request, null).catch((err: Error) => {
    logger.warn({ err: err.message }, 'could not enqueue the sample market load');
    return null;
  });
  if (job) logger.info({ job: job.id }, 'database empty: loading the sample market (follow with `stockscreen jobs show`)');
}

function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
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
