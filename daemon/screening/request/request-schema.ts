/**
 * zod 4 schemas of the screening request (both
 * shapes). Only the fixed keys live here; the
 * open-ended `filters.<indicator>` and `min_<indicator>`/`max_<indicator>`
 * keys are checked against the indicator registry in request.ts.
 */

import { DEFAULT_PER_PAGE, MAX_PER_PAGE, MAX_SORT_KEYS } from '../../contract/screening.js';
import { z } from 'zod';
import { EXPRESSION_LIMITS } from '../language/expression-parser.js';
import { STOCK_CODE_PATTERN } from '../../kernel/records.js';
import { STOCK_FLAGS } from '../engine/snapshot.js';
import { GROUP_BY } from '../language/expression-functions.js';
export { DEFAULT_PER_PAGE, MAX_PER_PAGE, MAX_SORT_KEYS } from '../../contract/screening.js';


/** Longest sector, industry or field name accepted (the longest real one is under 40). */
export const MAX_NAME_LENGTH = 100;
/** Most names in a sectors or industries list. */
export const MAX_NAMES = 1000;
/** Most stock codes in `codes`. */
export const MAX_CODES = 5000;
/** Most extra columns in `fields`. */
export const MAX_FIELDS = 200;

const nameSchema = z.string({ error: 'must be text' }).trim().min(1, { error: 'must not be empty' }).max(MAX_NAME_LENGTH, { error: `must be at most ${MAX_NAME_LENGTH} characters` });


const NUMERIC_TEXT = /^\s*[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

// Query strings and form posts deliver numbers as text; accept "10" and "1e6" as numbers.
const toNumber = (v: unknown): unknown => (typeof v === 'string' && NUMERIC_TEXT.test(v) ? Number(v.replaceAll('_', '')) : v);
const toUpper = (v: unknown): unknown => (typeof v === 'string' ? v.trim().toUpperCase() : v);
const toLower = (v: unknown): unknown => (typeof v === 'string' ? v.trim().toLowerCase() : v);
const splitCommas = (v: unknown): unknown =>
  typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter((s) => s !== '') : v;

/** A finite number (or numeric text); null means "not given". */
export const boundSchema = z.preprocess(toNumber, z.number({ error: 'must be a finite number' })).nullable().optional();

/** `{min?, max?}` of one indicator (shape A). */
export const rangeSchema = z.strictObject(
  { min: boundSchema, max: boundSchema },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((k) => `'${k}'`).join(', ')}: a range has only min and max`
        : 'must be an object like {"min": 5, "max": 10}',
  },
);

const positiveInt = (max?: number) => {
  const base = z.int({ error: 'must be an integer' }).min(1, { error: 'must be at least 1' });
  return z.preprocess(toNumber, max === undefined ? base : base.max(max, { error: `must be at most ${max}` }));
};

/** Sort direction, case-insensitive. */
export const directionSchema = z.preprocess(toLower, z.enum(['asc', 'desc'], { error: 'must be "asc" or "desc"' }));

const sortKeySchema = z.strictObject(
  { field: nameSchema, direction: directionSchema.optional() },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((k) => `'${k}'`).join(', ')}: a sort key has only field and direction`
        : 'must be an object like {"field": "roe", "direction": "desc"}',
  },
);

// "roe:desc,per" → [{field:'roe',direction:'desc'},{field:'per'}]; a lone object → [object].
const toSortArray = (v: unknown): unknown => {
  if (typeof v === 'string') {
    return (splitCommas(v) as string[]).map((part) => {
      const [field, direction] = part.split(':');
      return direction === undefined ? { field } : { field, direction };
    });
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? [v] : v;
};

/** `market`: KOSPI, KOSDAQ or ALL, case-insensitive. */
export const marketSchema = z.preprocess(toUpper, z.enum(['KOSPI', 'KOSDAQ', 'ALL'], { error: 'must be KOSPI, KOSDAQ or ALL' })).nullable().optional();

const textList = (split: boolean) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (split ? splitCommas(v) : [v]) : v),
    z.array(nameSchema, { error: 'must be a list of names' }).max(MAX_NAMES, { error: `at most ${MAX_NAMES} names` }),
  ).nullable().optional();

