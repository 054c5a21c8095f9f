/**
 * The JSON Schema (OpenAPI 3.1) of the screening request, generated from the
 * indicator registry, so validation and the documentation cannot drift apart:
 * shape A `filters.<indicator>` ranges, shape B `min_<id>` / `max_<id>` bounds,
 * and the enums of sort fields and extra output fields. It documents what
 * request.ts accepts; validation itself stays in request.ts, so a bad request
 * still gets its field-level details and `valid_fields`.
 */
import type { IndicatorDefinition } from '../../indicators/registry.js';
import { ATTRIBUTE_FIELDS, TEXT_SORT_FIELDS } from '../engine/query.js';
import { DEFAULT_PER_PAGE, MAX_CODES, MAX_FIELDS, MAX_NAME_LENGTH, MAX_NAMES, MAX_PER_PAGE, MAX_SORT_KEYS } from './request-schema.js';
import { EXPRESSION_LIMITS } from '../language/expression-parser.js';
import { GROUP_BY } from '../language/expression-functions.js';
import { MAX_COLUMNS, MAX_SCORE_FACTORS, SCORE_COLUMN } from '../language/formula-columns.js';
import { STOCK_FLAGS } from '../engine/snapshot.js';

/** A JSON Schema object (kept loose: it is handed to the OpenAPI generator as is). */
export type JsonSchema = { [key: string]: unknown };

const number = { type: ['number', 'null'] } as const;
const positiveInteger = (max?: number, dflt?: number): JsonSchema => ({
  type: ['integer', 'null'],
  minimum: 1,
  ...(max === undefined ? {} : { maximum: max }),
  ...(dflt === undefined ? {} : { default: dflt }),
});
/** Lists may also be given as one comma-separated string. */
const textList = (description: string, items: JsonSchema = { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH }, maxItems = MAX_NAMES): JsonSchema => ({
  type: ['array', 'string', 'null'],
  items,
  maxItems,
  maxLength: MAX_NAMES * (MAX_NAME_LENGTH + 1),
  description: `${description} A comma-separated string is accepted too.`,
});

function describeIndicator(d: IndicatorDefinition): string {
  return `${d.label_en} (${d.label_ko}), ${d.unit}: ${d.definition}`;
}

/** The universe keys, valid at the top level and under `filters`. */
function universeProperties(): Record<string, JsonSchema> {
  return {
    market: { type: ['string', 'null'], enum: ['KOSPI', 'KOSDAQ', 'ALL', null], description: 'Market universe (case-insensitive); ALL or absent = both.' },
    sectors: textList('Only stocks in one of these sectors (exact names, see GET /stocks).'),
    industries: textList('Only stocks in one of these industries.'),
    codes: textList('Only these stock codes (6 characters, e.g. 005930, 0126Z0).', { type: 'string', pattern: '^[0-9A-Za-z]{6}$', maxLength: 6 }, MAX_CODES),
    exclude: textList('Leave out stocks carrying any of these flags.', { type: 'string', enum: [...STOCK_FLAGS], maxLength: 16 }, STOCK_FLAGS.length),
    expression: { type: ['string', 'null'], maxLength: EXPRESSION_LIMITS.maxLength, description: 'Filter expression, e.g. "close > sma_200 and roe > 15 and (per < 10 or pbr < 1)" (see the README for the grammar).' },
  };
}

/** Formula columns and the score. */
function languageProperties(): Record<string, JsonSchema> {
  return {
    columns: {
      type: ['object', 'null'],
      maxProperties: MAX_COLUMNS,
      propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' },
      additionalProperties: { type: 'string', maxLength: EXPRESSION_LIMITS.maxLength },
      description:
        'Formula columns, name → numeric expression, evaluated in order over the universe (a column may use the ones before it; names must not be built-in fields). ' +
        'Usable in expression, filters (filters.<name> / min_<name>), sort and fields; returned in every item, the CSV and meta.columns. ' +
        'E.g. {"ey": "1 / per * 100", "vq": "0.5 * pct_rank(1 / per) + 0.5 * pct_rank(roe)"}. Functions: see GET /screen/fields meta.functions.',
      examples: [{ ey: '1 / per * 100', roe_in_sector: 'pct_rank(roe) by sector' }],
    },
    score: {
      type: ['object', 'null'],
      maxProperties: MAX_SCORE_FACTORS,
      propertyNames: { pattern: '^-?[A-Za-z][A-Za-z0-9_]{0,63}$' },
      additionalProperties: { type: 'number', exclusiveMinimum: 0 },
      description:
        'A `score` column 0–100: Σ weight × pct_rank(factor) / Σ weight (weights are normalised). "-per" ranks ascending (low PER = high rank). ' +
        'A stock with a null factor has a null score (sorts last, fails filters); wrap a factor in a column with coalesce() to choose otherwise.',
      examples: [{ roe: 0.4, '-per': 0.3, return_3m: 0.3 }],
    },
    score_by: { type: ['string', 'null'], enum: [...GROUP_BY, null], description: 'Rank each score factor within its sector, industry or market instead of the whole universe.' },
  };
}

