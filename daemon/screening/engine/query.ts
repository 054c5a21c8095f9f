/**
 * Screen queries and their execution over a snapshot:
 * universe, inclusive range filters, an optional expression, a multi-key sort
 * with nulls last, and 1-based paging.
 */

import type { ScreenItem } from '../../contract/screening.js';
import { invalidRequest } from '../../errors.js';
import { compileExpression, countCrossTerms, parseExpression } from '../language/expression.js';
import type { ParsedExpression } from '../language/expression.js';
import type { CrossSectionMemo } from '../language/cross-section.js';
import { deriveView, deriveViewSliced, formulasOf, type DerivedView } from '../language/formula-columns.js';
import { expressionMask } from '../language/expression-masks.js';
import { prepareOrders, presortedPage } from './presorted.js';
import { filterRows, filterWithin } from './select.js';
import { sortRows } from './sort-rows.js';
import { dictValueAt, marketAt, valueAt } from './snapshot.js';
import type { Snapshot } from './snapshot.js';

export type { ColumnDefinition, RangeFilter, ScoreDefinition, ScoreFactor, ScreenQuery, SortKey, Universe } from '../request/query-types.js';
import type { ScreenQuery, SortKey, Universe } from '../request/query-types.js';

/** One matching stock: identity columns plus the indicator columns of the query (the wire's shape). */
export type { ScreenItem } from '../../contract/screening.js';

/** One page of a screen. */
export interface ScreenResult {
  total: number;
  page: number;
  per_page: number;
  total_pages: number;
  items: ScreenItem[];
  query_time_ms: number;
}

/** Every match of a screen (CSV export). `columns` is the item key order. */
export interface ScreenExport {
  total: number;
  columns: string[];
  items: ScreenItem[];
  query_time_ms: number;
}

/**
 * Every match of a screen, items built on demand (CSV export streams them in
 * chunks instead of materialising every row). Bound to the snapshot it was run
 * on, so a snapshot swap during the export does not change it.
 */
export interface ScreenMatches {
  total: number;
  /** Item key order. */
  columns: string[];
  /** Matching rows, sorted. */
  rows: Int32Array;
  query_time_ms: number;
  /** The items in order, `size` at a time. */
  chunks(size: number): Generator<ScreenItem[]>;
}

/**
 * Execution options; `parsedExpression` skips re-parsing an expression the caller already
 * validated; `memo` remembers cross-sectional columns across runs on the same snapshot.
 */
export interface ExecuteOptions {
  now?: () => number;
  parsedExpression?: ParsedExpression;
  memo?: CrossSectionMemo;
  /**
   * Read the page of a plain screen (no formula columns, no cross-sectional terms) off the
   * snapshot's presorted orders (presorted.ts) instead of sorting every match. Worth it on a
   * snapshot that serves many requests (the daemon's current one); the first use of each sort
   * and filter field sorts the whole snapshot once. The answer is the same either way.
   */
  presorted?: boolean;
}

/** Sort used when a request gives none: largest companies first. */
export const DEFAULT_SORT: readonly SortKey[] = Object.freeze([Object.freeze({ field: 'market_cap', direction: 'desc' as const })]);

/** Columns every item carries. */
export const BASE_ITEM_FIELDS = ['code', 'name', 'market', 'sector', 'close', 'change_percent', 'market_cap'] as const;
/** Text attributes that may be requested in `fields` besides indicators. */
export const ATTRIBUTE_FIELDS = ['industry', 'name_english', 'board'] as const;
/** Non-indicator fields that may be sorted on. */
export const TEXT_SORT_FIELDS = ['code', 'name'] as const;

const TEXT_COLUMNS = new Set<string>(['code', 'name', 'market', 'sector', ...ATTRIBUTE_FIELDS]);

/**
 * Runs `query` and returns the requested page. A page past the end is empty.
 * Throws invalidRequest for a non-positive page/per_page or a bad expression.
 */
export function executeQuery(snapshot: Snapshot, query: ScreenQuery, opts: ExecuteOptions = {}): ScreenResult {
  const now = opts.now ?? (() => performance.now());
  const started = now();
  checkPaging(query);
  return pageOf(query, pageRows(snapshot, query, opts) ?? pagedOf(query, matchingRows(snapshot, query, opts)), started, now);
}

