/**
 * A screen's answer and where it is kept. An answer is stored as one buffer, the summary's JSON,
 * a newline and the page's stocks as a JSON array, so it goes in and out without being encoded
 * again. Two layers: Redis, shared by every daemon, and in front of it a bounded in-process copy
 * of recent answers (with their bytes), so a hot screen costs no Redis read. Both are keyed by
 * the snapshot version, so a recomputation invalidates both.
 */
import type { CompiledScreen } from '../request/compiled-screen.js';
import type { FiltersApplied } from '../request/query-normalize.js';
import type { ScreenExplanation } from './explain.js';
import type { MemoryBudget } from './memory-budget.js';
import type { SnapshotService } from './snapshot-service.js';

/**
 * A result cache (Redis in the daemon); failures must not fail the screen. Values are bytes
 * (UTF-8 text), so an answer goes in and out without being encoded or decoded again.
 */
export interface ResultCache {
  get(key: string): Promise<Buffer | null>;
  set(key: string, value: Buffer, ttlSeconds: number): Promise<void>;
  /**
   * The Redis keys of `key`'s answer and of its request count, for a caller that reads them in a
   * Redis call of its own (the rate limiter, in the same call as its counters). Absent: no such caller.
   */
  redisKeys?(key: string): CacheKeys;
}

/** Where an answer lives in Redis, and the counter of how often it was asked for while it could be cached. */
export interface CacheKeys {
  value: string;
  asked: string;
}

/**
 * How the rate limiter looks a query's answer up in its own Redis call: the answer is already
 * in process, or these keys are read (the answer, kept `ttlMs`), or there is no cache.
 */
export type CacheProbe = { answer: ScreenAnswer } | { keys: CacheKeys & { ttlMs: number } } | null;

/**
 * What a lookup made outside the service found: the answer (null: none), and whether an answer
 * computed now goes to the shared layer too (false for a query nobody asked for before, see run).
 */
export interface CacheFound {
  answer: ScreenAnswer | null;
  share: boolean;
}

/** Everything about a screen's answer but its rows. */
export interface ScreenSummary {
  total: number;
  page: number;
  per_page: number;
  total_pages: number;
  query_time_ms: number;
  filters_applied: FiltersApplied;
  snapshot_version: string;
  /** The trading date an as-of screen used (the last on or before the query's as_of). */
  as_of?: string;
  /** Names of required inputs that no stock has (templates on data without financials). */
  missing_inputs?: string[];
  message?: string;
  /** The request's formula columns and score with their definitions (sent in meta). */
  columns?: { name: string; expression: string }[];
  /** Why nothing matched (sent in meta; only when `total` is 0). */
  explain?: ScreenExplanation;
}

/** A screen's answer, ready for either response shape: the page of stocks already serialised. */
export interface ScreenAnswer extends ScreenSummary {
  /** The page's stocks (ScreenItem[]) as a UTF-8 JSON array: what the response splices in. */
  stocks: Buffer;
  cached: boolean;
}

/** Bytes of answers the in-process layer keeps (oldest dropped first). */
export const LOCAL_CACHE_BYTES = 64 * 1024 * 1024;

const NEWLINE = 0x0a;

/** Start of a cache value: the summary's JSON and a newline; the stocks' JSON follows (JSON text never holds a raw newline). */
export function cacheHead(summary: ScreenSummary): Buffer {
  return Buffer.from(`${JSON.stringify(summary)}\n`);
}

/** A cache value back into an answer (null: not one). */
function decode(value: Buffer): ScreenAnswer | null {
  const cut = value.indexOf(NEWLINE);
  if (cut < 0) return null;
  try {
    return { ...(JSON.parse(value.toString('utf8', 0, cut)) as ScreenSummary), stocks: value.subarray(cut + 1), cached: true };
  } catch {
    return null;
  }
}

/** What the two layers need: the snapshot (its version keys the answers), the shared layer, and how long answers live. */
export interface AnswerCacheDeps {
  snapshot: Pick<SnapshotService, 'current'>;
  cache: ResultCache;
  ttlSeconds: number;
  now?: () => number;
  memory?: MemoryBudget;
}

/** Both layers, as the screen service and the rate limiter's probe use them. */
export function createAnswerCache(deps: AnswerCacheDeps) {
  /** The cache key of `screen` on the current snapshot. */
  const keyOf = (screen: CompiledScreen): string => `a2:${deps.snapshot.current().version}:${screen.key}`;
  const local = createLocalCache(deps.now ?? Date.now, deps.ttlSeconds * 1000, deps.memory);

  /** The cached answer to `screen`, or null (also when the cache cannot be read). */
  async function lookup(screen: CompiledScreen): Promise<ScreenAnswer | null> {
    if (deps.ttlSeconds === 0) return null;
    const key = keyOf(screen);
    const near = local.get(key);
    if (near) return near;
    return cacheFound(screen, await deps.cache.get(key).catch(() => null));
  }

  /** Decode what a Redis call read under the probe's keys (null: nothing), keeping it in process. */
  function cacheFound(screen: CompiledScreen, value: Buffer | null): ScreenAnswer | null {
    const answer = value === null ? null : decode(value);
    if (answer) local.set(keyOf(screen), answer);
    return answer;
  }

  /** How another Redis call can look `screen` up (see CacheProbe). */
  function cacheProbe(screen: CompiledScreen): CacheProbe {
    if (deps.ttlSeconds === 0 || !deps.cache.redisKeys) return null;
    const key = keyOf(screen);
    const near = local.get(key);
    return near ? { answer: near } : { keys: { ...deps.cache.redisKeys(key), ttlMs: deps.ttlSeconds * 1000 } };
  }

  /**
   * Keep a computed answer in process and, when `share`, its cache value (`value`) in Redis;
   * the Redis write to wait for, or undefined when there is none.
   */
  function keep(screen: CompiledScreen, answer: ScreenAnswer, value: Buffer, share: boolean): Promise<void> | undefined {
    if (deps.ttlSeconds <= 0) return undefined;
    const key = keyOf(screen);
    local.set(key, answer);
    return share ? deps.cache.set(key, value, deps.ttlSeconds).catch(() => undefined) : undefined;
  }

  return { lookup, cacheFound, cacheProbe, keep, bytes: local.bytes };
}

/** The in-process layer: answers by key, each kept `ttlMs`, at most LOCAL_CACHE_BYTES of them. */
function createLocalCache(now: () => number, ttlMs: number, memory?: MemoryBudget) {
  // Insertion order is the drop order (an answer expires a fixed time after it was kept).
  const entries = new Map<string, { answer: ScreenAnswer; expires: number; bytes: number; used: number }>();
  let bytes = 0;
  const drop = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    bytes -= e.bytes;
    entries.delete(key);
  };
  memory?.hold('answers', {
    bytes: () => bytes,
    oldest: () => entries.values().next().value?.used,
    dropOldest: () => drop(entries.keys().next().value as string),
  });
  return {
    get(key: string): ScreenAnswer | undefined {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.expires <= now()) return void drop(key);
      return e.answer;
    },
    set(key: string, answer: ScreenAnswer): void {
      if (ttlMs <= 0) return;
      drop(key);
      const size = answer.stocks.length + 1024;
      if (size > LOCAL_CACHE_BYTES / 4) return;
      while (bytes + size > LOCAL_CACHE_BYTES) drop(entries.keys().next().value as string);
      entries.set(key, { answer, expires: now() + ttlMs, bytes: size, used: memory?.stamp() ?? 0 });
      bytes += size;
      memory?.fit();
    },
    bytes: () => bytes,
  };
}
