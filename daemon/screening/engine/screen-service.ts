/**
 * Runs screens: parse either request shape once into a compiled screen (compiled-screen.ts:
 * the query with its expression, formulas, cost and cache key) that the cache and the engine
 * both take, answer identical requests from the 5-minute result cache (answer-cache.ts: Redis
 * and an in-process layer, keyed by the snapshot version, so a recomputation invalidates it),
 * otherwise execute on the in-memory snapshot. Answers are serialised once: the page of stocks
 * is one UTF-8 JSON array, assembled from the snapshot's pre-serialised rows (row-json.ts), kept
 * as such in the cache and spliced into the response.
 */
import { createCrossSectionMemo, CROSS_SECTION_MEMO_BYTES } from '../language/cross-section.js';
import { explainEmpty } from './explain.js';
import { cacheHead, createAnswerCache, LOCAL_CACHE_BYTES, type CacheFound, type CacheProbe, type ResultCache, type ScreenAnswer, type ScreenSummary } from './answer-cache.js';
import { invalidRequest } from '../../errors.js';
import { compileScreen, type CompiledScreen } from '../request/compiled-screen.js';
import { checkBudget, type BudgetTier, type CostBudget, type QueryCost, type ScreenCaller } from './cost.js';
import { createFairShare } from './fair-share.js';
import type { MemoryBudget } from './memory-budget.js';
import { countCrossTerms, type ParsedExpression } from '../language/expression.js';
import { buildItem, executePageSliced, indicatorFieldsOf, matchAllSliced, type ScreenMatches, type ScreenPage, type ScreenQuery } from './query.js';
import { rowsJson } from './row-json.js';
import { createWorkGuard } from './work-guard.js';
import { describeFiltersApplied, parseScreenRequest, parseTemplateOverrides } from '../request/request.js';
import { applyTemplateOverrides, templateColumnNames, type ScreenTemplate, type TemplateOverrides } from '../templates/templates.js';
import type { SnapshotService } from './snapshot-service.js';
import type { Snapshot } from './snapshot.js';

export {
  LOCAL_CACHE_BYTES, type CacheFound, type CacheKeys, type CacheProbe, type ResultCache, type ScreenAnswer, type ScreenSummary,
} from './answer-cache.js';

/** Collaborators of the screen service. */
export interface ScreenServiceDeps {
  snapshot: SnapshotService;
  cache: ResultCache;
  ttlSeconds: number;
  knownFields: ReadonlySet<string>;
  /**
   * The snapshot selector of as-of screens: the snapshot of the market as known on
   * `date` (holding at least `fields`, the indicators the query reads) and the trading date
   * used. @throws AppError INVALID_REQUEST for a date out of range
   */
  asOf?: (date: string, fields: readonly string[]) => Promise<{ snapshot: Snapshot; date: string }>;
  /** Milliseconds now (for the in-process layer's expiry); default Date.now. */
  now?: () => number;
  /** Budgets, deadline and fair share (the `screen_limits` config). */
  limits: ScreenLimits;
  /** The daemon's memory budget the memo and the answers kept count against (default: only their own caps). */
  memory?: MemoryBudget;
}

/** Cost budgets by tier, the CPU deadline of one request, and the fair share of expensive work. */
export type ScreenLimits = Readonly<Record<BudgetTier, CostBudget>> & {
  readonly deadline_ms: number;
  readonly per_user_concurrency: number;
  readonly concurrency: number;
  readonly per_user_queue: number;
  /** A request's rate-limit weight: 1 + floor(units / weight_unit), at most max_weight. */
  readonly weight_unit: number;
  /** A refused request's weight: 1 + floor(body bytes / weight_body_bytes), at most max_weight. */
  readonly weight_body_bytes: number;
  readonly max_weight: number;
};

export type { ScreenCaller } from './cost.js';

/** Who runs a screen (fair share) and whether they are still there (stops the work when aborted). */
export interface ScreenWork {
  /** The user (or client address) the work is counted against. */
  user: string;
  /** Aborted when the client disconnected. */
  signal?: AbortSignal;
}

