/**
 * The screening flags of `stockscreen screen` and `presets save`, parsed and checked
 * locally (so a typo never costs a request) and turned into a POST /screen body in the
 * spec's shape A: {market, exclude, expression, filters: {<field>: {min, max}}, sort, per_page, page, fields}.
 * Field names are checked for form only; the server knows which indicators exist.
 */
import { GROUP_BY, MAX_COLUMNS, MAX_SORT_KEYS, SCREEN_MARKETS, STOCK_FLAGS } from '../../../daemon/contract/screening.js';
import { sectorArg } from '../market/sectors.js';
import { usageError } from '../session/errors.js';

/** Universe flags the server accepts in `exclude`. */
export const EXCLUDE_FLAGS = STOCK_FLAGS;
/** Keys under `filters` that the server reads as universe settings, so they cannot name a range filter. */
const RESERVED_FILTER_KEYS = ['market', 'sectors', 'industries', 'codes', 'exclude', 'expression'];

const FIELD = /^[a-z][a-z0-9_]*$/;
const NUMBER = /^[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;
/** Korean amount suffixes: 만 = 1e4, 억 = 1e8, 조 = 1e12. */
const SUFFIXES: Record<string, number> = { 만: 1e4, 억: 1e8, 조: 1e12 };
const FILTER_HINT = 'use field=min..max with either side optional, e.g. --filter pbr=..1.5 --filter roe=15.. --filter market_cap=1조..';

/** One range filter. */
export interface RangeFlag {
  field: string;
  min?: number;
  max?: number;
}

/** One sort key. */
export interface SortFlag {
  field: string;
  direction?: 'asc' | 'desc';
}

/** The raw screening flags as commander collected them. */
export interface ScreenFlags {
  market?: string;
  where?: string;
  filter?: string[];
  sort?: string[];
  limit?: number;
  page?: number;
  fields?: string[];
  exclude?: string[];
  sector?: string[];
  /** `name=expression` formula columns, in order. */
  column?: string[];
  /** `[-]field=weight` score factors, comma-separated and repeatable. */
  score?: string[];
  scoreBy?: string;
}

/** Groups a score may rank within. */
export const SCORE_GROUPS = GROUP_BY;
const COLUMN_HINT = "e.g. --column ey='1/per*100' --column vq='0.5*pct_rank(ey)+0.5*pct_rank(roe)'";
const SCORE_HINT = 'e.g. --score roe=0.4,-per=0.3,return_3m=0.3 (a leading - ranks ascending; write --score=-per=1 when the first factor starts with -)';

/** A field name, lower-cased. @throws CliError USAGE when it is not snake_case. */
export function parseFieldName(text: string, flag: string): string {
  const field = text.trim().toLowerCase();
  if (!FIELD.test(field)) throw usageError(`${flag}: "${text}" is not a field name`, 'field names are snake_case ids such as per, roe, market_cap (list them with `stockscreen screen fields`)');
  return field;
}

/**
 * A number as typed on a command line: `1.5`, `-3`, `1e9`, `10_000`, and KRW
 * amounts with a Korean unit (`5000만`, `1.5억`, `1조`).
 * @throws CliError USAGE for anything else
 */
export function parseAmount(text: string, what: string): number {
  const raw = text.trim();
  const unit = SUFFIXES[raw.slice(-1)];
  const digits = unit === undefined ? raw : raw.slice(0, -1).trim();
  if (!NUMBER.test(digits)) throw usageError(`${what}: "${text}" is not a number`, FILTER_HINT);
  const value = Number(digits.replace(/_/g, '')) * (unit ?? 1);
  if (!Number.isFinite(value)) throw usageError(`${what}: "${text}" is not a finite number`, FILTER_HINT);
  return value;
}

/**
 * One `--filter field=min..max` (either side may be empty, not both).
 * @throws CliError USAGE with the expected syntax as the hint
 */
export function parseFilterFlag(text: string): RangeFlag {
  const eq = text.indexOf('=');
  if (eq < 0) throw usageError(`--filter "${text}": missing "="`, FILTER_HINT);
  const field = parseFieldName(text.slice(0, eq), `--filter "${text}"`);
  if (RESERVED_FILTER_KEYS.includes(field)) {
    throw usageError(`--filter "${text}": ${field} is not an indicator`, field === 'market' ? 'use --market' : field === 'expression' ? 'use --where' : `use --${field === 'sectors' ? 'sector' : field}`);
  }
  const range = text.slice(eq + 1);
  const dots = range.indexOf('..');
  if (dots < 0) throw usageError(`--filter "${text}": the range needs ".." between min and max`, FILTER_HINT);
  const [lo, hi] = [range.slice(0, dots).trim(), range.slice(dots + 2).trim()];
  if (lo === '' && hi === '') throw usageError(`--filter "${text}": give a minimum, a maximum or both`, FILTER_HINT);
  const out: RangeFlag = { field };
  if (lo !== '') out.min = parseAmount(lo, `--filter "${text}" minimum`);
  if (hi !== '') out.max = parseAmount(hi, `--filter "${text}" maximum`);
  if (out.min !== undefined && out.max !== undefined && out.min > out.max) {
    throw usageError(`--filter "${text}": the minimum ${out.min} is greater than the maximum ${out.max}`);
  }
  return out;
}

/**
 * Many `--filter` flags as one range per field: `per=5..` and `per=..10` combine into 5..10.
 * @throws CliError USAGE when two flags set the same side differently or the result is empty
 */
export function mergeFilters(texts: readonly string[]): Record<string, { min?: number; max?: number }> {
  const out: Record<string, { min?: number; max?: number }> = {};
  for (const text of texts) {
    const { field, ...bounds } = parseFilterFlag(text);
    const range = (out[field] ??= {});
    for (const side of ['min', 'max'] as const) {
      const value = bounds[side];
      if (value === undefined) continue;
      if (range[side] !== undefined && range[side] !== value) throw usageError(`--filter: ${field} has two different ${side === 'min' ? 'minimums' : 'maximums'} (${range[side]} and ${value})`);
      range[side] = value;
    }
    if (range.min !== undefined && range.max !== undefined && range.min > range.max) {
      throw usageError(`--filter: ${field} has a minimum ${range.min} greater than its maximum ${range.max}`);
    }
  }
  return out;
}

/**
 * `--sort roe:desc,per:asc` (also repeatable); a key without a direction uses the server default (desc).
 * @throws CliError USAGE for a bad direction, a repeated field or more than MAX_SORT_KEYS keys
 */
export function parseSortFlags(texts: readonly string[]): SortFlag[] {
  const keys: SortFlag[] = [];
  for (const part of texts.flatMap((t) => t.split(',')).map((p) => p.trim()).filter(Boolean)) {
    const [name = '', direction, extra] = part.split(':');
    const field = parseFieldName(name, `--sort "${part}"`);
    if (extra !== undefined || (direction !== undefined && !/^(asc|desc)$/i.test(direction))) {
      throw usageError(`--sort "${part}": the direction must be asc or desc`, 'e.g. --sort roe:desc,per:asc');
    }
    if (keys.some((k) => k.field === field)) throw usageError(`--sort: ${field} is given twice`);
    keys.push(direction === undefined ? { field } : { field, direction: direction.toLowerCase() as 'asc' | 'desc' });
  }
  if (keys.length > MAX_SORT_KEYS) throw usageError(`--sort: at most ${MAX_SORT_KEYS} keys, got ${keys.length}`);
  return keys;
}

/** Comma-separated (and repeatable) field names, de-duplicated in order. @throws CliError USAGE */
export function parseFieldList(texts: readonly string[], flag: string): string[] {
  const names = texts.flatMap((t) => t.split(',')).map((p) => p.trim()).filter(Boolean);
  return [...new Set(names.map((n) => parseFieldName(n, flag)))];
}

/**
 * `--column name=expression` flags as the request's `columns` object, in order. The
 * expression is checked by the server (it knows the fields and reports positions).
 * @throws CliError USAGE for a missing "=", a bad or repeated name, an empty expression or more than MAX_COLUMNS
 */
export function parseColumnFlags(texts: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const text of texts) {
    const eq = text.indexOf('=');
    if (eq < 0) throw usageError(`--column "${text}": missing "="`, COLUMN_HINT);
    const name = parseFieldName(text.slice(0, eq), `--column "${text}"`);
    const expression = text.slice(eq + 1).trim();
    if (expression === '') throw usageError(`--column "${text}": the expression is empty`, COLUMN_HINT);
    if (Object.hasOwn(out, name)) throw usageError(`--column: ${name} is defined twice`);
    out[name] = expression;
  }
  if (Object.keys(out).length > MAX_COLUMNS) throw usageError(`--column: at most ${MAX_COLUMNS} columns, got ${Object.keys(out).length}`);
  return out;
}