/**
 * Like executeQuery, time-sliced through `checkpoint` (see matchingRowsSliced).
 * @throws like executeQuery, and what `checkpoint` throws
 */
export async function executeQuerySliced(snapshot: Snapshot, query: ScreenQuery, opts: ExecuteOptions, checkpoint: () => Promise<void>): Promise<ScreenResult> {
  return withItems(await executePageSliced(snapshot, query, opts, checkpoint));
}

/**
 * One page of a screen as rows, not items: what executeQuerySliced returns before it builds the
 * items, for callers that serialise the rows themselves (row-json.ts).
 */
export interface ScreenPage extends Omit<ScreenResult, 'items'> {
  /** The page's rows of `view`, in order. */
  rows: Int32Array;
  /** The snapshot the items are read from: the one screened, or a view with the query's formula columns. */
  view: Snapshot;
  /** Item key order (itemColumns). */
  columns: string[];
}

/**
 * Like executeQuerySliced, the page as rows (see ScreenPage).
 * @throws like executeQuery, and what `checkpoint` throws
 */
export async function executePageSliced(snapshot: Snapshot, query: ScreenQuery, opts: ExecuteOptions, checkpoint: () => Promise<void>): Promise<ScreenPage> {
  const now = opts.now ?? (() => performance.now());
  const started = now();
  checkPaging(query);
  if (opts.presorted === true && isPlain(query, opts)) {
    // Each order a new snapshot still lacks is one unit of work; the page is then another,
    // like the general path's whole plain screen.
    await prepareOrders(snapshot, query.filters, query.sort, checkpoint);
    await checkpoint();
    const paged = pageRows(snapshot, query, opts);
    if (paged !== undefined) return pageRowsOf(query, paged, started, now);
  }
  return pageRowsOf(query, pagedOf(query, await matchingRowsSliced(snapshot, query, opts, checkpoint)), started, now);
}

function pageRowsOf(query: ScreenQuery, { total, rows, parsed, view }: Paged, started: number, now: () => number): ScreenPage {
  return {
    total,
    page: query.page,
    per_page: query.per_page,
    total_pages: Math.ceil(total / query.per_page),
    rows,
    view,
    columns: itemColumns(query, parsed),
    query_time_ms: elapsed(started, now()),
  };
}

/** Like matchAll, time-sliced through `checkpoint`. @throws like matchAll, and what `checkpoint` throws */
export async function matchAllSliced(snapshot: Snapshot, query: ScreenQuery, opts: ExecuteOptions, checkpoint: () => Promise<void>): Promise<ScreenMatches> {
  const now = opts.now ?? (() => performance.now());
  const started = now();
  return matchesOf(query, await matchingRowsSliced(snapshot, query, opts, checkpoint), started, now);
}

function checkPaging(query: ScreenQuery): void {
  if (!Number.isInteger(query.page) || query.page < 1) throw invalidRequest('page must be an integer ≥ 1', { page: 'must be an integer ≥ 1' });
  if (!Number.isInteger(query.per_page) || query.per_page < 1) {
    throw invalidRequest('per_page must be an integer ≥ 1', { per_page: 'must be an integer ≥ 1' });
  }
}

/** One page of matches: their number, the page's rows in order, and the snapshot to read items from. */
interface Paged {
  total: number;
  rows: Int32Array;
  parsed: ParsedExpression | undefined;
  view: Snapshot;
}

/** The requested page of every match. */
function pagedOf(query: ScreenQuery, { rows, parsed, view }: Matching): Paged {
  const start = (query.page - 1) * query.per_page;
  return { total: rows.length, rows: rows.subarray(Math.min(start, rows.length), Math.min(start + query.per_page, rows.length)), parsed, view };
}

/**
 * The page of a plain screen read off the snapshot's presorted orders, when `opts.presorted`
 * asks for it; undefined for screens with formula columns or cross-sectional terms (they take
 * the general path).
 */
function pageRows(snapshot: Snapshot, query: ScreenQuery, opts: ExecuteOptions): Paged | undefined {
  if (opts.presorted !== true || !isPlain(query, opts)) return undefined;
  const parsed = opts.parsedExpression ?? expressionOf(query);
  // The presorted path serves a long-lived snapshot: its expressions' masks are kept with it.
  const predicate = parsed === undefined ? undefined : expressionMask(snapshot, parsed);
  const start = (query.page - 1) * query.per_page;
  const { total, rows } = presortedPage(snapshot, query.universe, query.filters, predicate, query.sort, start, query.per_page);
  return { total, rows, parsed, view: snapshot };
}

