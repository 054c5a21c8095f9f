/**
 * The listed stocks the feed prices: loaded at start, reloaded on demand (new data loaded) and,
 * at most every few seconds, when a tick names a code the list does not know yet.
 */
import { performance } from 'node:perf_hooks';
import type { FeedStock } from './types.js';

/** Reloads for unknown codes wait at least this long after the previous load. */
const STOCK_RELOAD_MIN_MS = 5_000;

/** The stock list of a feed. */
export interface StockList {
  /** The current list by code. */
  map(): Map<string, FeedStock>;
  /** Load the list again now. */
  refresh(): Promise<void>;
  /** Load the list again when `wanted` and the last load is a few seconds old. */
  refreshIfStale(wanted: boolean): Promise<void>;
  /** Called with every freshly loaded list (the simulator takes it). */
  onReload(listener: (list: FeedStock[]) => void): void;
}

/** Create a stock list read through `load` (empty until the first refresh). */
export function createStockList(load: () => Promise<FeedStock[]>): StockList {
  let stocks = new Map<string, FeedStock>();
  let lastReload = -Infinity;
  const listeners: Array<(list: FeedStock[]) => void> = [];

  async function refresh(): Promise<void> {
    lastReload = performance.now();
    const list = await load();
    stocks = new Map(list.map((s) => [s.code, s]));
    for (const listener of listeners) listener(list);
  }

  return {
    map: () => stocks,
    refresh,
    async refreshIfStale(wanted) {
      if (wanted && performance.now() - lastReload > STOCK_RELOAD_MIN_MS) await refresh();
    },
    onReload: (listener) => void listeners.push(listener),
  };
}
