/**
 * The one path of every tick the feed produces or takes in (simulated, ingested, from a real
 * source): write the live quotes, run `onTick` (alert evaluation), publish on the market bus.
 */
import type { Logger } from 'pino';
import { encodeEvent, type MarketBus } from '../bus.js';
import type { MarketEvent, PriceEvent } from '../../kernel/events.js';
import type { QuoteStore } from './quote-store.js';

/** Events of one step stored, evaluated and published together (each code's events stay in order: chunks go one after another). */
const DELIVER_CHUNK = 250;

/** Whether a market event is a price. */
export const isPrice = (e: MarketEvent): e is PriceEvent => e.type === 'price';

/** Collaborators of the tick path. */
export interface TickPathDeps {
  quotes: Pick<QuoteStore, 'put'>;
  bus: Pick<MarketBus, 'publishMany'>;
  /** Runs on every batch of price events before they are published (alerts). Failures are logged. */
  onTick?(events: PriceEvent[]): Promise<void>;
  logger: Logger;
}

/** The tick path and what went through it. */
export interface TickPath {
  /** Quotes, alerts, bus, in that order, for each chunk of `events`. */
  deliver(events: MarketEvent[]): Promise<void>;
  /** Events published so far. */
  published(): number;
}

/** Create the tick path. */
export function createTickPath(deps: TickPathDeps): TickPath {
  let published = 0;

  async function deliverChunk(events: MarketEvent[]): Promise<void> {
    // Each event encoded once, for the quotes and the bus alike.
    const encoded = events.map(encodeEvent);
    await deps.quotes.put(events, encoded);
    const prices = events.filter(isPrice);
    if (deps.onTick && prices.length) {
      try {
        await deps.onTick(prices);
      } catch (err) {
        deps.logger.error({ err }, 'onTick (alert evaluation) failed; the ticks are still published');
      }
    }
    await deps.bus.publishMany(events, encoded);
    published += events.length;
  }

  return {
    /**
     * DELIVER_CHUNK events at a time: a full market's step is thousands of events, and each
     * chunk's Redis round trips give the event loop a turn, so the requests arriving meanwhile
     * wait for one chunk's encoding, not the whole step's.
     */
    async deliver(events) {
      for (let i = 0; i < events.length; i += DELIVER_CHUNK) await deliverChunk(events.length <= DELIVER_CHUNK ? events : events.slice(i, i + DELIVER_CHUNK));
    },
    published: () => published,
  };
}