/**
 * `--score roe=0.4,-per=0.3` (also repeatable) as the request's `score` object.
 * @throws CliError USAGE for a missing "=", a bad name, a weight that is not a number > 0, or a repeated factor
 */
export function parseScoreFlags(texts: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of texts.flatMap((t) => t.split(',')).map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq < 0) throw usageError(`--score "${part}": missing "=weight"`, SCORE_HINT);
    const raw = part.slice(0, eq).trim();
    const ascending = raw.startsWith('-');
    const field = parseFieldName(ascending ? raw.slice(1) : raw, `--score "${part}"`);
    const weight = parseAmount(part.slice(eq + 1), `--score "${part}" weight`);
    if (!(weight > 0)) throw usageError(`--score "${part}": the weight must be greater than 0`, SCORE_HINT);
    if (Object.hasOwn(out, field) || Object.hasOwn(out, `-${field}`)) throw usageError(`--score: ${field} is given twice`);
    out[ascending ? `-${field}` : field] = weight;
  }
  return out;
}

/** `--exclude administrative,spac`. @throws CliError USAGE for an unknown flag */
export function parseExclude(texts: readonly string[]): string[] {
  const names = texts.flatMap((t) => t.split(',')).map((p) => p.trim().toLowerCase()).filter(Boolean);
  for (const name of names) {
    if (!(EXCLUDE_FLAGS as readonly string[]).includes(name)) throw usageError(`--exclude: unknown "${name}"`, `one or more of ${EXCLUDE_FLAGS.join(', ')}`);
  }
  return [...new Set(names)];
}