/** The screening use cases. */
export interface ScreenService {
  /**
   * Parses a body and checks its cost against `caller`'s budget, before any work.
   * @throws AppError INVALID_REQUEST for a bad body or one over the budget (field-level details)
   */
  parse(body: unknown, caller: ScreenCaller): ScreenQuery;
  /**
   * Parses a body, compiles it (expression, formulas, cost, cache key) and checks its cost
   * against `caller`'s budget, before any work: the value the request path hands on.
   * @throws AppError INVALID_REQUEST for a bad body or one over the budget (field-level details)
   */
  compile(body: unknown, caller: ScreenCaller): CompiledScreen;
  /** Compiles a query the daemon built or already validated (a template, a preset). @throws AppError INVALID_REQUEST */
  compileQuery(query: ScreenQuery): CompiledScreen;
  /** Checks a compiled screen against `caller`'s budget. @throws AppError INVALID_REQUEST naming the limit */
  check(screen: CompiledScreen, caller: ScreenCaller): void;
  /**
   * Validates a caller's overrides of `template` (the body of POST /screen/templates/{id}, a live
   * subscribe's `overrides`): market, sort (or sort_by/order), page, per_page (or limit), fields,
   * as_of; the template's own columns are valid in sort and fields. Unknown keys are refused.
   * @throws AppError INVALID_REQUEST with field-level details
   */
  templateOverrides(template: ScreenTemplate, body: unknown): TemplateOverrides;
  /**
   * Compiles `template` with `overrides` applied and checks it against `caller`'s budget: the
   * overrides (fields, per_page, as_of) can make a template cost more than the caller may spend.
   * @throws AppError INVALID_REQUEST naming the limit
   */
  compileTemplate(template: ScreenTemplate, overrides: TemplateOverrides, caller: ScreenCaller): CompiledScreen;
  /** The budgets, deadline and fair-share settings in force. */
  readonly limits: ScreenLimits;
  /** Bytes held by the service's caches (each bounded by bytes) and the expensive work running and waiting. */
  stats(): { memo_bytes: number; memo_max_bytes: number; answers_bytes: number; answers_max_bytes: number; running: number; waiting: number };
  /** The cached answer to `screen`, or null (also when the cache cannot be read). */
  lookup(screen: CompiledScreen): Promise<ScreenAnswer | null>;
  /** How another Redis call can look `screen` up (see CacheProbe). */
  cacheProbe(screen: CompiledScreen): CacheProbe;
  /** Decode what such a call read under the probe's keys (null: nothing), keeping it in process. */
  cacheFound(screen: CompiledScreen, value: Buffer | null): ScreenAnswer | null;
  /**
   * The answer to `screen`: the one `found` by a lookup already made, else from the cache or the
   * engine. A computed answer is kept in process and, unless `found.share` is false, in Redis. Expensive work (columns, ranks, as_of) waits for `work.user`'s fair share, yields to
   * the event loop as it runs and stops at the CPU deadline or when `work.signal` aborts.
   * @throws AppError QUERY_TIMEOUT at the deadline, RATE_LIMIT_EXCEEDED when the user has too many waiting; ClientGoneError
   */
  run(screen: CompiledScreen, extra?: Pick<ScreenSummary, 'missing_inputs' | 'message'>, found?: CacheFound, work?: ScreenWork): Promise<ScreenAnswer>;
  /**
   * Every match of `screen` on its snapshot, items built lazily.
   * @throws AppError INVALID_REQUEST like parse, QUERY_TIMEOUT, RATE_LIMIT_EXCEEDED (see run)
   */
  exportAll(screen: CompiledScreen, work?: ScreenWork): Promise<ScreenMatches>;
  /** The snapshot `query` runs on: the live one, or its as-of date's (with the date used). @throws AppError INVALID_REQUEST */
  snapshotFor(query: ScreenQuery): Promise<{ snapshot: Snapshot; as_of?: string }>;
}

