/**
 * Turns a screening request body (shape A or B, in
 * one schema) into a validated ScreenQuery, collecting every problem into
 * field-level details of one 400.
 */

import { parseExpression, type ParsedExpression } from '../language/expression.js';
import { DEFAULT_SORT, keepParsed } from '../engine/query.js';
import type { RangeFilter, ScreenQuery } from '../engine/query.js';
import { Problems, bodyObject, mergeUniverse, readFields, readPerPage, readSort } from './request-parts.js';
import { keepFormulas } from '../language/formula-columns.js';
import { MAX_CROSS_TERMS } from '../language/expression-functions.js';
import { countCrossTerms } from '../language/expression.js';
import { readLanguage } from './request-language.js';
import { TOP_LEVEL_KEYS, UNIVERSE_KEYS, boundSchema, formatPath, rangeSchema, requestSchema } from './request-schema.js';
import type { RequestFields } from './request-schema.js';

export { describeFiltersApplied, normalizeQuery } from './query-normalize.js';
export { parseTemplateOverrides } from './request-parts.js';

export { DEFAULT_SORT };

const BOUND_KEY = /^(min|max)_(.+)$/i;

/**
 * Validates `body` against the request schema and `knownFields` (the indicator
 * registry). `{}`, null and undefined are the empty screen.
 * Throws invalidRequest whose details map each offending path (`filters.per.min`,
 * `min_foo`, `sort[0].field`, …) to a message, plus `valid_fields` when a name was unknown.
 */
export function parseScreenRequest(body: unknown, knownFields: ReadonlySet<string>): ScreenQuery {
  const problems = new Problems(knownFields);
  const raw = bodyObject(body, 'screening request');
  const parsed = requestSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.add(formatPath(issue.path), issue.message);
  }
  const data: RequestFields = parsed.success ? parsed.data : {};
  // Columns first: their names (and `score`) are fields for everything that follows.
  const language = readLanguage(raw, data, problems);
  problems.allow(language.names);
  const ranges = readRanges(raw, problems);
  const universe = mergeUniverse(data, problems);
  const expression = readExpression(data, problems.known, problems);
  if (expression !== undefined && language.crossTerms + countCrossTerms(expression.ast) > MAX_CROSS_TERMS) {
    problems.add('expression', `at most ${MAX_CROSS_TERMS} rank/pct_rank/zscore terms per request, counting columns and score`);
  }
  const sort = readSort(data, problems) ?? DEFAULT_SORT.map((key) => ({ ...key }));
  const per_page = readPerPage(data, problems);
  const fields = readFields(data.fields ?? [], problems);
  problems.throwIfAny();
  const query: ScreenQuery = { universe, filters: ranges, sort, page: data.page ?? 1, per_page, fields };
  if (data.as_of) query.as_of = data.as_of;
  if (expression !== undefined) {
    query.expression = expression.source;
    keepParsed(query, expression);
  }
  if (language.columns.length > 0) query.columns = language.columns;
  if (language.score !== undefined) query.score = language.score;
  keepFormulas(query, language.formulas);
  return query;
}

interface Bound {
  value: number;
  path: string;
}

