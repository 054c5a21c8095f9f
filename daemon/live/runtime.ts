/**
 * The live screens of one daemon, wired: the engine fed the market bus's events by the tick
 * pipeline (every daemon reads the shared tick stream and evaluates the screens of its own
 * connections), swapped onto each new indicator snapshot when the snapshot swaps (no polling),
 * seeded with the live quotes known at start, the registry leases renewed, and an idempotent close.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Tier } from '../kernel/roles.js';
import type { MarketEvent, PriceEvent } from '../kernel/events.js';
import type { Snapshot } from '../screening/engine/snapshot.js';
import { createLiveScreenEngine, type LiveScreenEngine } from './engine.js';
import { createLiveService, type LiveScreening, type LiveScreenLimit, type LiveService } from './live-service.js';
import { createLiveRegistry, type LiveRegistry } from './registry.js';
import type { RerunBudget } from './rerun-scheduler.js';

/** Collaborators of the live screens. */
export interface LiveScreensDeps {
  /** The indicator snapshot at build time; later ones arrive by `onSnapshot`. */
  snapshot(): Snapshot;
  /** Latest live quotes of these stocks (seeding at start). */
  quotes(codes: string[]): Promise<PriceEvent[]>;
  /** The screen service's parse and template calls (live-service.ts). */
  screens: LiveScreening;
  presetQuery(userId: string, id: string): Promise<Record<string, unknown> | null>;
  redis: Redis;
  key(...parts: string[]): string;
  logger: Logger;
  limits: Readonly<Record<Tier, LiveScreenLimit>>;
  daemonId: string;
  now(): number;
  /** Lease of a registry entry (default 60 s; renewed every third). */
  leaseMs?: number;
  /** What the whole lists' re-runs may spend (rerun-scheduler.ts; defaults there). */
  rerun?: RerunBudget;
}

/** The running live screens. */
export interface LiveScreens {
  readonly engine: LiveScreenEngine;
  readonly service: LiveService;
  readonly registry: LiveRegistry;
  /** The live view's snapshot, brought up to the current indicator snapshot first. */
  liveSnapshot(): Snapshot;
  /** One market bus event, in stream order (the tick pipeline's live stage). */
  onEvent(event: MarketEvent): void;
  /** A new indicator snapshot: every screen re-evaluated on it now (the snapshot swap event). */
  onSnapshot(snapshot: Snapshot): void;
  /** Load the live quotes already known and begin renewing the registry leases (once the bus is read); never throws. */
  start(): Promise<void>;
  /** Stop renewing and re-running; idempotent. */
  close(): void;
}

/** Create the live screens (nothing runs until start()). */
export function createLiveScreens(deps: LiveScreensDeps): LiveScreens {
  const engine = createLiveScreenEngine(deps.snapshot(), deps.rerun ? { rerun: deps.rerun } : {});
  const leaseMs = deps.leaseMs ?? 60_000;
  const registry = createLiveRegistry({ redis: deps.redis, key: deps.key, logger: deps.logger, leaseMs });
  const service = createLiveService({
    engine, registry, screens: deps.screens, presetQuery: deps.presetQuery, limits: deps.limits, daemonId: deps.daemonId, now: deps.now,
  });
  const ticked = new Set<string>();
  let renewTimer: NodeJS.Timeout | undefined;
  let closed = false;
  return {
    engine,
    service,
    registry,
    liveSnapshot: () => engine.view().snapshot,
    onEvent(event) {
      // The real feed's freshness, in stream order with the ticks: every daemon holds and releases at the same point.
      if (event.type === 'market_status' && event.prices) return engine.hold(event.prices === 'stale');
      if (event.type !== 'price') return;
      ticked.add(event.code);
      engine.onTicks([event]);
    },
    onSnapshot: (snapshot) => engine.onSnapshot(snapshot),
    async start() {
      if (closed || renewTimer) return;
      renewTimer = setInterval(() => void registry.renew(service.held()), Math.max(10, Math.floor(leaseMs / 3)));
      renewTimer.unref();
      try {
        const quotes = await deps.quotes([...engine.view().base.codes]);
        // A tick that arrived while the quotes were read is newer than them.
        engine.onTicks(quotes.filter((q) => !ticked.has(q.code)));
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message }, 'live screens: live quotes not loaded; they start from the snapshot');
      }
    },
    close() {
      if (closed) return;
      closed = true;
      engine.close();
      clearInterval(renewTimer);
    },
  };
}