/** Create the screen service. */
export function createScreenService(deps: ScreenServiceDeps): ScreenService {
  const answers = createAnswerCache(deps);
  // Cross-sectional columns of the current snapshot, shared by every screen.
  const memo = createCrossSectionMemo(CROSS_SECTION_MEMO_BYTES, deps.memory);
  const { limits } = deps;
  const fair = createFairShare({ concurrency: limits.concurrency, perUser: limits.per_user_concurrency, perUserQueue: limits.per_user_queue });

  const check = (screen: CompiledScreen, caller: ScreenCaller): void => {
    if (caller !== 'trusted') checkBudget(screen.query, screen.cost, limits[caller], caller);
  };
  const compileQuery = (query: ScreenQuery): CompiledScreen => compileScreen(query, deps.knownFields);
  const compile = (body: unknown, caller: ScreenCaller): CompiledScreen => {
    const screen = compileQuery(parseScreenRequest(body, deps.knownFields));
    check(screen, caller);
    return screen;
  };

  /** Runs `work` on the query's snapshot, sliced and guarded; expensive work waits for its user's turn. */
  async function guarded<T>(query: ScreenQuery, work: ScreenWork | undefined, expensive: boolean, task: (snapshot: Snapshot, checkpoint: () => Promise<void>, as_of?: string) => Promise<T>): Promise<T> {
    const start = async (): Promise<T> => {
      const guard = createWorkGuard({ deadlineMs: limits.deadline_ms, ...(work?.signal ? { signal: work.signal } : {}) });
      await guard.checkpoint();
      // An as-of snapshot is built under a slicer of its own, and may be shared with other
      // requests of its date: the time it takes is bounded by how it is built (as-of-snapshot.ts
      // computes a date on its own when its fields' series would not pay), not by this deadline,
      // which counts the screen's own evaluation.
      const { snapshot, as_of } = await guard.wait(() => snapshotFor(query));
      return task(snapshot, () => guard.checkpoint(), as_of);
    };
    return expensive && work !== undefined ? fair.run(work.user, start) : start();
  }

  const snapshotFor = (query: ScreenQuery) => snapshotOf(deps, query);

  return {
    parse: (body, caller) => compile(body, caller).query,
    compile,
    compileQuery,
    check,
    ...templateCalls(deps.knownFields, compileQuery, check),
    limits,
    stats: () => ({ memo_bytes: memo.bytes(), memo_max_bytes: CROSS_SECTION_MEMO_BYTES, answers_bytes: answers.bytes(), answers_max_bytes: LOCAL_CACHE_BYTES, ...fair.stats() }),
    lookup: answers.lookup,
    cacheProbe: answers.cacheProbe,
    cacheFound: answers.cacheFound,
    async run(screen, extra = {}, found, work) {
      const { query } = screen;
      // The cache is keyed by the query alone, so a template's note (missing_inputs) is added
      // per call, never stored: /screen with the same query must not inherit it, nor lose it.
      const hit = found === undefined ? await answers.lookup(screen) : found.answer;
      if (hit) return { ...hit, ...extra };
      // An answer goes to Redis (shared by every daemon) once a second request asked for it: most
      // computed screens are asked for once (a slider moved, a one-off script), and a repeat on
      // this daemon is answered from the in-process layer anyway. Writing each one to Redis cost
      // a large share of a miss's CPU (the command, the write of the page's bytes, the reply).
      const share = deps.ttlSeconds > 0 && found?.share !== false;
      const { summary, head, value } = await guarded(query, work, isExpensive(screen), async (snap, checkpoint, as_of) => {
        // Plain screens of the current snapshot are read off its presorted orders (built once per
        // snapshot). As-of snapshots are cached by bytes that would not count the orders, and an
        // as-of screen's cost is its history, not its sort: they take the general path.
        const result = await executePageSliced(snap, query, { memo, presorted: query.as_of === undefined, ...parsedOf(screen) }, checkpoint);
        const summary = summarize(snap, screen, result, as_of, deps.knownFields);
        // Shared, the stocks are written after the cache value's head in one buffer.
        const head = share ? cacheHead(summary) : undefined;
        return { summary, head, value: await pageBytes(snap, result, query.as_of === undefined, head, checkpoint) };
      });
      const answer: ScreenAnswer = { ...summary, stocks: head === undefined ? value : value.subarray(head.length), cached: true };
      const storing = answers.keep(screen, answer, value, share);
      if (storing) await storing;
      return { ...answer, ...extra, cached: false };
    },
    exportAll: (screen, work) => guarded(screen.query, work, true, (snapshot, checkpoint) => matchAllSliced(snapshot, screen.query, { memo, ...parsedOf(screen) }, checkpoint)),
    snapshotFor,
  };
}