/** True for a screen without formula columns, score or cross-sectional terms. */
function isPlain(query: ScreenQuery, opts: ExecuteOptions): boolean {
  if (formulasOf(query).length > 0) return false;
  const parsed = opts.parsedExpression ?? expressionOf(query);
  return parsed === undefined || countCrossTerms(parsed.ast) === 0;
}

function pageOf(query: ScreenQuery, paged: Paged, started: number, now: () => number): ScreenResult {
  return withItems(pageRowsOf(query, paged, started, now));
}

/** A page with its items built from its rows. */
function withItems({ rows, view, columns, ...page }: ScreenPage): ScreenResult {
  return { ...page, items: Array.from(rows, (row) => buildItem(view, row, columns)) };
}

/** Runs `query` ignoring paging: every match, sorted. Throws like executeQuery. */
export function executeAll(snapshot: Snapshot, query: ScreenQuery, opts: ExecuteOptions = {}): ScreenExport {
  const matches = matchAll(snapshot, query, opts);
  const items = [...matches.chunks(matches.total || 1)].flat();
  return { total: matches.total, columns: matches.columns, items, query_time_ms: matches.query_time_ms };
}

/** Runs `query` ignoring paging; items are built lazily by `chunks()`. Throws like executeQuery. */
export function matchAll(snapshot: Snapshot, query: ScreenQuery, opts: ExecuteOptions = {}): ScreenMatches {
  const now = opts.now ?? (() => performance.now());
  const started = now();
  return matchesOf(query, matchingRows(snapshot, query, opts), started, now);
}

function matchesOf(query: ScreenQuery, { rows, parsed, view }: Matching, started: number, now: () => number): ScreenMatches {
  const columns = itemColumns(query, parsed);
  return {
    total: rows.length,
    columns,
    rows,
    query_time_ms: elapsed(started, now()),
    *chunks(size) {
      const step = Math.max(1, Math.floor(size));
      for (let i = 0; i < rows.length; i += step) {
        yield Array.from(rows.subarray(i, i + step), (row) => buildItem(view, row, columns));
      }
    },
  };
}

/**
 * Expressions parsed per query object, beside it rather than on it (the query stays plain data:
 * serialised and compared as written). Released with the query. Requests get theirs from
 * `compileScreen`; this serves the queries the daemon builds in code (live screens, alerts, backtests).
 */
const EXPRESSIONS = new WeakMap<ScreenQuery, ParsedExpression>();

/** Remember `parsed` as the expression of `query` (the request parser's, checked against the registry); returns it. */
export function keepParsed(query: ScreenQuery, parsed: ParsedExpression): ParsedExpression {
  EXPRESSIONS.set(query, parsed);
  return parsed;
}

/** The query's expression, parsed once per query object (undefined when it has none). */
export function expressionOf(query: ScreenQuery): ParsedExpression | undefined {
  const kept = EXPRESSIONS.get(query);
  if (kept) return kept;
  const text = query.expression?.trim();
  if (!text) return undefined;
  return keepParsed(query, parseExpression(text));
}

/**
 * Item key order: identity and price columns, then every filtered, sorted and
 * expression field, the formula columns and score, then the requested fields, without duplicates.
 */
export function itemColumns(query: ScreenQuery, parsed?: ParsedExpression): string[] {
  const expressionFields = (parsed ?? expressionOf(query))?.fields ?? [];
  return [
    ...new Set([
      ...BASE_ITEM_FIELDS,
      ...query.filters.map((f) => f.field),
      ...query.sort.map((s) => s.field),
      ...expressionFields,
      ...formulasOf(query).map((f) => f.name),
      ...query.fields,
    ]),
  ];
}

/**
 * The indicator fields a query reads (its item columns, its expression's and formula columns'
 * fields), those of `known` only: what an as-of snapshot must hold to answer it.
 */
export function indicatorFieldsOf(query: ScreenQuery, known: ReadonlySet<string>): string[] {
  const formulaFields = formulasOf(query).flatMap((f) => f.parsed.fields);
  return [...new Set([...itemColumns(query), ...formulaFields])].filter((f) => known.has(f));
}