/** Collects shape A `filters.<indicator>` and shape B `min_/max_<indicator>` into one range per field. */
function readRanges(raw: Record<string, unknown>, problems: Problems): RangeFilter[] {
  const bounds = new Map<string, { min?: Bound; max?: Bound }>();
  const set = (field: string, side: 'min' | 'max', value: number, path: string): void => {
    const entry = bounds.get(field) ?? {};
    const existing = entry[side];
    if (existing !== undefined && existing.value !== value) {
      problems.add(path, `conflicts with ${existing.path} (${existing.value})`);
      return;
    }
    entry[side] = existing ?? { value, path };
    bounds.set(field, entry);
  };
  const filters = raw.filters;
  if (filters !== null && typeof filters === 'object' && !Array.isArray(filters)) {
    for (const [key, value] of Object.entries(filters)) {
      if (UNIVERSE_KEYS.includes(key) || value === null) continue;
      const path = `filters.${key}`;
      const field = key.toLowerCase();
      if (!problems.checkIndicator(field, path)) continue;
      const range = rangeSchema.safeParse(value);
      if (!range.success) {
        for (const issue of range.error.issues) problems.add(formatPath(['filters', key, ...issue.path]), issue.message);
        continue;
      }
      const { min, max } = range.data;
      if ((min ?? null) === null && (max ?? null) === null) problems.add(path, 'give min, max or both');
      if (typeof min === 'number') set(field, 'min', min, `${path}.min`);
      if (typeof max === 'number') set(field, 'max', max, `${path}.max`);
    }
  }
  for (const [key, value] of Object.entries(raw)) {
    if (TOP_LEVEL_KEYS.includes(key)) continue;
    const match = BOUND_KEY.exec(key);
    if (match === null) {
      problems.unknownParameter(key, TOP_LEVEL_KEYS);
      continue;
    }
    const side = match[1]?.toLowerCase() === 'min' ? 'min' : 'max';
    const field = (match[2] ?? '').toLowerCase();
    if (!problems.checkIndicator(field, key)) continue;
    const bound = boundSchema.safeParse(value);
    if (!bound.success) problems.add(key, bound.error.issues[0]?.message ?? 'must be a finite number');
    else if (typeof bound.data === 'number') set(field, side, bound.data, key);
  }
  return toFilters(bounds, problems);
}

function toFilters(bounds: Map<string, { min?: Bound; max?: Bound }>, problems: Problems): RangeFilter[] {
  const filters: RangeFilter[] = [];
  for (const [field, { min, max }] of [...bounds].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (min !== undefined && max !== undefined && min.value > max.value) {
      const path = min.path.startsWith('filters.') ? `filters.${field}` : min.path;
      problems.add(path, `min (${min.value}) is greater than max (${max.value}) (${max.path})`);
      continue;
    }
    const filter: RangeFilter = { field };
    if (min !== undefined) filter.min = min.value;
    if (max !== undefined) filter.max = max.value;
    filters.push(filter);
  }
  return filters;
}

function readExpression(data: RequestFields, knownFields: ReadonlySet<string>, problems: Problems): ParsedExpression | undefined {
  const top = data.expression?.trim() ?? '';
  const nested = data.filters?.expression?.trim() ?? '';
  if (top !== '' && nested !== '' && top !== nested) {
    problems.add('filters.expression', 'conflicts with expression; give it once');
    return undefined;
  }
  const text = top || nested;
  if (text === '') return undefined;
  const path = top !== '' ? 'expression' : 'filters.expression';
  return problems.parsed(path, () => rememberedExpression(text, knownFields));
}

/** Valid expressions remembered per set of known names (their text at most EXPRESSION_MEMO_TEXT long). */
export const EXPRESSION_MEMO_SIZE = 500;
const EXPRESSION_MEMO_TEXT = 1024;
const EXPRESSIONS = new WeakMap<ReadonlySet<string>, Map<string, ParsedExpression>>();

/**
 * parseExpression, remembered: requests repeat their expressions while their bounds, pages and
 * sorts change, and a parsed expression is immutable (frozen, its tree only read). Remembered
 * per `knownFields` set, so a request's formula column names (a set of its own) never leak
 * into another's. Bad text is parsed (and refused) every time. Oldest forgotten first.
 * @throws like parseExpression
 */
function rememberedExpression(text: string, knownFields: ReadonlySet<string>): ParsedExpression {
  let memo = EXPRESSIONS.get(knownFields);
  const known = memo?.get(text);
  if (known !== undefined) return known;
  const parsed = parseExpression(text, knownFields);
  if (text.length <= EXPRESSION_MEMO_TEXT) {
    if (memo === undefined) EXPRESSIONS.set(knownFields, (memo = new Map()));
    if (memo.size >= EXPRESSION_MEMO_SIZE) memo.delete(memo.keys().next().value as string);
    memo.set(text, parsed);
  }
  return parsed;
}