/**
 * The request schema for `indicators` (the registry's entries). Unknown keys are
 * documented as not allowed, matching the 400 that request.ts answers.
 */
export function screenRequestJsonSchema(indicators: readonly IndicatorDefinition[]): JsonSchema {
  const ids = indicators.map((d) => d.id);
  // A request's own formula columns are valid sort and output fields too (not enumerable here).
  const sortFields = [...ids, ...TEXT_SORT_FIELDS, SCORE_COLUMN];
  const outputFields = [...ids, ...ATTRIBUTE_FIELDS, 'code', 'name', 'market', 'sector'];
  const ranges: Record<string, JsonSchema> = {};
  const bounds: Record<string, JsonSchema> = {};
  for (const d of indicators) {
    ranges[d.id] = {
      type: ['object', 'null'],
      description: `Inclusive range on ${describeIndicator(d)} A stock whose value is null fails it.`,
      properties: { min: number, max: number },
      additionalProperties: false,
    };
    bounds[`min_${d.id}`] = { ...number, description: `Inclusive lower bound on ${d.id} (${d.label_en}, ${d.unit}); same as filters.${d.id}.min.` };
    bounds[`max_${d.id}`] = { ...number, description: `Inclusive upper bound on ${d.id} (${d.label_en}, ${d.unit}); same as filters.${d.id}.max.` };
  }
  const sortField = { type: 'string', enum: sortFields, maxLength: MAX_NAME_LENGTH };
  const direction = { type: 'string', enum: ['asc', 'desc'], default: 'desc' };
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      filters: {
        type: ['object', 'null'],
        description: 'Shape A: universe keys and {min, max} ranges keyed by indicator id.',
        properties: { ...universeProperties(), ...ranges },
        additionalProperties: false,
      },
      ...universeProperties(),
      sort: {
        type: ['array', 'object', 'string', 'null'],
        maxItems: MAX_SORT_KEYS,
        maxLength: MAX_SORT_KEYS * (MAX_NAME_LENGTH + 6),
        items: { type: 'object', properties: { field: sortField, direction }, required: ['field'], additionalProperties: false },
        description: 'Sort keys, nulls last (default market_cap desc). Also one {field, direction} object, or "roe:desc,per". The request\'s own formula columns (columns) and score are sortable too.',
      },
      sort_by: { type: ['string', 'null'], enum: [...sortFields, null], maxLength: MAX_NAME_LENGTH, description: 'Shorthand for one sort key (with order).' },
      order: { type: ['string', 'null'], enum: ['asc', 'desc', null], default: 'desc', maxLength: 4 },
      page: { ...positiveInteger(undefined, 1), description: '1-based page.' },
      per_page: positiveInteger(MAX_PER_PAGE, DEFAULT_PER_PAGE),
      limit: { ...positiveInteger(MAX_PER_PAGE, DEFAULT_PER_PAGE), description: 'Alias of per_page.' },
      fields: {
        type: ['array', 'string', 'null'],
        items: { type: 'string', enum: outputFields, maxLength: MAX_NAME_LENGTH },
        maxItems: MAX_FIELDS,
        maxLength: MAX_FIELDS * (MAX_NAME_LENGTH + 1),
        description: 'Extra columns to return (indicator ids or industry, name_english, board; the request\'s formula columns and score are always returned). A comma-separated string is accepted too.',
      },
      ...languageProperties(),
      format: { type: ['string', 'null'], enum: ['json', 'csv', null], maxLength: 4, description: 'csv streams every match as CSV (like Accept: text/csv).' },
      as_of: {
        type: ['string', 'null'], format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10,
        description: 'Screen the market as known on this date: bars up to it, statements disclosed by it; meta.as_of is the trading day used (the last on or before). 400 before the first or after the last loaded date.',
      },
      ...bounds,
    },
  };
}