/** Every match of a query, sorted, and the snapshot its items are read from. */
export interface Matching {
  rows: Int32Array;
  parsed: ParsedExpression | undefined;
  /** The snapshot with the query's formula columns (the snapshot itself when it has none). */
  view: Snapshot;
}

/** Every match of `query` on `snapshot` in order, with its formula columns (live screens that re-run whole use it too). */
export function matchingRows(snapshot: Snapshot, query: ScreenQuery, opts: ExecuteOptions = {}): Matching {
  const parsed = opts.parsedExpression ?? expressionOf(query);
  const formulas = formulasOf(query);
  if (formulas.length === 0 && (parsed === undefined || countCrossTerms(parsed.ast) === 0)) {
    const predicate = parsed === undefined ? undefined : compileExpression(parsed, snapshot);
    const rows = filterRows(snapshot, query.universe, query.filters, predicate);
    return { rows: sortRows(snapshot, rows, query.sort), parsed, view: snapshot };
  }
  // Cross-sectional terms rank over the universe, before range filters and the expression.
  const universe = filterRows(snapshot, query.universe, []);
  const context = { universe, memo: opts.memo, scope: universeKey(query.universe) };
  return filterDerived(snapshot, query, parsed, context, deriveView(snapshot, formulas, context));
}

/**
 * Like matchingRows, but awaits `checkpoint()` between units of work (each formula column, a
 * few hundred rows of one, the filter, the sort), so the caller can yield and stop it.
 * @throws what `checkpoint` throws
 */
export async function matchingRowsSliced(snapshot: Snapshot, query: ScreenQuery, opts: ExecuteOptions, checkpoint: () => Promise<void>): Promise<Matching> {
  const parsed = opts.parsedExpression ?? expressionOf(query);
  const formulas = formulasOf(query);
  await checkpoint();
  if (formulas.length === 0 && (parsed === undefined || countCrossTerms(parsed.ast) === 0)) return matchingRows(snapshot, query, opts);
  const universe = filterRows(snapshot, query.universe, []);
  const context = { universe, memo: opts.memo, scope: universeKey(query.universe) };
  const derived = await deriveViewSliced(snapshot, formulas, context, checkpoint);
  await checkpoint();
  return filterDerived(snapshot, query, parsed, context, derived);
}

function filterDerived(
  snapshot: Snapshot, query: ScreenQuery, parsed: ParsedExpression | undefined, context: { universe: Int32Array; memo?: CrossSectionMemo; scope: string }, derived: DerivedView,
): Matching {
  const { view, resolve } = derived;
  const predicate = parsed === undefined ? undefined : compileExpression(parsed, view, { ...context, base: snapshot, resolve });
  const rows = filterWithin(view, context.universe, query.filters, predicate);
  return { rows: sortRows(view, rows, query.sort), parsed, view };
}

/** Names a universe in memo keys: equal universes (lists in any order) give equal keys. */
function universeKey(u: Universe): string {
  const sorted = (list: readonly string[] | undefined): string => [...new Set(list ?? [])].sort().join(',');
  return [u.market ?? 'ALL', sorted(u.sectors), sorted(u.industries), sorted(u.codes), sorted(u.exclude)].join('/');
}

/** The item of row `row` with `columns` (identity columns first), as screens return it. */
export function buildItem(snapshot: Snapshot, row: number, columns: readonly string[]): ScreenItem {
  const item: ScreenItem = {
    code: snapshot.codes[row] ?? '',
    name: snapshot.names[row] ?? '',
    market: marketAt(snapshot, row),
    sector: dictValueAt(snapshot.sector, row),
  };
  for (const column of columns) {
    if (Object.hasOwn(item, column)) continue;
    item[column] = TEXT_COLUMNS.has(column) ? textValue(snapshot, column, row) : valueAt(snapshot, column, row);
  }
  return item;
}

function textValue(snapshot: Snapshot, column: string, row: number): string | null {
  switch (column) {
    case 'industry': return dictValueAt(snapshot.industry, row);
    case 'name_english': return snapshot.namesEnglish[row] ?? null;
    default: return snapshot.boards[row] ?? null;
  }
}

function elapsed(start: number, end: number): number {
  return Math.round((end - start) * 1000) / 1000;
}
