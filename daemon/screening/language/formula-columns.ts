/**
 * Formula columns and the score. A query's `columns` and `score` become formulas
 * (name + parsed numeric expression); `deriveView` evaluates them in order over the universe
 * into columns of a snapshot view, so filters, the expression, sort, items and CSV read them
 * exactly like indicators. Evaluation order: universe → columns (in order) → score → range
 * filters and expression → sort → page.
 */
import { MAX_COLUMNS, MAX_SCORE_FACTORS } from '../../contract/screening.js';
import { createHash } from 'node:crypto';
import { invalidRequest } from '../../errors.js';
import { compileNumber, type CompileContext } from './expression-compile.js';
import { formatExpression } from './expression-format.js';
import { parseExpression, type ParsedExpression } from './expression.js';
import type { ScoreDefinition, ScreenQuery } from '../request/query-types.js';
import type { Column, Snapshot } from '../engine/snapshot.js';
export { MAX_COLUMNS, MAX_SCORE_FACTORS } from '../../contract/screening.js';

/** Name of the score column. */
export const SCORE_COLUMN = 'score';

/** A column to compute: its name and its parsed numeric expression. */
export interface Formula {
  readonly name: string;
  readonly parsed: ParsedExpression;
}

/**
 * The score as an expression: Σ (wᵢ / Σw) × pct_rank(±factorᵢ) [by group]. Weights are
 * normalised to sum 1, so the score is 0–100; an ascending factor ranks its negation; a null
 * factor makes the score null (arithmetic with null is null).
 */
export function scoreExpression(score: ScoreDefinition): string {
  const total = score.factors.reduce((sum, f) => sum + f.weight, 0);
  const by = score.by === undefined ? '' : ` by ${score.by}`;
  return score.factors.map((f) => `${f.weight / total} * pct_rank(${f.direction === 'asc' ? '-' : ''}${f.field})${by}`).join(' + ');
}

const NO_FORMULAS: readonly Formula[] = Object.freeze([]);

/** Formulas parsed per query object, kept beside it (the query stays plain data); released with the query. */
const FORMULAS = new WeakMap<ScreenQuery, readonly Formula[]>();

/** Remember `formulas` as those of `query` (the request parser's, checked against the registry); returns them. */
export function keepFormulas(query: ScreenQuery, formulas: readonly Formula[]): readonly Formula[] {
  // Frozen queries (the shared templates) are parsed on each use, never remembered.
  if (Object.isExtensible(query)) FORMULAS.set(query, formulas);
  return formulas;
}

/**
 * The query's columns then its score as formulas, parsed once per query object (the
 * request parser validates them against the registry first; queries built in code are trusted).
 * @throws AppError INVALID_REQUEST when a definition does not parse or is not a number
 */
export function formulasOf(query: ScreenQuery): readonly Formula[] {
  const kept = FORMULAS.get(query);
  if (kept !== undefined) return kept;
  if ((query.columns ?? []).length === 0 && (query.score?.factors ?? []).length === 0) return NO_FORMULAS;
  const formulas: Formula[] = (query.columns ?? []).map((c) => ({ name: c.name, parsed: parseNumeric(c.expression, `columns.${c.name}`) }));
  if (query.score !== undefined && query.score.factors.length > 0) {
    formulas.push({ name: SCORE_COLUMN, parsed: parseNumeric(scoreExpression(query.score), SCORE_COLUMN) });
  }
  return keepFormulas(query, formulas);
}

/** Parses a column definition; it must be a number. @throws AppError INVALID_REQUEST */
export function parseNumeric(source: string, path: string, knownFields?: ReadonlySet<string>): ParsedExpression {
  const parsed = parseExpression(source, knownFields);
  const kind = parsed.ast.kind;
  if (kind !== 'number' && kind !== 'field' && kind !== 'neg' && kind !== 'arith' && kind !== 'call' && kind !== 'xsec') {
    throw invalidRequest(`Invalid expression: a column is a number, not a condition (at position ${parsed.ast.pos})`, {
      expression: 'a column is a number, not a condition (put conditions in expression)',
      position: parsed.ast.pos,
      path,
    });
  }
  return parsed;
}