/** `--market`, case-insensitive. @throws CliError USAGE */
export function parseMarket(text: string): string {
  const market = text.trim().toUpperCase();
  if (!(SCREEN_MARKETS as readonly string[]).includes(market)) throw usageError(`--market: "${text}" is not one of ${SCREEN_MARKETS.join(', ')}`);
  return market;
}

/**
 * The POST /screen body for `flags` (only the keys that were given).
 * @throws CliError USAGE for any malformed flag
 */
export function buildScreenBody(flags: ScreenFlags): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (flags.market !== undefined) body.market = parseMarket(flags.market);
  const sectors = (flags.sector ?? []).map((s) => s.trim()).filter(Boolean).map(sectorArg);
  if (sectors.length) body.sectors = sectors;
  const exclude = parseExclude(flags.exclude ?? []);
  if (exclude.length) body.exclude = exclude;
  if (flags.where !== undefined) {
    if (flags.where.trim() === '') throw usageError('--where: the expression is empty', "e.g. --where 'per < 10 and roe > 15'");
    body.expression = flags.where.trim();
  }
  const filters = mergeFilters(flags.filter ?? []);
  if (Object.keys(filters).length) body.filters = filters;
  const sort = parseSortFlags(flags.sort ?? []);
  if (sort.length) body.sort = sort;
  if (flags.limit !== undefined) body.per_page = flags.limit;
  if (flags.page !== undefined) body.page = flags.page;
  const fields = parseFieldList(flags.fields ?? [], '--fields');
  if (fields.length) body.fields = fields;
  addLanguage(body, flags);
  return body;
}

/** Formula columns and the score. */
function addLanguage(body: Record<string, unknown>, flags: ScreenFlags): void {
  const columns = parseColumnFlags(flags.column ?? []);
  if (Object.keys(columns).length) body.columns = columns;
  const score = parseScoreFlags(flags.score ?? []);
  if (Object.keys(score).length) body.score = score;
  if (flags.scoreBy !== undefined) {
    const by = flags.scoreBy.trim().toLowerCase();
    if (!(SCORE_GROUPS as readonly string[]).includes(by)) throw usageError(`--score-by: "${flags.scoreBy}" is not one of ${SCORE_GROUPS.join(', ')}`);
    if (body.score === undefined) throw usageError('--score-by needs --score', SCORE_HINT);
    body.score_by = by;
  }
}

/** What a saved query or a template may have replaced when it is run: market, sort, paging, columns. */
export interface QueryOverrides {
  market?: unknown;
  sort?: unknown;
  per_page?: unknown;
  page?: unknown;
  fields?: unknown;
}

/** The overridable part of `flags` (market, sort, limit, page, fields). @throws CliError USAGE */
export function overridesFrom(flags: ScreenFlags): QueryOverrides {
  const full = buildScreenBody({ market: flags.market, sort: flags.sort, limit: flags.limit, page: flags.page, fields: flags.fields });
  return full as QueryOverrides;
}

/** True when `flags` set anything a preset or template cannot override (filters, expression, universe). */
export function hasQueryFlags(flags: ScreenFlags): boolean {
  return Boolean(flags.where !== undefined || flags.filter?.length || flags.exclude?.length || flags.sector?.length || flags.column?.length || flags.score?.length || flags.scoreBy !== undefined);
}

/**
 * A saved query (shape A or B) with `overrides` applied. The same setting may live under
 * several keys (market or filters.market; sort or sort_by/order; per_page or limit), so
 * every spelling of an overridden setting is removed first: the server refuses conflicts.
 */
export function applyOverrides(query: Record<string, unknown>, overrides: QueryOverrides): Record<string, unknown> {
  const out: Record<string, unknown> = { ...query };
  const nested = out.filters && typeof out.filters === 'object' && !Array.isArray(out.filters) ? { ...(out.filters as Record<string, unknown>) } : undefined;
  if (overrides.market !== undefined) {
    delete out.market;
    if (nested) delete nested.market;
  }
  if (overrides.sort !== undefined) {
    delete out.sort_by;
    delete out.order;
  }
  if (overrides.per_page !== undefined) delete out.limit;
  if (nested) out.filters = nested;
  return { ...out, ...overrides };
}
