/**
 * As-of snapshots on demand: the market's history is read once per data version
 * (reloaded when the live snapshot's version changes); each indicator's series over the whole
 * history is built once per data version (field-series.ts: on first use, and for the fields
 * most screens read in the background right after the history is read), so a date's snapshot
 * is a column pick (unless the series would not pay for the dates asked: then the date is
 * computed on its own, as-of-snapshot.ts seriesPay); each snapshot is kept in an LRU keyed by (date, fields, data version), so a
 * warm as-of screen costs what a screen of the live snapshot costs. Concurrent requests for one
 * date share one build. The series and the snapshots count against one memory budget
 * (screening/engine/memory-budget.ts, shared with the screen service's caches when the daemon passes
 * its own), so neither grows the process past it whatever dates and fields are asked for.
 */
import { invalidRequest } from '../errors.js';
import type { Snapshot } from '../screening/engine/snapshot.js';
import { createMemoryBudget, type MemoryBudget } from '../screening/engine/memory-budget.js';
import { createTimeSlicer } from '../screening/engine/time-slicer.js';
import { INDICATOR_IDS } from '../indicators/registry.js';
import { createLocalBuilder, type AsOfBuilder, type SeriesStats } from './as-of-builder.js';
import { SnapshotCache } from './as-of-cache.js';
import { snapshotOfColumns } from './as-of-snapshot.js';
import type { MarketHistory } from './market-history.js';
import type { AsOfDepth } from './point-indicators.js';
import { dayOnOrBefore } from './market-history.js';

/** Most bytes of as-of snapshots kept, whatever room the shared budget has (least recently used dropped first). */
export const AS_OF_CACHE_BYTES = 256 * 1024 * 1024;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Collaborators of the as-of service. */
export interface AsOfServiceDeps {
  /** The current data version (the live snapshot's). */
  version(): string;
  /** Read the market's history at `version`. */
  loadHistory(version: string): Promise<MarketHistory>;
  /** Most bytes of snapshots kept (default AS_OF_CACHE_BYTES; the shared budget may keep fewer). */
  cacheBytes?: number;
  /** The memory budget the series and snapshots count against (default: one of its own, MEMORY_BUDGET_BYTES). */
  memory?: MemoryBudget;
  /** Series built in the background once the history is read (default WARM_FIELDS; [] for none); for the default builder. */
  warmFields?: readonly (readonly string[])[];
  /**
   * Where dates' columns are computed (default: on this thread, its series counted against
   * `memory`; the daemon passes the as-of thread, as-of-thread.ts).
   */
  builder?: AsOfBuilder;
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
  /** True when the history of the current data version is read (or its read failed): `history()` then answers at once. */
  historyRead(): boolean;
  /**
   * The trading day `date` resolves to. @throws AppError INVALID_REQUEST (details.as_of) when the
   * date is malformed, before the first loaded date or after the last, or nothing is loaded
   */
  resolve(date: string, field?: string): Promise<AsOfDay>;
  /**
   * The as-of snapshot of `date` (resolved as `resolve` does), holding `fields` (default every
   * indicator: a screen passes the ones it reads). @throws like resolve
   */
  snapshotAt(date: string, fields?: readonly string[]): Promise<{ snapshot: Snapshot; date: string }>;
  /**
   * The snapshot of an already resolved day; 'point' holds only what needs no price history
   * (point-indicators.ts); `fields` limits the columns it holds (default every indicator).
   * `dates`: how many dates the caller will ask for with these fields (a backtest: its rebalance
   * dates to go; default 1), which decides whether building their series over the whole history
   * pays or the date is computed on its own (as-of-snapshot.ts seriesPay): same values either way.
   */
  snapshotOf(at: AsOfDay, depth?: AsOfDepth, fields?: readonly string[], dates?: number): Promise<Snapshot>;
  /** Figures for the benchmark and logs (`version`: of the history read or being read; `series`: of the current history, once read). */
  stats(): {
    cached: number; bytes: number; builds: number;
    /** Of `builds`, the snapshots computed date by date rather than picked from the series. */
    date_builds: number;
    version?: string; series?: SeriesStats;
  };
  /** Settles when the background series build of the current history is done (benchmarks, tests). */
  warmed(): Promise<void>;
  /** Let the builder go (the as-of thread ends); later calls start a new one. */
  close(): Promise<void>;
}

