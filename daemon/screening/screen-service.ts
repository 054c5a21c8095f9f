/**
 * Runs screens: parse either request shape, answer identical requests from the
 * 5-minute result cache (keyed by the snapshot version, so a recomputation
 * invalidates it), otherwise execute on the in-memory snapshot.
 */
import { createHash } from 'node:crypto';
import { executeQuery, matchAll, type ScreenItem, type ScreenMatches, type ScreenQuery } from './query.js';
import { describeFiltersApplied, normalizeQuery, parseScreenRequest } from './request.js';
import type { FiltersApplied } from './query-normalize.js';
import type { SnapshotService } from './snapshot-service.js';

/** A result cache (Redis in the daemon); failures must not fail the screen. */
export interface ResultCache {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
}

/** A screen's answer, ready for either response shape. */
export interface ScreenAnswer {
  stocks: ScreenItem[];
  total: number;
  page: number;
  per_page: number;
  total_pages: number;
  query_time_ms: number;
  filters_applied: FiltersApplied;
  snapshot_version: string;
  /** Names of required inputs that no stock has (templates on data without financials). */
  missing_inputs?: string[];
  message?: string;
  cached: boolean;
}

/** Collaborators of the screen service. */
export interface ScreenServiceDeps {
  snapshot: SnapshotService;
  cache: ResultCache;
  ttlSeconds: number;
  knownFields: ReadonlySet<string>;
}

/** The screening use cases. */
export interface ScreenService {
  /** @throws AppError INVALID_REQUEST for a bad body (field-level details) */
  parse(body: unknown): ScreenQuery;
  run(query: ScreenQuery, extra?: Pick<ScreenAnswer, 'missing_inputs' | 'message'>): Promise<ScreenAnswer>;
  /** True when `body` is valid and its answer is in the cache now (rate limits skip these). */
  isCached(body: unknown): Promise<boolean>;
  /** True when the answer to `query` is in the cache now (template and preset runs share the cache with /screen). */
  isCachedQuery(query: ScreenQuery): Promise<boolean>;
  /** Every match of `query` on the current snapshot, items built lazily. @throws AppError INVALID_REQUEST like parse */
  exportAll(query: ScreenQuery): ScreenMatches;
}

/** Create the screen service. */
export function createScreenService(deps: ScreenServiceDeps): ScreenService {
  const keyOf = (query: ScreenQuery) =>
    `${deps.snapshot.current().version}:${createHash('sha1').update(normalizeQuery(query)).digest('base64url')}`;

  async function cached(key: string): Promise<ScreenAnswer | null> {
    if (deps.ttlSeconds === 0) return null;
    const hit = await deps.cache.get(key).catch(() => null);
    return hit ? ({ ...(JSON.parse(hit) as ScreenAnswer), cached: true } as ScreenAnswer) : null;
  }

  return {
    parse: (body) => parseScreenRequest(body, deps.knownFields),
    async run(query, extra = {}) {
      const key = keyOf(query);
      // The cache is keyed by the query alone, so a template's note (missing_inputs) is added
      // per call, never stored: /screen with the same query must not inherit it, nor lose it.
      const hit = await cached(key);
      if (hit) return { ...hit, ...extra };
      const snap = deps.snapshot.current();
      const result = executeQuery(snap, query);
      const answer: ScreenAnswer = {
        stocks: result.items,
        total: result.total,
        page: result.page,
        per_page: result.per_page,
        total_pages: result.total_pages,
        query_time_ms: result.query_time_ms,
        filters_applied: describeFiltersApplied(query),
        snapshot_version: snap.version,
        cached: false,
      };
      if (deps.ttlSeconds > 0) await deps.cache.set(key, JSON.stringify(answer), deps.ttlSeconds).catch(() => undefined);
      return { ...answer, ...extra };
    },
    async isCached(body) {
      let query: ScreenQuery;
      try {
        query = parseScreenRequest(body, deps.knownFields);
      } catch {
        return false;
      }
      return this.isCachedQuery(query);
    },
    async isCachedQuery(query) {
      if (deps.ttlSeconds === 0) return false;
      return (await deps.cache.get(keyOf(query)).catch(() => null)) !== null;
    },
    exportAll: (query) => matchAll(deps.snapshot.current(), query),
  };
}
