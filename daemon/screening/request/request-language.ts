/**
 * Validation of a request's formula columns and score: names (no shadowing, at
 * most MAX_COLUMNS), definitions parsed in order (a column may use only the columns before
 * it), score factors and weights, and the bound on cross-sectional terms. Every problem goes
 * to the request's problem collector with its path (`columns.<name>`, `score.<factor>`) and,
 * for a bad definition, the position and suggestions.
 */
import { CROSS_FUNCTIONS, FUNCTIONS, MAX_CROSS_TERMS } from '../language/expression-functions.js';
import { countCrossTerms, FLAG_FIELDS, TEXT_FIELDS, walk, type ParsedExpression } from '../language/expression.js';
import { MAX_COLUMNS, MAX_SCORE_FACTORS, SCORE_COLUMN, parseNumeric, scoreExpression, type Formula } from '../language/formula-columns.js';
import { ATTRIBUTE_FIELDS } from '../engine/query.js';
import type { ColumnDefinition, ScoreDefinition, ScoreFactor } from './query-types.js';
import type { Problems } from './request-parts.js';
import type { RequestFields } from './request-schema.js';

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** Names a column may not take: attributes, flags, keywords, function names and the score. */
const RESERVED = new Set<string>([
  ...TEXT_FIELDS, ...FLAG_FIELDS, ...ATTRIBUTE_FIELDS, SCORE_COLUMN, ...Object.keys(FUNCTIONS), ...CROSS_FUNCTIONS,
  'and', 'or', 'not', 'between', 'in', 'is', 'null', 'true', 'false', 'by',
]);

/** A request's validated columns and score, and the formulas to compute. */
export interface RequestLanguage {
  columns: ColumnDefinition[];
  score?: ScoreDefinition;
  formulas: Formula[];
  /** Field names the request adds (its columns, and `score`). */
  names: string[];
  /** Cross-sectional terms over the columns and score. */
  crossTerms: number;
}

/** Reads `columns`, `score` and `score_by`; problems go to `problems` (nothing is thrown). */
export function readLanguage(raw: Record<string, unknown>, data: RequestFields, problems: Problems): RequestLanguage {
  const out: RequestLanguage = { columns: [], formulas: [], names: [], crossTerms: 0 };
  readColumns(raw.columns, data, problems, out);
  readScore(data, problems, out);
  if (out.crossTerms > MAX_CROSS_TERMS) {
    problems.add(out.score ? 'score' : 'columns', `at most ${MAX_CROSS_TERMS} rank/pct_rank/zscore terms per request (columns and score hold ${out.crossTerms})`);
  }
  return out;
}

function readColumns(rawColumns: unknown, data: RequestFields, problems: Problems, out: RequestLanguage): void {
  if (data.columns == null || rawColumns === null || typeof rawColumns !== 'object') return;
  // Definition order is the order of the keys as sent (JSON objects keep it; names never start with a digit).
  const entries = Object.keys(rawColumns).map((key) => [key, data.columns![key] ?? ''] as const);
  if (entries.length > MAX_COLUMNS) return problems.add('columns', `at most ${MAX_COLUMNS} columns, got ${entries.length}`);
  const names = entries.map(([key]) => key.trim().toLowerCase());
  const valid = names.filter((name, i) => checkName(name, entries[i]![0], names.indexOf(name) === i, problems));
  const parseKnown = new Set([...problems.known, ...valid]);
  entries.forEach(([key, text], i) => {
    const name = names[i]!;
    if (!valid.includes(name) || names.indexOf(name) !== i) return;
    const parsed = parseDefinition(text, `columns.${key}`, parseKnown, problems);
    if (parsed === undefined || !checkReferences(parsed, name, valid, `columns.${key}`, problems)) return;
    out.columns.push({ name, expression: text.trim() });
    out.formulas.push({ name, parsed });
    out.crossTerms += countCrossTerms(parsed.ast);
  });
  out.names.push(...out.columns.map((c) => c.name));
}

function checkName(name: string, key: string, first: boolean, problems: Problems): boolean {
  const path = `columns.${key}`;
  if (!NAME.test(name)) problems.add(path, 'a column name is a letter, then letters, digits or _ (at most 64), e.g. ey');
  else if (!first) problems.add(path, `'${name}' is defined twice (names are case-insensitive)`);
  else if (problems.known.has(name)) problems.add(path, `'${name}' is a built-in indicator; a column must not shadow it (choose e.g. my_${name})`);
  else if (RESERVED.has(name)) problems.add(path, `'${name}' is reserved; choose another name (e.g. my_${name})`);
  else return true;
  return false;
}

function parseDefinition(text: string, path: string, known: ReadonlySet<string>, problems: Problems): ParsedExpression | undefined {
  return problems.parsed(path, () => parseNumeric(text, path, known));
}

/** A column may refer only to columns defined before it. */
function checkReferences(parsed: ParsedExpression, name: string, columns: readonly string[], path: string, problems: Problems): boolean {
  const own = columns.indexOf(name);
  let bad: { field: string; pos: number } | undefined;
  walk(parsed.ast, (e) => {
    if (bad === undefined && e.kind === 'field' && columns.includes(e.name) && columns.indexOf(e.name) >= own) bad = { field: e.name, pos: e.pos };
  });
  if (bad === undefined) return true;
  const message = bad.field === name
    ? `column '${name}' refers to itself (at position ${bad.pos})`
    : `column '${name}' refers to '${bad.field}', which is defined after it; move '${bad.field}' before '${name}' (at position ${bad.pos})`;
  problems.add(path, message);
  problems.extra({ position: bad.pos, suggestions: columns.slice(0, own) });
  return false;
}

function readScore(data: RequestFields, problems: Problems, out: RequestLanguage): void {
  if (data.score_by != null && data.score == null) problems.add('score_by', 'needs score');
  if (data.score == null) return;
  const entries = Object.entries(data.score);
  if (entries.length === 0) return problems.add('score', 'give at least one factor, e.g. {"roe": 0.5, "-per": 0.5}');
  if (entries.length > MAX_SCORE_FACTORS) return problems.add('score', `at most ${MAX_SCORE_FACTORS} factors, got ${entries.length}`);
  const known = new Set([...problems.known, ...out.names]);
  const factors: ScoreFactor[] = [];
  for (const [key, weight] of entries) {
    const path = `score.${key}`;
    const text = key.trim().toLowerCase();
    const field = text.replace(/^[-+]/, '');
    if (!known.has(field)) problems.unknownField(field, path, out.names, 'score factor');
    else if (factors.some((f) => f.field === field)) problems.add(path, `'${field}' is already a factor`);
    else if (!(Number.isFinite(weight) && weight > 0)) problems.add(path, `the weight must be a number > 0 (to prefer low values, write "-${field}")`);
    else factors.push({ field, weight, direction: text.startsWith('-') ? 'asc' : 'desc' });
  }
  if (factors.length !== entries.length) return;
  const score: ScoreDefinition = data.score_by == null ? { factors } : { factors, by: data.score_by };
  out.score = score;
  out.formulas.push({ name: SCORE_COLUMN, parsed: parseNumeric(scoreExpression(score), SCORE_COLUMN) });
  out.names.push(SCORE_COLUMN);
  out.crossTerms += factors.length;
}