/** @throws AppError INVALID_REQUEST (details[field]) unless `date` is a calendar date YYYY-MM-DD */
function checkDate(date: string, field: string): void {
  if (!DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) {
    throw invalidRequest(`${field} must be a date YYYY-MM-DD`, { [field]: 'must be a date YYYY-MM-DD, e.g. 2025-06-30' });
  }
}

/** The trading day of `h` that `date` resolves to. @throws AppError INVALID_REQUEST when nothing is loaded or the date is outside the history */
function resolveIn(h: MarketHistory, date: string, field: string): AsOfDay {
  const first = h.dates[0];
  const last = h.dates[h.dates.length - 1];
  if (first === undefined || last === undefined) throw invalidRequest('no market data is loaded', { [field]: 'no market data is loaded' });
  if (date < first) throw invalidRequest(`${field} is before the first loaded date`, { [field]: `must be on or after ${first}, the first loaded date` });
  if (date > last) throw invalidRequest(`${field} is after the last loaded date`, { [field]: `must be on or before ${last}, the last loaded date` });
  const day = dayOnOrBefore(h.dates, date);
  return { history: h, day, date: h.dates[day] ?? first };
}

/** Create the as-of service. */
export function createAsOfService(deps: AsOfServiceDeps): AsOfService {
  const memory = deps.memory ?? createMemoryBudget();
  let loaded: { version: string; history: Promise<MarketHistory>; settled: boolean } | undefined;
  const cache = new SnapshotCache(memory, deps.cacheBytes ?? AS_OF_CACHE_BYTES);
  let builds = 0;
  let dateBuilds = 0;
  const builder = deps.builder ?? createLocalBuilder(memory, deps.warmFields);
  // The history the builder was last given: stats and `warmed` describe it only while it is the current one.
  let used: MarketHistory | undefined;

  function history(): Promise<MarketHistory> {
    const version = deps.version();
    if (loaded?.version !== version) {
      const promise = deps.loadHistory(version);
      const entry = { version, history: promise, settled: false };
      loaded = entry;
      const settle = () => void (entry.settled = true);
      promise.then(settle, settle);
      used = undefined;
      promise.then((h) => {
        if (loaded?.history !== promise) return;
        used = h;
        // A builder that cannot take the history fails the builds that need it, not this read.
        builder.use(h).catch(() => undefined);
      }, () => undefined);
      // A failed read is not kept: the next request tries again.
      promise.catch(() => {
        if (loaded?.history === promise) loaded = undefined;
      });
      cache.keepOnly(`|${version}`);
    }
    return loaded.history;
  }

  async function resolve(date: string, field = 'as_of'): Promise<AsOfDay> {
    checkDate(date, field);
    return resolveIn(await history(), date, field);
  }

  function snapshotOf(at: AsOfDay, depth: AsOfDepth = 'full', fields?: readonly string[], dates = 1): Promise<Snapshot> {
    const key = `${at.date}|${depth}|${fields ? [...new Set(fields)].sort().join(',') : '*'}|${at.history.version}`;
    const hit = cache.get(key);
    if (hit) return hit;
    builds++;
    const wanted = fields ?? INDICATOR_IDS;
    const snapshot = builder.columns(at.history, at.day, depth, wanted, dates)
      .then((built) => {
        if (!built.fromSeries) dateBuilds++;
        const slicer = createTimeSlicer();
        return snapshotOfColumns(at.history, at.day, depth, wanted, built, () => slicer.checkpoint());
      });
    cache.add(key, snapshot);
    return snapshot;
  }

  return {
    history,
    historyRead: () => loaded?.version === deps.version() && loaded.settled,
    resolve,
    snapshotOf,
    async snapshotAt(date, fields) {
      const at = await resolve(date);
      return { snapshot: await snapshotOf(at, 'full', fields), date: at.date };
    },
    stats: () => {
      const series = used ? builder.seriesStats() : undefined;
      return { cached: cache.size, bytes: cache.bytes, builds, date_builds: dateBuilds, ...(loaded ? { version: loaded.version } : {}), ...(series ? { series } : {}) };
    },
    warmed: async () => {
      await history();
      // The builder is given the history by the read's own continuation; give it its turn first.
      await new Promise<void>((r) => setImmediate(r));
      if (used) await builder.warmed();
    },
    close: () => builder.close(),
  };
}