const codesSchema = z.preprocess(
  splitCommas,
  z.array(
    z.preprocess(toUpper, z.string({ error: 'must be a stock code' }).regex(STOCK_CODE_PATTERN, { error: 'must be a 6-character stock code like 005930' })),
    { error: 'must be a list of stock codes' },
  ).max(MAX_CODES, { error: `at most ${MAX_CODES} codes` }),
).nullable().optional();

const excludeSchema = z.preprocess(
  splitCommas,
  z.array(z.preprocess(toLower, z.enum(STOCK_FLAGS, { error: `must be one of ${STOCK_FLAGS.join(', ')}` })), {
    error: `must be a list of ${STOCK_FLAGS.join(', ')}`,
  }),
).nullable().optional();

const expressionSchema = z
  .string({ error: 'must be text' })
  .max(EXPRESSION_LIMITS.maxLength, { error: `must be at most ${EXPRESSION_LIMITS.maxLength} characters` })
  .nullable()
  .optional();

/** Universe keys accepted both at the top level and under `filters` (shape A). */
export const universeShape = {
  market: marketSchema,
  sectors: textList(false),
  industries: textList(false),
  codes: codesSchema,
  exclude: excludeSchema,
  expression: expressionSchema,
};

/** `as_of`: a date YYYY-MM-DD to screen the market as known then (range checked when it runs). */
export const asOfSchema = z
  .string({ error: 'must be a date YYYY-MM-DD' })
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date YYYY-MM-DD, e.g. 2025-06-30' })
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), { error: 'must be a real calendar date' })
  .nullable()
  .optional();

/** Paging, sorting and output keys. */
export const outputShape = {
  sort: z.preprocess(toSortArray, z.array(sortKeySchema, { error: 'must be a list of {field, direction}' }).max(MAX_SORT_KEYS, {
    error: `at most ${MAX_SORT_KEYS} sort keys`,
  })).nullable().optional(),
  sort_by: nameSchema.nullable().optional(),
  order: directionSchema.nullable().optional(),
  page: positiveInt().nullable().optional(),
  per_page: positiveInt(MAX_PER_PAGE).nullable().optional(),
  limit: positiveInt(MAX_PER_PAGE).nullable().optional(),
  fields: z.preprocess(splitCommas, z.array(nameSchema, { error: 'must be a list of field names' }).max(MAX_FIELDS, { error: `at most ${MAX_FIELDS} fields` })).nullable().optional(),
};

/**
 * Formula columns and the score. Names, counts, references and weights are checked
 * in request-language.ts, where the definitions are parsed in order.
 */
export const languageShape = {
  columns: z
    .record(z.string(), z.string({ error: 'must be an expression (text), e.g. "1 / per * 100"' }).max(EXPRESSION_LIMITS.maxLength, { error: `must be at most ${EXPRESSION_LIMITS.maxLength} characters` }), {
      error: 'must be an object of name → expression, e.g. {"ey": "1 / per * 100"}',
    })
    .nullable()
    .optional(),
  score: z
    .record(z.string(), z.preprocess(toNumber, z.number({ error: 'must be a weight (a number > 0)' })), {
      error: 'must be an object of factor → weight, e.g. {"roe": 0.4, "-per": 0.3}',
    })
    .nullable()
    .optional(),
  score_by: z.preprocess(toLower, z.enum(GROUP_BY, { error: `must be one of ${GROUP_BY.join(', ')}` })).nullable().optional(),
};

/** The fixed keys of a screening request; other keys are inspected by request.ts. */
export const requestSchema = z.looseObject({
  filters: z.looseObject(universeShape, { error: 'must be an object' }).nullable().optional(),
  ...universeShape,
  ...outputShape,
  ...languageShape,
  as_of: asOfSchema,
  // The HTTP layer may pass `format=csv` through with the body; it is not part of the query.
  format: z.preprocess(toLower, z.enum(['json', 'csv'], { error: 'must be "json" or "csv"' })).nullable().optional(),
});

/** Parsed fixed keys. */
export type RequestFields = z.infer<typeof requestSchema>;

/** Keys of the universe part of the schema (also valid under `filters`). */
export const UNIVERSE_KEYS: readonly string[] = Object.keys(universeShape);
/** Every fixed top-level key. */
export const TOP_LEVEL_KEYS: readonly string[] = Object.keys(requestSchema.shape);

/** `['filters', 'per', 'min']` → `filters.per.min`; `['sort', 0, 'field']` → `sort[0].field`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? 'body' : out;
}
