/**
 * The screening expression language: parse and
 * validate user text into a typed AST, print it canonically (for cache keys),
 * and compile it into a row predicate over a snapshot. User text is never
 * evaluated as code.
 *
 * Grammar: numbers (`-1.5`, `1e6`, `1_000`), field names, text in quotes,
 * `+ - * / %`, `< <= > >= = == != <>`, `and or not` (also `&& || !`,
 * case-insensitive), parentheses, `x [not] between a and b`,
 * `x [not] in (a, b)`, `x is [not] null`, `abs() min() max() log() sqrt() coalesce()`,
 * `true/false`, and the cross-sectional `rank() rank_asc() pct_rank() zscore()` with an
 * optional `by sector|industry|market` (expression-functions.ts).
 */

import { compileAst } from './expression-compile.js';
import { EXPRESSION_LIMITS, FLAG_FIELDS, FUNCTIONS, TEXT_FIELDS, parseAst } from './expression-parser.js';
import type { Expr } from './expression-parser.js';
import type { Snapshot } from '../engine/snapshot.js';
import { countCrossTerms, formatExpression, walk } from './expression-format.js';
import type { CompileContext } from './expression-compile.js';

export { EXPRESSION_LIMITS, FLAG_FIELDS, FUNCTIONS, TEXT_FIELDS, countCrossTerms, formatExpression, walk };
export type { CompileContext, Expr };

/** A validated expression. */
export interface ParsedExpression {
  readonly source: string;
  readonly ast: Expr;
  /** Indicator fields the expression reads, in order of first use (text and flag attributes excluded). */
  readonly fields: readonly string[];
  /** Fully parenthesized canonical text: equal for `per<10` and `PER < 10`. */
  readonly canonical: string;
}

const FLAG_SET = new Set<string>(FLAG_FIELDS);

/**
 * Parses `source`; with `knownFields`, every indicator name must be in it.
 * Throws invalidRequest with details `{ expression: <message>, position: <0-based index> }`
 * (plus `field` and `suggestions` for an unknown name).
 */
export function parseExpression(source: string, knownFields?: ReadonlySet<string>): ParsedExpression {
  const ast = parseAst(source, knownFields);
  const fields: string[] = [];
  walk(ast, (e) => {
    if (e.kind === 'field' && !e.text && !FLAG_SET.has(e.name) && !fields.includes(e.name)) fields.push(e.name);
  });
  return Object.freeze({ source, ast, fields: Object.freeze(fields), canonical: formatExpression(ast) });
}

/**
 * Compiles an expression into `row → matches` over `snapshot`. Fields the
 * snapshot does not hold read as null; cross-sectional terms rank over `context.universe`
 * (default: every row). Throws like parseExpression for text input.
 */
export function compileExpression(expression: ParsedExpression | string, snapshot: Snapshot, context: CompileContext = {}): (row: number) => boolean {
  const parsed = typeof expression === 'string' ? parseExpression(expression) : expression;
  return compileAst(parsed.ast, snapshot, context);
}

