/** Shapes shared by the price-feed modules (simulator, ingest, quote store, runner). */
import type { Market } from '../../kernel/records.js';

/** A stock the feed can price: identity plus the base of its daily price limit. */
export interface FeedStock {
  code: string;
  name: string;
  market: Market;
  sector: string | null;
  /** Previous close (KRW): base of the day's ±30% limit and of `change`. */
  prev_close: number;
  /** Trading date of `prev_close` ('YYYY-MM-DD'), when known: lets a long-running simulator
   * tell a freshly loaded close from a stale one at the day's rollover. */
  close_date?: string;
  /** Typical day volume (shares); the simulator sizes its trades from it when given. */
  avg_volume?: number;
  /** Halted as of the latest data: the simulator leaves it alone. */
  halted?: boolean;
}

/** Looks up a stock by code (null when unknown). */
export type StockLookup = (code: string) => FeedStock | null;
