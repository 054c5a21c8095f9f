/**
 * As-of snapshots on demand (issue 23): the market's history is read once per data version
 * (reloaded when the live snapshot's version changes), and each date's snapshot is built once
 * and kept in a memory-bounded LRU keyed by (date, data version), so a warm as-of screen costs
 * what a screen of the live snapshot costs. Concurrent requests for one date share one build.
 */
import { invalidRequest } from '../errors.js';
import type { Snapshot } from '../screening/snapshot.js';
import { createTimeSlicer } from '../screening/time-slicer.js';
import { buildAsOfSnapshot } from './as-of-snapshot.js';
import type { MarketHistory } from './market-history.js';
import type { AsOfDepth } from './point-indicators.js';
import { dayOnOrBefore } from './market-history.js';

/** Bytes of as-of snapshots kept (least recently used dropped first). */
export const AS_OF_CACHE_BYTES = 256 * 1024 * 1024;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Collaborators of the as-of service. */
export interface AsOfServiceDeps {
  /** The current data version (the live snapshot's). */
  version(): string;
  /** Read the market's history at `version`. */
  loadHistory(version: string): Promise<MarketHistory>;
  /** Cache budget in bytes (default AS_OF_CACHE_BYTES). */
  cacheBytes?: number;
}

/** A resolved as-of date. */
export interface AsOfDay {
  history: MarketHistory;
  /** Index into history.dates. */
  day: number;
  /** The trading date used: the last on or before the one asked for. */
  date: string;
}

/** The as-of snapshot provider. */
export interface AsOfService {
  /** The market's history at the current data version (read on first use). */
  history(): Promise<MarketHistory>;
  /**
   * The trading day `date` resolves to. @throws AppError INVALID_REQUEST (details.as_of) when the
   * date is malformed, before the first loaded date or after the last, or nothing is loaded
   */
  resolve(date: string, field?: string): Promise<AsOfDay>;
  /** The as-of snapshot of `date` (resolved as `resolve` does). @throws like resolve */
  snapshotAt(date: string): Promise<{ snapshot: Snapshot; date: string }>;
  /**
   * The snapshot of an already resolved day; 'point' holds only what needs no price history
   * (point-indicators.ts); `fields` limits the columns it holds (default every indicator).
   */
  snapshotOf(at: AsOfDay, depth?: AsOfDepth, fields?: readonly string[]): Promise<Snapshot>;
  /** Figures for the benchmark and logs. */
  stats(): { cached: number; bytes: number; builds: number };
}

/** Rough bytes of a snapshot (columns dominate: 9 bytes a value). */
export function snapshotBytes(s: Snapshot): number {
  return s.size * (s.fields.length * 9 + 200) + 4096;
}

/** Create the as-of service. */
export function createAsOfService(deps: AsOfServiceDeps): AsOfService {
  const budget = deps.cacheBytes ?? AS_OF_CACHE_BYTES;
  let loaded: { version: string; history: Promise<MarketHistory> } | undefined;
  const cache = new Map<string, { snapshot: Promise<Snapshot>; bytes: number }>();
  let bytes = 0;
  let builds = 0;

  function history(): Promise<MarketHistory> {
    const version = deps.version();
    if (loaded?.version !== version) {
      const promise = deps.loadHistory(version);
      loaded = { version, history: promise };
      // A failed read is not kept: the next request tries again.
      promise.catch(() => {
        if (loaded?.history === promise) loaded = undefined;
      });
      for (const key of cache.keys()) if (!key.endsWith(`|${version}`)) drop(key);
    }
    return loaded.history;
  }

  function drop(key: string): void {
    const e = cache.get(key);
    if (!e) return;
    bytes -= e.bytes;
    cache.delete(key);
  }

  async function resolve(date: string, field = 'as_of'): Promise<AsOfDay> {
    if (!DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) {
      throw invalidRequest(`${field} must be a date YYYY-MM-DD`, { [field]: 'must be a date YYYY-MM-DD, e.g. 2025-06-30' });
    }
    const h = await history();
    const first = h.dates[0];
    const last = h.dates[h.dates.length - 1];
    if (first === undefined || last === undefined) throw invalidRequest('no market data is loaded', { [field]: 'no market data is loaded' });
    if (date < first) throw invalidRequest(`${field} is before the first loaded date`, { [field]: `must be on or after ${first}, the first loaded date` });
    if (date > last) throw invalidRequest(`${field} is after the last loaded date`, { [field]: `must be on or before ${last}, the last loaded date` });
    const day = dayOnOrBefore(h.dates, date);
    return { history: h, day, date: h.dates[day] ?? first };
  }

  function snapshotOf(at: AsOfDay, depth: AsOfDepth = 'full', fields?: readonly string[]): Promise<Snapshot> {
    const key = `${at.date}|${depth}|${fields ? [...new Set(fields)].sort().join(',') : '*'}|${at.history.version}`;
    const hit = cache.get(key);
    if (hit) {
      // Refresh its place: Map order is the LRU order.
      cache.delete(key);
      cache.set(key, hit);
      return hit.snapshot;
    }
    builds++;
    const slicer = createTimeSlicer();
    const snapshot = buildAsOfSnapshot(at.history, at.day, () => slicer.checkpoint(), depth, fields);
    const entry = { snapshot, bytes: 0 };
    cache.set(key, entry);
    snapshot.then(
      (s) => {
        if (cache.get(key) !== entry) return;
        entry.bytes = snapshotBytes(s);
        bytes += entry.bytes;
        while (bytes > budget && cache.size > 1) drop(cache.keys().next().value as string);
      },
      () => drop(key),
    );
    return snapshot;
  }

  return {
    history,
    resolve,
    snapshotOf,
    async snapshotAt(date) {
      const at = await resolve(date);
      return { snapshot: await snapshotOf(at), date: at.date };
    },
    stats: () => ({ cached: cache.size, bytes, builds }),
  };
}
