/**
 * The screening expression language (issue 4 "Expressions"): parse and
 * validate user text into a typed AST, print it canonically (for cache keys),
 * and compile it into a row predicate over a snapshot. User text is never
 * evaluated as code.
 *
 * Grammar: numbers (`-1.5`, `1e6`, `1_000`), field names, text in quotes,
 * `+ - * / %`, `< <= > >= = == != <>`, `and or not` (also `&& || !`,
 * case-insensitive), parentheses, `x [not] between a and b`,
 * `x [not] in (a, b)`, `x is [not] null`, `abs() min() max()`, `true/false`.
 */

import { compileAst } from './expression-compile.js';
import { EXPRESSION_LIMITS, FLAG_FIELDS, FUNCTIONS, TEXT_FIELDS, parseAst } from './expression-parser.js';
import type { Expr } from './expression-parser.js';
import type { Snapshot } from './snapshot.js';

export { EXPRESSION_LIMITS, FLAG_FIELDS, FUNCTIONS, TEXT_FIELDS };
export type { Expr };

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
 * snapshot does not hold read as null. Throws like parseExpression for text input.
 */
export function compileExpression(expression: ParsedExpression | string, snapshot: Snapshot): (row: number) => boolean {
  const parsed = typeof expression === 'string' ? parseExpression(expression) : expression;
  return compileAst(parsed.ast, snapshot);
}

/** Canonical, fully parenthesized text of an AST. */
export function formatExpression(e: Expr): string {
  switch (e.kind) {
    case 'number': return String(e.value);
    case 'string': return `'${e.value.replaceAll("'", "''")}'`;
    case 'field': return e.name;
    case 'neg': return `(-${formatExpression(e.arg)})`;
    case 'arith': case 'compare': case 'and': case 'or': {
      const op = 'op' in e ? e.op : e.kind;
      return `(${formatExpression(e.left)} ${op} ${formatExpression(e.right)})`;
    }
    case 'call': return `${e.fn}(${e.args.map(formatExpression).join(', ')})`;
    case 'between': {
      const not = e.negated ? 'not ' : '';
      return `(${formatExpression(e.arg)} ${not}between ${formatExpression(e.low)} and ${formatExpression(e.high)})`;
    }
    case 'in': return `(${formatExpression(e.arg)} ${e.negated ? 'not ' : ''}in (${e.list.map(formatExpression).join(', ')}))`;
    case 'isnull': return `(${formatExpression(e.arg)} is ${e.negated ? 'not ' : ''}null)`;
    case 'not': return `(not ${formatExpression(e.arg)})`;
  }
}

function walk(e: Expr, visit: (e: Expr) => void): void {
  visit(e);
  switch (e.kind) {
    case 'neg': case 'not': case 'isnull': walk(e.arg, visit); break;
    case 'arith': case 'compare': case 'and': case 'or': walk(e.left, visit); walk(e.right, visit); break;
    case 'call': e.args.forEach((a) => walk(a, visit)); break;
    case 'between': [e.arg, e.low, e.high].forEach((a) => walk(a, visit)); break;
    case 'in': [e.arg, ...e.list].forEach((a) => walk(a, visit)); break;
    default: break;
  }
}
