/**
 * Predefined screens (a template
 * whose inputs are all missing answers empty with a message, not an error).
 * Thresholds are chosen for real KRX data: amounts in KRW (1억 = 1e8,
 * 1조 = 1e12), ratios and returns in percent.
 */

import { notFound } from '../../errors.js';
import { SCORE_COLUMN } from '../language/formula-columns.js';
import { DEFAULT_SORT } from '../engine/query.js';
import type { RangeFilter, ScreenQuery, SortKey, Universe } from '../engine/query.js';
import { DEFAULT_PER_PAGE } from '../request/request-schema.js';
import type { Snapshot } from '../engine/snapshot.js';
import { TEMPLATE_DEFINITIONS } from './template-definitions.js';

export type { ScreenTemplate, TemplateOverrides, TemplateQuery } from './template-types.js';
import type { ScreenTemplate, TemplateOverrides } from './template-types.js';

/** Every template, in display order. */
export function listTemplates(): readonly ScreenTemplate[] {
  return TEMPLATE_DEFINITIONS;
}

/** The template with `id`, or undefined. */
export function getTemplate(id: string): ScreenTemplate | undefined {
  return TEMPLATE_DEFINITIONS.find((t) => t.id === id);
}

/** The template with `id`. Throws NOT_FOUND naming the valid ids. */
export function requireTemplate(id: string): ScreenTemplate {
  const template = getTemplate(id);
  if (template === undefined) throw notFound(`template '${id}'`, { template: id, valid_templates: TEMPLATE_DEFINITIONS.map((t) => t.id) });
  return template;
}

/** The complete query of a template with the caller's market, sort, paging and fields applied. */
export function applyTemplateOverrides(template: ScreenTemplate, overrides: TemplateOverrides = {}): ScreenQuery {
  const q = template.query;
  const universe: Universe = structuredClone(q.universe ?? {});
  if (overrides.market === 'ALL') delete universe.market;
  else if (overrides.market !== undefined) universe.market = overrides.market;
  const query: ScreenQuery = {
    universe,
    filters: (q.filters ?? []).map((f) => ({ ...f })),
    sort: (overrides.sort ?? q.sort ?? DEFAULT_SORT).map((s) => ({ ...s })),
    page: overrides.page ?? 1,
    per_page: overrides.per_page ?? q.per_page ?? DEFAULT_PER_PAGE,
    fields: [...(overrides.fields ?? [])],
  };
  if (q.expression !== undefined) query.expression = q.expression;
  if (q.columns !== undefined) query.columns = q.columns.map((c) => ({ ...c }));
  if (q.score !== undefined) query.score = structuredClone(q.score);
  if (overrides.as_of !== undefined) query.as_of = overrides.as_of;
  return query;
}

/** The field names a template's query adds (its formula columns and score): valid in its overrides' sort and fields. */
export function templateColumnNames(template: ScreenTemplate): string[] {
  const q = template.query;
  return [...(q.columns ?? []).map((c) => c.name), ...(q.score ? [SCORE_COLUMN] : [])];
}

/**
 * Required fields that no stock in `snapshot` has a value for (e.g. every
 * valuation input when no financial statements are loaded). With an empty
 * snapshot every required field is missing.
 */
export function missingInputs(template: ScreenTemplate, snapshot: Snapshot): string[] {
  return template.required_fields.filter((field) => (snapshot.columns.get(field)?.count ?? 0) === 0);
}
