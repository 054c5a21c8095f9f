/**
 * The partial-update semantics of StockUpdate as pure functions, so every
 * writer (database repository, in-memory snapshot) merges the same way:
 * present keys overwrite, absent keys keep the stored value, and a new stock
 * starts from null fields and false flags.
 */
import { invalidRequest } from '../daemon/errors.js';
import type { StockRecord } from '../daemon/kernel/records.js';
import type { StockUpdate } from './types.js';

/** Defaults for a stock first seen through a partial update (name and market must be supplied). */
const NEW_STOCK: Omit<StockRecord, 'code' | 'name' | 'market'> = {
  name_english: null, sector: null, industry: null, listing_date: null, shares_outstanding: null, board: null,
  settle_month: null, is_administrative: false, is_spac: false, is_preferred: false,
};

/**
 * Applies `update` to `existing` (or creates the stock) and returns the new record.
 * @throws AppError INVALID_REQUEST when a new stock's update lacks name or market.
 */
export function applyStockUpdate(existing: StockRecord | undefined, update: StockUpdate): StockRecord {
  const present = Object.fromEntries(Object.entries(update).filter(([, v]) => v !== undefined)) as StockUpdate;
  if (existing) return { ...existing, ...present, code: existing.code };
  if (present.name === undefined || present.name === null || present.market === undefined) {
    throw invalidRequest(`stock ${update.code} is new and needs a name and a market`, { code: update.code });
  }
  return { ...NEW_STOCK, ...present, code: update.code, name: present.name, market: present.market };
}

/** Collapses many updates into one per code, later updates winning key by key (input order preserved by first appearance). */
export function collapseStockUpdates(updates: Iterable<StockUpdate>): StockUpdate[] {
  const byCode = new Map<string, StockUpdate>();
  for (const u of updates) {
    const prev = byCode.get(u.code);
    byCode.set(u.code, prev ? { ...prev, ...u } : { ...u });
  }
  return [...byCode.values()];
}
