/**
 * Pieces of request validation shared by `POST /screen` and the template
 * override body: the problem collector, universe merge, sort, fields, paging.
 */

import { z } from 'zod';
import { invalidRequest, isAppError } from '../../errors.js';
import type { ErrorDetails } from '../../errors.js';
import { ATTRIBUTE_FIELDS, TEXT_SORT_FIELDS } from '../engine/query.js';
import type { SortKey, Universe } from '../engine/query.js';
import { DEFAULT_PER_PAGE, asOfSchema, formatPath, marketSchema, outputShape } from './request-schema.js';
import type { RequestFields } from './request-schema.js';
import { suggestNames } from '../language/suggest.js';
import { MAX_DETAILS, MORE_DETAILS_KEY } from '../../validation.js';
import type { TemplateOverrides } from '../templates/templates.js';

/** Collects field-level problems and throws them as one invalidRequest. */
export class Problems {
  private readonly messages: Record<string, string> = {};
  private readonly extras: ErrorDetails = {};
  private readonly validNames = new Set<string>();
  private listed = 0;
  /** Problems found after MAX_DETAILS were listed: counted, not described (a 400 stays small). */
  private more = 0;

  private knownNames: ReadonlySet<string>;

  constructor(known: ReadonlySet<string>) {
    this.knownNames = known;
  }

  /** Names valid as fields: the indicators, plus names allowed later (formula columns, score). */
  get known(): ReadonlySet<string> {
    return this.knownNames;
  }

  /** Makes `names` (a request's formula columns and score) valid fields for the checks that follow. */
  allow(names: readonly string[]): void {
    if (names.length > 0) this.knownNames = new Set([...this.knownNames, ...names]);
  }

  /** True once MAX_DETAILS problems are listed: callers skip the work of describing more. */
  get full(): boolean {
    return this.listed >= MAX_DETAILS;
  }

  /** Records `message` for `path` (the first problem of a path wins; past MAX_DETAILS only counted). */
  add(path: string, message: string): void {
    if (Object.hasOwn(this.messages, path)) return;
    if (this.full) return void this.more++;
    this.messages[path] = message;
    this.listed++;
  }

  /** Adds non-path details (e.g. an expression's `position`). */
  extra(details: ErrorDetails): void {
    Object.assign(this.extras, details);
  }

  /**
   * `parse()`, or undefined with its error recorded for `path` (the message, its `position` and
   * any `suggestions`) when it throws an AppError. @throws anything else it throws
   */
  parsed<T>(path: string, parse: () => T): T | undefined {
    try {
      return parse();
    } catch (error) {
      if (!isAppError(error)) throw error;
      const details: ErrorDetails = error.details;
      this.add(path, String(details.expression ?? error.message));
      this.extra({ position: details.position, ...(details.suggestions ? { suggestions: details.suggestions } : {}) });
      return undefined;
    }
  }

  /** True when `name` is a known indicator; otherwise records the problem at `path`. */
  checkIndicator(name: string, path: string): boolean {
    if (this.known.has(name)) return true;
    this.unknownField(name, path, [], 'indicator');
    return false;
  }

  /** Records an unknown name at `path` with suggestions; the full list goes to `details.valid_fields`. */
  unknownField(name: string, path: string, alsoValid: readonly string[] = [], noun = 'field'): void {
    if (this.full) return this.add(path, '');
    const valid = [...this.known, ...alsoValid];
    for (const v of valid) this.validNames.add(v);
    const suggestions = suggestNames(name, valid);
    const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(', ')}?` : '';
    this.add(path, `unknown ${noun} '${name}'${hint} (valid names are listed in valid_fields)`);
  }

  /** Records a top-level key that is neither a fixed key nor `min_/max_<indicator>`. */
  unknownParameter(key: string, accepted: readonly string[], rangeKeys = true): void {
    if (this.full) return this.add(key, '');
    if (this.known.has(key)) {
      this.add(key, `'${key}' is an indicator: use filters.${key} {"min": …, "max": …} or min_${key} / max_${key}`);
      return;
    }
    const suggestions = suggestNames(key, accepted);
    const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(', ')}?` : '';
    const open = rangeKeys ? ', min_<indicator>, max_<indicator>' : '';
    this.add(key, `unknown parameter${hint} (accepted: ${accepted.join(', ')}${open})`);
  }

  /** Throws the collected problems, if any. */
  throwIfAny(what = 'screening request'): void {
    const paths = Object.keys(this.messages);
    const first = paths[0];
    if (first === undefined) return;
    const others = paths.length - 1 + this.more;
    const more = others > 0 ? ` (and ${others} more problem${others > 1 ? 's' : ''})` : '';
    const details: ErrorDetails = { ...this.messages, ...this.extras };
    if (this.more > 0) details[MORE_DETAILS_KEY] = this.more;
    if (this.validNames.size > 0) details.valid_fields = [...this.validNames].sort();
    throw invalidRequest(`Invalid ${what}: ${first} ${this.messages[first]}${more}`, details);
  }
}

/** The request body as an object (null and undefined are `{}`). Throws invalidRequest for arrays and scalars. */
export function bodyObject(body: unknown, what: string): Record<string, unknown> {
  if (body === null || body === undefined) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw invalidRequest(`Invalid ${what}: the body must be a JSON object`, { body: 'must be a JSON object' });
  }
  return body as Record<string, unknown>;
}

