/**
 * Why a screen found nothing (an empty answer explains itself): how many stocks the universe
 * holds and how many are left after each top-level condition in turn (each `and` term of the
 * expression, then each range filter), and which of the fields it reads have a value for too
 * few stocks, with what to load. Computed only for an empty answer: a few passes over the
 * snapshot, nothing on the path of a screen that matches.
 */
import type { ScreenExplanation } from '../../contract/screening.js';
import { INDICATORS } from '../../indicators/registry.js';
import type { Expr } from '../language/expression-parser.js';
import { formatExpression } from '../language/expression-format.js';
import { formulasOf } from '../language/formula-columns.js';
import { expressionOf, matchingRows, type ScreenQuery } from './query.js';
import { filterRows } from './select.js';
import { isNullAt, type Snapshot } from './snapshot.js';

export type { ScreenExplanation } from '../../contract/screening.js';

/** A field known for less than this share of the universe is reported in `coverage`. */
const LOW_COVERAGE = 0.5;

const NEEDS_STATEMENTS = new Set<string>(INDICATORS.filter((d) => d.inputs.includes('financials')).map((d) => d.id));

/** The `and` terms of an expression's top level, in order. */
function conjuncts(e: Expr): Expr[] {
  return e.kind === 'and' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e];
}

/** A term as text, without the outer parentheses the canonical form adds. */
function termText(e: Expr): string {
  const text = formatExpression(e);
  return text.startsWith('(') && text.endsWith(')') ? text.slice(1, -1) : text;
}

/** What to load so that `field` has values. */
function remedy(field: string): string {
  return NEEDS_STATEMENTS.has(field) ? 'load financial statements (OpenDART reports or a statements CSV)' : 'load more price history';
}

/**
 * The funnel and field coverage of `query` on `snapshot` (meant for a query that matched nothing).
 * @throws AppError INVALID_REQUEST like the screen itself (never for a query that already ran)
 */
export function explainEmpty(snapshot: Snapshot, query: ScreenQuery, knownFields: ReadonlySet<string>): ScreenExplanation {
  const count = (filters: ScreenQuery['filters'], terms: Expr[]): number => {
    const expression = terms.length === 0 ? undefined : terms.map((t) => `(${formatExpression(t)})`).join(' and ');
    const sub: ScreenQuery = { ...query, filters: [...filters], expression, page: 1 };
    return matchingRows(snapshot, sub).rows.length;
  };
  const universeRows = filterRows(snapshot, query.universe, []);
  const steps: ScreenExplanation['steps'] = [];
  const parsed = expressionOf(query);
  const terms = parsed ? conjuncts(parsed.ast) : [];
  for (let i = 0; i < terms.length; i += 1) steps.push({ condition: termText(terms[i]!), remaining: count([], terms.slice(0, i + 1)) });
  for (let i = 0; i < query.filters.length; i += 1) {
    const f = query.filters[i]!;
    const range = [f.min !== undefined ? `${f.field} >= ${f.min}` : null, f.max !== undefined ? `${f.field} <= ${f.max}` : null].filter(Boolean).join(' and ');
    steps.push({ condition: range || f.field, remaining: count(query.filters.slice(0, i + 1), terms) });
  }
  const coverage: ScreenExplanation['coverage'] = [];
  // The fields the conditions read (not the columns merely shown).
  const conditionFields = new Set([...(parsed?.fields ?? []), ...query.filters.map((f) => f.field), ...formulasOf(query).flatMap((f) => f.parsed.fields)]);
  for (const field of [...conditionFields].filter((f) => knownFields.has(f))) {
    const column = snapshot.columns.get(field);
    if (!column) continue;
    let known = 0;
    for (const row of universeRows) if (!isNullAt(column, row)) known += 1;
    if (known < LOW_COVERAGE * universeRows.length) coverage.push({ field, known, of: universeRows.length, remedy: remedy(field) });
  }
  return { universe: universeRows.length, steps, coverage };
}
