/**
 * Printing and walking expression trees: the canonical text (cache and memo keys) and a
 * visitor. Apart from expression.ts so the compiler can key its memo without a cycle.
 */
import type { Expr } from './expression-parser.js';

/** Number of cross-sectional terms (rank, pct_rank, …) in `e`. */
export function countCrossTerms(e: Expr): number {
  let n = 0;
  walk(e, (x) => {
    if (x.kind === 'xsec') n++;
  });
  return n;
}

/**
 * Canonical, fully parenthesized text of an AST. With `resolve`, a field it knows (a formula
 * column) is written as its definition, so the text identifies the values, not the name.
 */
export function formatExpression(e: Expr, resolve?: (name: string) => string | undefined): string {
  const f = (x: Expr): string => formatExpression(x, resolve);
  switch (e.kind) {
    case 'number': return String(e.value);
    case 'string': return `'${e.value.replaceAll("'", "''")}'`;
    case 'field': {
      const definition = resolve?.(e.name);
      return definition === undefined ? e.name : `{${definition}}`;
    }
    case 'neg': return `(-${f(e.arg)})`;
    case 'arith': case 'compare': case 'and': case 'or': {
      const op = 'op' in e ? e.op : e.kind;
      return `(${f(e.left)} ${op} ${f(e.right)})`;
    }
    case 'xsec': return `(${e.fn}(${f(e.arg)})${e.by === null ? '' : ` by ${e.by}`})`;
    case 'call': return `${e.fn}(${e.args.map(f).join(', ')})`;
    case 'between': {
      const not = e.negated ? 'not ' : '';
      return `(${f(e.arg)} ${not}between ${f(e.low)} and ${f(e.high)})`;
    }
    case 'in': return `(${f(e.arg)} ${e.negated ? 'not ' : ''}in (${e.list.map(f).join(', ')}))`;
    case 'isnull': return `(${f(e.arg)} is ${e.negated ? 'not ' : ''}null)`;
    case 'not': return `(not ${f(e.arg)})`;
  }
}

/** Calls `visit` on `e` and every node below it, parents first. */
export function walk(e: Expr, visit: (e: Expr) => void): void {
  visit(e);
  switch (e.kind) {
    case 'neg': case 'not': case 'isnull': case 'xsec': walk(e.arg, visit); break;
    case 'arith': case 'compare': case 'and': case 'or': walk(e.left, visit); walk(e.right, visit); break;
    case 'call': e.args.forEach((a) => walk(a, visit)); break;
    case 'between': [e.arg, e.low, e.high].forEach((a) => walk(a, visit)); break;
    case 'in': [e.arg, ...e.list].forEach((a) => walk(a, visit)); break;
    default: break;
  }
}
