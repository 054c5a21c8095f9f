/**
 * The tick pipeline: the stages every batch of ticks goes through, in this written order.
 *
 * On the daemon that produces the ticks (market/feed/feed.ts `deliver`, the one path of
 * simulated, ingested and provider ticks):
 *   1. quotes: the live quotes are written;
 *   2. price alerts: the evaluator is handed the batch (`priceAlerts`, the feed's onTick);
 *   3. the market bus: one Redis stream every daemon reads.
 * On every daemon, for each event read from the bus (`consume`, the one bus subscription):
 *   4. live screens, under the event's cause: the live view takes the tick and each screen it
 *      moves tells its listeners there and then;
 *   5. screen alerts: they are among those listeners, so a change they hear in stage 4 is
 *      claimed as `<code>@tick:<bus id>`, the same on every daemon;
 *   6. fan-out: the event to the WebSocket hub (a tick's screen_update is queued before its
 *      price_update, since stage 4 ran first).
 * A snapshot swap is not a tick: it arrives by the snapshot swap event (snapshot-version.ts),
 * between two events, and its changes are the snapshot's.
 */
import type { Logger } from 'pino';
import type { ScreenAlertCauses } from '../alerts/screen-alert-rules.js';
import type { MarketEvent, PriceEvent } from '../kernel/events.js';
import type { LiveScreens } from '../live/runtime.js';
import type { StreamMarketBus } from '../market/bus.js';

/** A stage that hears every bus event (the WebSocket hub). */
export type BusHandler = (id: string, event: MarketEvent) => void;

/** Collaborators of the pipeline. */
export interface TickPipelineDeps {
  bus: Pick<StreamMarketBus, 'subscribe'>;
  /** Stage 2 (on the producing daemon): price alerts; it must not delay the ticks. */
  priceAlerts(events: PriceEvent[]): Promise<unknown>;
  /** Stage 4: the live screens (set once they are built). */
  live(): Pick<LiveScreens, 'onEvent'> | undefined;
  /** Stage 5's causes. */
  causes: ScreenAlertCauses;
  logger: Logger;
}

/** The pipeline. */
export interface TickPipeline {
  /** Stage 2, for the feed's onTick: hands the batch to the price alerts without waiting for them. */
  priceAlerts(events: PriceEvent[]): Promise<void>;
  /** Stages 4 to 6 for one bus event. */
  consume(id: string, event: MarketEvent): void;
  /**
   * The bus as the fan-out stage sees it: the gateway's `subscribe` registers it as stage 6
   * (the gateway never reads the bus on its own); every other method is the bus's.
   */
  fanOutBus<B extends Pick<StreamMarketBus, 'subscribe'>>(bus: B): B;
  /** Read the bus, from the events appended after its read loop begins. */
  start(): void;
  /** Stop reading the bus; idempotent. */
  stop(): void;
}

/** Create the pipeline (it reads nothing until start()). */
export function createTickPipeline(deps: TickPipelineDeps): TickPipeline {
  const { causes, logger } = deps;
  const fanOut = new Set<BusHandler>();
  let unsubscribe: (() => void) | undefined;

  function consume(id: string, event: MarketEvent): void {
    // Stages 4 and 5. A freshness change releases held screen changes: their firings are claimed
    // under its stream id, the same on every daemon.
    const live = deps.live();
    if (live && (event.type === 'price' || (event.type === 'market_status' && event.prices))) {
      try {
        causes.during(id, () => live.onEvent(event));
      } catch (err) {
        logger.error({ err, id }, 'live screens failed on a market event; it is still fanned out');
      }
    }
    // Stage 6.
    for (const handler of fanOut) {
      try {
        handler(id, event);
      } catch (err) {
        logger.error({ err, id }, 'market event fan-out failed');
      }
    }
  }

  return {
    priceAlerts: async (events) => void deps.priceAlerts(events).catch((err: Error) => logger.error({ err }, 'alert evaluation failed')),
    consume,
    fanOutBus(bus) {
      return {
        ...bus,
        subscribe(handler: BusHandler) {
          fanOut.add(handler);
          return () => void fanOut.delete(handler);
        },
      };
    },
    start() {
      unsubscribe ??= deps.bus.subscribe(consume);
    },
    stop() {
      unsubscribe?.();
    },
  };
}