/** The service's template calls, over its own compile and budget check. */
function templateCalls(
  knownFields: ReadonlySet<string>, compileQuery: ScreenService['compileQuery'], check: ScreenService['check'],
): Pick<ScreenService, 'templateOverrides' | 'compileTemplate'> {
  return {
    templateOverrides(template, body) {
      const names = templateColumnNames(template);
      return parseTemplateOverrides(body, names.length === 0 ? knownFields : new Set([...knownFields, ...names]));
    },
    compileTemplate(template, overrides, caller) {
      const screen = compileQuery(applyTemplateOverrides(template, overrides));
      check(screen, caller);
      return screen;
    },
  };
}

/** The snapshot `query` runs on: the live one, or its as-of date's (with the date used). */
async function snapshotOf(deps: ScreenServiceDeps, query: ScreenQuery): Promise<{ snapshot: Snapshot; as_of?: string }> {
  if (query.as_of === undefined) return { snapshot: deps.snapshot.current() };
  if (!deps.asOf) throw invalidRequest('as-of screens are not available here', { as_of: 'not supported by this service' });
  const { snapshot, date } = await deps.asOf(query.as_of, indicatorFieldsOf(query, deps.knownFields));
  return { snapshot, as_of: date };
}

/** Everything about `result`, the page of `screen` on `snap`, but its rows. */
function summarize(snap: Snapshot, screen: CompiledScreen, result: ScreenPage, as_of: string | undefined, knownFields: ReadonlySet<string>): ScreenSummary {
  return {
    total: result.total,
    page: result.page,
    per_page: result.per_page,
    total_pages: result.total_pages,
    query_time_ms: result.query_time_ms,
    filters_applied: describeFiltersApplied(screen.query),
    snapshot_version: snap.version,
    ...describeColumns(screen),
    ...(as_of !== undefined ? { as_of } : {}),
    ...(result.total === 0 ? { explain: explainEmpty(snap, screen.query, knownFields) } : {}),
  };
}

/** Rows serialised between two checkpoints (a row of every field is ≈3 KB of JSON). */
const ENCODE_ROWS = 25;

/**
 * The page's stocks as UTF-8 JSON, after `prefix` when given. Rows of the current snapshot itself are joined from its
 * pre-serialised rows; as-of snapshots (cached by bytes that would not count the fragments) and
 * views with formula columns (one request's) are serialised here, a few rows at a time with a
 * checkpoint between (500 rows of every field are 1.4 MB of JSON: tens of ms at once). The text
 * is JSON.stringify's of the whole array: its items joined by commas in brackets.
 */
async function pageBytes(snap: Snapshot, page: ScreenPage, current: boolean, prefix: Buffer | undefined, checkpoint: () => Promise<void>): Promise<Buffer> {
  if (current && page.view === snap) return rowsJson(snap, page.rows, page.columns, prefix);
  // Each slice's rows go to bytes at once: kept as strings until the last slice, a page of every
  // field (a megabyte of JSON) outlived the young generation and was copied twice more.
  const chunks: Buffer[] = prefix === undefined ? [] : [prefix];
  for (let i = 0; i < page.rows.length; i += ENCODE_ROWS) {
    if (i > 0) await checkpoint();
    const end = Math.min(page.rows.length, i + ENCODE_ROWS);
    const items: string[] = [];
    for (let k = i; k < end; k++) items.push(JSON.stringify(buildItem(page.view, page.rows[k] as number, page.columns)));
    chunks.push(Buffer.from(`${i === 0 ? '[' : ','}${items.join(',')}`));
  }
  chunks.push(Buffer.from(page.rows.length === 0 ? '[]' : ']'));
  return Buffer.concat(chunks);
}

/** True when a query's evaluation is more than one pass over the snapshot: it takes a fair-share turn. */
function isExpensive({ query, formulas, expression }: CompiledScreen): boolean {
  if (query.as_of !== undefined || formulas.length > 0) return true;
  return expression !== undefined && countCrossTerms(expression.ast) > 0;
}

/** The engine's option that skips parsing the expression again. */
function parsedOf(screen: CompiledScreen): { parsedExpression?: ParsedExpression } {
  return screen.expression === undefined ? {} : { parsedExpression: screen.expression };
}

/** `columns` of a summary: each formula column (and the score) with its definition; nothing when there are none. */
function describeColumns({ formulas }: CompiledScreen): Pick<ScreenSummary, 'columns'> {
  return formulas.length === 0 ? {} : { columns: formulas.map((f) => ({ name: f.name, expression: f.parsed.source })) };
}
