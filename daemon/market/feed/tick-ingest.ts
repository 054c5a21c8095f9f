/**
 * External ticks (`POST /admin/ticks`, the `ticks:in` stream): validated against the live quotes,
 * sent down the tick path and, while a simulator runs, handed over to its leader. Ingests run one
 * at a time per daemon, so two requests never validate against the same stale quote.
 */
import { AppError, isAppError } from '../../errors.js';
import type { Clock } from '../../infra/clock.js';
import type { MarketEvent } from '../../kernel/events.js';
import type { Handover } from './handover.js';
import { applyTicks, ticksOf, type TickBody } from './ingest.js';
import type { QuoteStore } from './quote-store.js';
import type { StockList } from './stock-list.js';

/** Collaborators of the ingest. */
export interface TickIngestDeps {
  /** False: the feed is off and every ingest is refused. */
  enabled: boolean;
  stocks: StockList;
  quotes: Pick<QuoteStore, 'getQuotes'>;
  clock: Clock;
  deliver(events: MarketEvent[]): Promise<void>;
  /** Present while a simulator may run: ingested prices are left for its leader. */
  handover?: Handover;
}

/** The ingest of one daemon. */
export interface TickIngest {
  /**
   * Apply external ticks.
   * @throws AppError INVALID_REQUEST per tick field; SERVICE_UNAVAILABLE when the feed is off or Redis is down
   */
  ingest(body: TickBody): Promise<{ accepted: number }>;
  /** Ticks accepted so far. */
  ingested(): number;
  /** Resolves once the ingests queued so far finished (never rejects). */
  drain(): Promise<void>;
}

/** Create the ingest. */
export function createTickIngest(deps: TickIngestDeps): TickIngest {
  let chain: Promise<unknown> = Promise.resolve();
  let ingested = 0;

  async function ingestNow(body: TickBody): Promise<{ accepted: number }> {
    const { ticks, batch } = ticksOf(body);
    const codes = [...new Set(ticks.map((t) => t.code))];
    const stocks = deps.stocks;
    try {
      await stocks.refreshIfStale(codes.some((c) => !stocks.map().has(c)));
      const current = await deps.quotes.getQuotes(codes);
      const events = applyTicks(ticks, { lookup: (c) => stocks.map().get(c) ?? null, current: (c) => current.get(c) ?? null, now: deps.clock.now() }, batch);
      await deps.deliver(events);
      await deps.handover?.give(events);
    } catch (err) {
      if (isAppError(err)) throw err;
      throw new AppError('SERVICE_UNAVAILABLE', 'The market data store is unavailable; ticks were not applied', { reason: (err as Error).message });
    }
    ingested += ticks.length;
    return { accepted: ticks.length };
  }

  return {
    ingest(body) {
      if (!deps.enabled) return Promise.reject(new AppError('SERVICE_UNAVAILABLE', 'The price feed is off; start the daemon with --feed ingest or --feed simulator', { feed: 'off' }));
      const run = chain.then(() => ingestNow(body));
      chain = run.catch(() => undefined);
      return run;
    },
    ingested: () => ingested,
    drain: () => chain.then(() => undefined),
  };
}
