/**
 * The KIS feed's parts on every daemon: the REST client and the shared credentials, the
 * interest board every daemon reports its watched codes to, the source the feed leader runs,
 * the freshness watch (/health, /metrics, the live screens' hold), its metrics, and the
 * `kis` source-status provider. Built only when `feed` is `kis`.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import type { Clock } from '../infra/clock.js';
import type { FeedSourceHooks, LeaderSource } from '../market/feed/feed.js';
import type { QuoteStore } from '../market/feed/quote-store.js';
import type { MarketClock } from '../market/market-clock.js';
import type { MarketStatusEvent } from '../kernel/events.js';
import { createInterestBoard, type InterestBoard } from '../market/feeds/kis/interest.js';
import { createKisSource, type KisCounters } from '../market/feeds/kis/kis-source.js';
import { createKisRest } from '../market/feeds/kis/rest-client.js';
import { createKisStatusProvider, type SourceStatusProvider } from '../market/feeds/kis/status.js';
import { freshnessOf, readKisStatus, type KisFreshness } from '../market/feeds/kis/status-record.js';
import { createKisCredentials } from '../market/feeds/kis/token-cache.js';
import type { Config } from '../config.js';

/** The KIS parts. */
export interface KisParts {
  /** The source factory the feed's lease holder runs. */
  leaderSource(hooks: FeedSourceHooks): LeaderSource;
  /** Freshness as this daemon last read it (every second). */
  freshness(): KisFreshness;
  /** Called with true/false when this daemon sees the feed go stale / fresh. */
  onFreshness(listener: (stale: boolean) => void): void;
  /** The `kis` entry of the source registry. */
  statusProvider: SourceStatusProvider;
  start(): void;
  close(): Promise<void>;
}

/** Collaborators of the KIS parts. */
export interface KisPartsDeps {
  config: Config;
  redis: Redis;
  key(...parts: string[]): string;
  clock: Clock;
  logger: Logger;
  registry: Registry;
  quotes: QuoteStore;
  marketClock: Pick<MarketClock, 'session' | 'status'>;
  publish(events: MarketStatusEvent[]): Promise<unknown>;
  daemonId: string;
  /** This daemon's connections per watched code (set once the gateway exists). */
  watchers(): Map<string, number>;
  alertCodes(): Promise<string[]>;
  /** A listed code for `sources test kis`. */
  sampleCode(): string | undefined;
}

function countersOf(registry: Registry): KisCounters {
  const calls = new Counter({ name: 'stockscreen_kis_calls_total', help: 'KIS REST calls by kind and outcome (ok, rate_limited = EGW00201, token_expired = EGW00123, error)', labelNames: ['kind', 'outcome'], registers: [registry] });
  const rejected = new Counter({ name: 'stockscreen_kis_rejected_total', help: 'Provider records not taken, by reason (bad_layout, zero_price, bad_number, unknown_code, off_grid, outside_limit, volume_back, undecryptable)', labelNames: ['reason'], registers: [registry] });
  const sweeps = new Counter({ name: 'stockscreen_kis_sweeps_total', help: 'Whole-market REST sweeps completed by this daemon', registers: [registry] });
  const sweepSeconds = new Gauge({ name: 'stockscreen_kis_last_sweep_seconds', help: 'Wall time of the last sweep', registers: [registry] });
  const sweepChanges = new Gauge({ name: 'stockscreen_kis_last_sweep_changes', help: 'Stocks whose quote changed in the last sweep', registers: [registry] });
  return {
    calls: (kind, outcome) => calls.inc({ kind, outcome }),
    rejected: (reason) => rejected.inc({ reason }),
    sweep(ms, changes) {
      sweeps.inc();
      sweepSeconds.set(ms / 1000);
      sweepChanges.set(changes);
    },
  };
}

/** Build the KIS parts (nothing runs until start()). */
export function buildKis(deps: KisPartsDeps): KisParts {
  const { config, redis, key, clock, logger } = deps;
  const configured = Boolean(config.kis_app_key && config.kis_app_secret);
  const now = () => clock.now();
  const rest = configured ? createKisRest({ restUrl: config.kis_rest_url, appKey: config.kis_app_key!, appSecret: config.kis_app_secret!, now }) : undefined;
  const credentials = rest ? createKisCredentials({ redis, key, rest, now, intervalMs: config.kis_token_interval_ms }) : undefined;
  const interest: InterestBoard = createInterestBoard({ redis, key, daemonId: deps.daemonId, watchers: deps.watchers, alertCodes: deps.alertCodes });
  const counters = countersOf(deps.registry);
  let fresh: KisFreshness = { stale: false, stale_reason: null, record: null };
  const listeners: ((stale: boolean) => void)[] = [];
  new Gauge({
    name: 'stockscreen_feed_stale', help: '1 while the real feed\'s prices are stale (no successful sweep within twice its cadence, a silent socket, or no feed leader during a session)', registers: [deps.registry],
    collect() {
      this.set(fresh.stale ? 1 : 0);
    },
  });
  new Gauge({
    name: 'stockscreen_feed_last_success_age_seconds', help: 'Seconds since the real feed last priced anything (-1 before any)', registers: [deps.registry],
    collect() {
      const at = fresh.record?.last_success_at;
      this.set(at ? Math.max(0, (now() - at) / 1000) : -1);
    },
  });
  let timer: NodeJS.Timeout | undefined;
  let polling = false;

  async function poll(): Promise<void> {
    if (polling) return;
    polling = true;
    try {
      await interest.report();
      const next = freshnessOf(await readKisStatus(redis, key), deps.marketClock.session());
      const changed = next.stale !== fresh.stale;
      fresh = next;
      if (changed) for (const l of listeners) l(next.stale);
    } catch (err) {
      logger.debug({ err: (err as Error).message }, 'KIS freshness not read');
    } finally {
      polling = false;
    }
  }

  return {
    leaderSource(hooks) {
      if (!rest || !credentials) {
        // The configuration refuses feed=kis without a key, so this is only reached by a broken override.
        throw new Error('feed kis needs kis_app_key and kis_app_secret');
      }
      return createKisSource({
        rest, credentials, wsUrl: config.kis_ws_url, stocks: hooks.stocks, current: (codes) => deps.quotes.getQuotes(codes),
        deliver: hooks.deliver, publish: deps.publish, marketClock: deps.marketClock, interest, redis, key, instanceId: deps.daemonId,
        callsPerSecond: config.kis_rest_calls_per_s, maxRegistrations: config.kis_ws_max_registrations, silenceMs: config.kis_ws_silence_ms,
        sweepPauseMs: config.kis_sweep_pause_ms, counters, logger, now,
      });
    },
    freshness: () => fresh,
    onFreshness: (l) => void listeners.push(l),
    statusProvider: createKisStatusProvider({
      configured, redis, key, session: () => deps.marketClock.session(), now, rest, credentials, wsUrl: config.kis_ws_url, sampleCode: deps.sampleCode,
    }),
    start() {
      if (timer) return;
      timer = setInterval(() => void poll(), 1_000);
      timer.unref();
      void poll();
    },
    async close() {
      clearInterval(timer);
    },
  };
}