const UNIVERSE_LISTS = ['sectors', 'industries', 'codes', 'exclude'] as const;

/** The universe from top-level and `filters.*` keys; the same key given differently in both places is a problem. */
export function mergeUniverse(data: RequestFields, problems: Problems): Universe {
  const universe: Universe = {};
  const nested = data.filters ?? {};
  const market = pick('market', data.market, nested.market, problems);
  if (market === 'KOSPI' || market === 'KOSDAQ') universe.market = market;
  for (const key of UNIVERSE_LISTS) {
    const list = pick(key, data[key], nested[key], problems);
    if (list != null && list.length > 0) (universe as Record<string, unknown>)[key] = [...new Set(list)];
  }
  return universe;
}

function pick<T>(key: string, top: T | null | undefined, nested: T | null | undefined, problems: Problems): T | null | undefined {
  if (top != null && nested != null && JSON.stringify(top) !== JSON.stringify(nested)) {
    problems.add(`filters.${key}`, `conflicts with ${key}; give it once`);
  }
  return top ?? nested;
}

/** Sort keys from `sort` or the `sort_by`/`order` shorthand; undefined when none was given. */
export function readSort(data: Pick<RequestFields, 'sort' | 'sort_by' | 'order'>, problems: Problems): SortKey[] | undefined {
  if (data.order != null && data.sort_by == null) problems.add('order', 'needs sort_by');
  if (data.sort_by != null) {
    if (data.sort != null && data.sort.length > 0) problems.add('sort_by', 'give either sort or sort_by, not both');
    const field = data.sort_by.toLowerCase();
    if (!isSortable(field, problems.known)) problems.unknownField(field, 'sort_by', TEXT_SORT_FIELDS, 'sort field');
    return [{ field, direction: data.order ?? 'desc' }];
  }
  if (data.sort == null || data.sort.length === 0) return undefined;
  const keys: SortKey[] = [];
  data.sort.forEach((key, i) => {
    const field = key.field.toLowerCase();
    if (!isSortable(field, problems.known)) problems.unknownField(field, `sort[${i}].field`, TEXT_SORT_FIELDS, 'sort field');
    else if (keys.some((k) => k.field === field)) problems.add(`sort[${i}].field`, `'${field}' is already a sort key`);
    else keys.push({ field, direction: key.direction ?? 'desc' });
  });
  return keys;
}

function isSortable(field: string, known: ReadonlySet<string>): boolean {
  return known.has(field) || (TEXT_SORT_FIELDS as readonly string[]).includes(field);
}

/** Requested extra columns (indicators or text attributes), lower-cased and de-duplicated in order. */
export function readFields(fields: readonly string[], problems: Problems): string[] {
  const out: string[] = [];
  const attributes: readonly string[] = [...ATTRIBUTE_FIELDS, 'code', 'name', 'market', 'sector'];
  fields.forEach((raw, i) => {
    const field = raw.toLowerCase();
    if (!problems.known.has(field) && !attributes.includes(field)) problems.unknownField(field, `fields[${i}]`, attributes);
    else if (!out.includes(field)) out.push(field);
  });
  return out;
}

/** `per_page`, or its alias `limit`; both given and different is a problem. */
export function readPerPage(data: Pick<RequestFields, 'per_page' | 'limit'>, problems: Problems): number {
  const { per_page: perPage, limit } = data;
  if (perPage != null && limit != null && perPage !== limit) problems.add('limit', `conflicts with per_page (${perPage}); give one of them`);
  return perPage ?? limit ?? DEFAULT_PER_PAGE;
}

const overridesSchema = z.looseObject({ market: marketSchema, ...outputShape, as_of: asOfSchema });
const OVERRIDE_KEYS = Object.keys(overridesSchema.shape);

/**
 * Validates the body of `POST /screen/templates/{id}`: market, sort (or
 * sort_by/order), page, per_page (or limit), fields. Throws invalidRequest like parseScreenRequest.
 */
export function parseTemplateOverrides(body: unknown, knownFields: ReadonlySet<string>): TemplateOverrides {
  const problems = new Problems(knownFields);
  const raw = bodyObject(body, 'template request');
  const parsed = overridesSchema.safeParse(raw);
  if (!parsed.success) for (const issue of parsed.error.issues) problems.add(formatPath(issue.path), issue.message);
  for (const key of Object.keys(raw)) if (!OVERRIDE_KEYS.includes(key)) problems.unknownParameter(key, OVERRIDE_KEYS, false);
  const data = parsed.success ? parsed.data : {};
  const sort = readSort(data, problems);
  const fields = readFields(data.fields ?? [], problems);
  const perPage = data.per_page ?? data.limit;
  readPerPage(data, problems);
  problems.throwIfAny('template request');
  const overrides: TemplateOverrides = {};
  if (data.market != null) overrides.market = data.market;
  if (sort !== undefined) overrides.sort = sort;
  if (data.page != null) overrides.page = data.page;
  if (perPage != null) overrides.per_page = perPage;
  if (fields.length > 0) overrides.fields = fields;
  if (data.as_of) overrides.as_of = data.as_of;
  return overrides;
}
