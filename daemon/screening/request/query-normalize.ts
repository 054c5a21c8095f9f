/**
 * Query descriptions for responses and cache keys: `filters_applied` (spec
 * "Screening response" shape B) and a canonical JSON form under which shape A
 * and shape B of the same screen are equal.
 */

import type { FiltersApplied } from '../../contract/screening.js';
import { formulasOf } from '../language/formula-columns.js';
import { expressionOf, type ScreenQuery } from '../engine/query.js';

/** The response's `filters_applied` (the wire's shape): market (ALL when none), `_count`, and each applied filter. */
export type { FiltersApplied } from '../../contract/screening.js';

/**
 * Describes what restricts the result. `_count` counts a market other than
 * ALL, each indicator range, the expression, and each non-empty universe list
 * (sectors, industries, codes, exclude) as one filter each.
 */
export function describeFiltersApplied(query: ScreenQuery): FiltersApplied {
  const { universe } = query;
  const applied: FiltersApplied = { market: universe.market ?? 'ALL', _count: 0 };
  let count = universe.market === undefined ? 0 : 1;
  for (const key of ['sectors', 'industries', 'codes', 'exclude'] as const) {
    const list = universe[key];
    if (list !== undefined && list.length > 0) {
      applied[key] = [...list];
      count++;
    }
  }
  for (const filter of query.filters) {
    const range: { min?: number; max?: number } = {};
    if (filter.min !== undefined) range.min = filter.min;
    if (filter.max !== undefined) range.max = filter.max;
    applied[filter.field] = range;
    count++;
  }
  const expression = query.expression?.trim();
  if (expression) {
    applied.expression = expression;
    count++;
  }
  applied._count = count;
  return applied;
}

/**
 * Canonical JSON of a complete query: keys sorted, defaults explicit, universe
 * lists sorted, filters by field, the expression in canonical form. Sort keys
 * and requested fields keep their order (it changes the answer).
 */
export function normalizeQuery(query: ScreenQuery): string {
  const u = query.universe;
  const sorted = (list: readonly string[] | undefined): string[] => [...new Set(list ?? [])].sort();
  // Every object below is written with its keys already in sorted order, so the native
  // JSON.stringify gives the same text as stableStringify (the cache keys of stored answers stay
  // the same) at a fraction of its cost: this runs once per distinct screen request.
  const canonical = {
    // Absent without as_of, so the keys of other screens are unchanged.
    as_of: query.as_of,
    columns: canonicalColumns(query),
    expression: canonicalExpression(query),
    fields: [...new Set(query.fields)],
    filters: [...query.filters]
      .sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0))
      .map((f) => ({ field: f.field, max: f.max ?? null, min: f.min ?? null })),
    page: query.page,
    per_page: query.per_page,
    sort: query.sort.map((s) => ({ direction: s.direction, field: s.field })),
    universe: {
      codes: sorted(u.codes),
      exclude: sorted(u.exclude),
      industries: sorted(u.industries),
      market: u.market ?? 'ALL',
      sectors: sorted(u.sectors),
    },
  };
  return JSON.stringify(canonical);
}

/** Formula columns and the score as [name, canonical definition] pairs, in order (order changes the answer). */
function canonicalColumns(query: ScreenQuery): [string, string][] | undefined {
  // Absent (not null) without columns, so the keys of older queries do not change.
  if (query.columns === undefined && query.score === undefined) return undefined;
  try {
    return formulasOf(query).map((f) => [f.name, f.parsed.canonical]);
  } catch {
    return [[JSON.stringify(query.columns ?? null), JSON.stringify(query.score ?? null)]];
  }
}

function canonicalExpression(query: ScreenQuery): string | null {
  const text = query.expression?.trim();
  if (!text) return null;
  try {
    return expressionOf(query)?.canonical ?? null;
  } catch {
    // Not ours to reject here: the request parser already did; keep the text as the key.
    return text;
  }
}

/** JSON with object keys sorted at every level. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