/** A view of `base` with the formulas as columns, and the identity of each. */
export interface DerivedView {
  view: Snapshot;
  /** The identity of a formula column (see `columnIdentity`), undefined for any other name. */
  resolve: (name: string) => string | undefined;
}

/**
 * The identity of a column whose canonical definition (earlier columns written as their
 * identities) is `definition`: a digest of it, so a column that refers to another refers to a
 * fixed-size name, never to its text. Written out instead, a chain of columns each using the
 * previous one a few times grows exponentially (20 such columns: hundreds of millions of
 * characters); this way every key is linear in its own definition. The identity also lists the
 * indicator fields the column reads, through the columns it uses (at most every indicator once),
 * so a memo can still tell which values a tick may change.
 */
export function columnIdentity(definition: string, fields: Iterable<string>): string {
  return `#${createHash('sha1').update(definition).digest('base64url')}[${[...fields].join(' ')}]`;
}

/** Rows of a formula column evaluated between two checks of the work guard. */
export const ROWS_PER_STEP = 512;

/**
 * Evaluates `formulas` in order over `context.universe` (null outside it; non-finite results
 * are null) into columns of a view of `base`. Cross-sectional terms rank over the universe.
 */
export function deriveView(base: Snapshot, formulas: readonly Formula[], context: CompileContext & { universe: Int32Array }): DerivedView {
  const steps = deriveSteps(base, formulas, context);
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/**
 * Like deriveView, but awaits `checkpoint()` between columns and every ROWS_PER_STEP rows, so a
 * long evaluation yields to the event loop and can be stopped (the checkpoint throws).
 */
export async function deriveViewSliced(
  base: Snapshot, formulas: readonly Formula[], context: CompileContext & { universe: Int32Array }, checkpoint: () => Promise<void>,
): Promise<DerivedView> {
  const steps = deriveSteps(base, formulas, context);
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
    await checkpoint();
  }
}

/** The evaluation of deriveView, yielding between units of work. */
function* deriveSteps(base: Snapshot, formulas: readonly Formula[], context: CompileContext & { universe: Int32Array }): Generator<void, DerivedView> {
  const identities = new Map<string, string>();
  const reads = new Map<string, ReadonlySet<string>>();
  const resolve = (name: string): string | undefined => identities.get(name);
  if (formulas.length === 0) return { view: base, resolve };
  const columns = new Map(base.columns);
  const view: Snapshot = Object.freeze({ ...base, columns, fields: Object.freeze([...base.fields, ...formulas.map((f) => f.name)]) });
  for (const formula of formulas) {
    const fields = new Set(formula.parsed.fields.flatMap((f) => [...(reads.get(f) ?? [f])]));
    const identity = columnIdentity(formatExpression(formula.parsed.ast, resolve), [...fields].sort());
    // Keyed by identity, so equal names with other meanings never collide.
    const key = `column|${context.scope ?? '*'}|${identity}`;
    let column = context.memo?.peek<Column>(base, key);
    if (column === undefined) {
      const value = compileNumber(formula.parsed.ast, view, { ...context, base, resolve });
      column = yield* computedColumn(value, context.universe, base.size);
      context.memo?.put(base, key, column);
    }
    columns.set(formula.name, column);
    identities.set(formula.name, identity);
    reads.set(formula.name, fields);
    yield;
  }
  return { view, resolve };
}

function* computedColumn(value: (row: number) => number, rows: Int32Array, size: number): Generator<void, Column> {
  const values = new Float64Array(size).fill(Number.NaN);
  const nulls = new Uint8Array((size + 7) >>> 3).fill(255);
  let count = 0;
  for (let k = 0; k < rows.length; k++) {
    if (k % ROWS_PER_STEP === ROWS_PER_STEP - 1) yield;
    const i = rows[k]!;
    const v = value(i);
    if (!Number.isFinite(v)) continue;
    values[i] = v;
    nulls[i >>> 3]! &= ~(1 << (i & 7));
    count++;
  }
  return Object.freeze({ values, nulls, count });
}
