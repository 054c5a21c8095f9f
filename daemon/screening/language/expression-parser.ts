/**
 * Recursive-descent parser and type checker of the screening expression
 * language. Produces a typed AST; nothing here ever
 * evaluates user text as code.
 *
 * Precedence, loosest first: or, and, not, comparison / between / in / is null,
 * + -, * / %, unary minus.
 */

import { expressionError, tokenize } from './expression-lexer.js';
import type { Token } from './expression-lexer.js';
import { suggestNames } from './suggest.js';
import { CROSS_FUNCTIONS, FUNCTIONS, GROUP_BY } from './expression-functions.js';
import type { CrossFn, GroupBy, ScalarFn } from './expression-functions.js';

export { FUNCTIONS };

/** Hard limits on user expressions. */
export const EXPRESSION_LIMITS = Object.freeze({ maxLength: 2000, maxDepth: 64 });

/** Text-valued stock attributes usable in expressions (`market = 'KOSPI'`). */
export const TEXT_FIELDS = ['market', 'sector', 'industry', 'code', 'name', 'board'] as const;
/** 1/0 universe flags usable in expressions (`not is_preferred`). */
export const FLAG_FIELDS = ['is_administrative', 'is_spac', 'is_preferred', 'is_halted'] as const;

/** Arithmetic operators. */
export type ArithOp = '+' | '-' | '*' | '/' | '%';
/** Comparison operators after normalization (`==` → `=`, `<>` → `!=`). */
export type CompareOp = '<' | '<=' | '>' | '>=' | '=' | '!=';
/** Static type of an expression node. */
export type ValueType = 'number' | 'text' | 'bool';

/** A typed expression tree node; `pos` is the 0-based index where its source text starts. */
export type Expr =
  | { kind: 'number'; value: number; pos: number }
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'field'; name: string; text: boolean; pos: number }
  | { kind: 'neg'; arg: Expr; pos: number }
  | { kind: 'arith'; op: ArithOp; left: Expr; right: Expr; pos: number }
  | { kind: 'call'; fn: ScalarFn; args: Expr[]; pos: number }
  | { kind: 'xsec'; fn: CrossFn; arg: Expr; by: GroupBy | null; pos: number }
  | { kind: 'compare'; op: CompareOp; left: Expr; right: Expr; pos: number }
  | { kind: 'between'; arg: Expr; low: Expr; high: Expr; negated: boolean; pos: number }
  | { kind: 'in'; arg: Expr; list: Expr[]; negated: boolean; pos: number }
  | { kind: 'isnull'; arg: Expr; negated: boolean; pos: number }
  | { kind: 'and' | 'or'; left: Expr; right: Expr; pos: number }
  | { kind: 'not'; arg: Expr; pos: number };

const KEYWORDS = new Set(['and', 'or', 'not', 'between', 'in', 'is', 'null', 'true', 'false']);
const COMPARE_OPS = new Set<string>(['<', '<=', '>', '>=', '=', '!=']);
const TEXT_SET = new Set<string>(TEXT_FIELDS);
const CROSS_SET = new Set<string>(CROSS_FUNCTIONS);
const GROUP_SET = new Set<string>(GROUP_BY);
const ALL_FUNCTIONS: readonly string[] = [...Object.keys(FUNCTIONS), ...CROSS_FUNCTIONS];
const FLAG_SET = new Set<string>(FLAG_FIELDS);

/** Static type of `e`. */
export function typeOf(e: Expr): ValueType {
  switch (e.kind) {
    case 'number': case 'neg': case 'arith': case 'call': case 'xsec': return 'number';
    case 'string': return 'text';
    case 'field': return e.text ? 'text' : 'number';
    default: return 'bool';
  }
}

/**
 * Parses and type-checks `source`. With `knownFields`, identifiers other than
 * text/flag attributes must be in it. Throws invalidRequest with
 * `{ expression, position }` (and `suggestions` for unknown names).
 */
export function parseAst(source: string, knownFields?: ReadonlySet<string>): Expr {
  if (source.length > EXPRESSION_LIMITS.maxLength) {
    throw expressionError(`expression is longer than ${EXPRESSION_LIMITS.maxLength} characters`, EXPRESSION_LIMITS.maxLength);
  }
  const parser = new Parser(tokenize(source), knownFields);
  const first = parser.peek();
  if (first.type === 'eof') throw expressionError('expression is empty', first.pos);
  const ast = parser.parseOr();
  const rest = parser.peek();
  if (rest.type !== 'eof') {
    const message = rest.type === ')' ? "unmatched ')'" : `unexpected ${describe(rest)} after the end of the expression`;
    throw expressionError(message, rest.pos);
  }
  if (typeOf(ast) === 'text') throw expressionError('a text value is not a condition; compare it with = or in', ast.pos);
  return ast;
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[], private readonly known?: ReadonlySet<string>) {}

  peek(): Token {
    return this.tokens[this.index] ?? this.tokens[this.tokens.length - 1]!;
  }

  private next(): Token {
    const t = this.peek();
    if (t.type !== 'eof') this.index++;
    return t;
  }

  private isWord(word: string, offset = 0): boolean {
    const t = this.tokens[this.index + offset];
    return t !== undefined && t.type === 'ident' && t.text === word;
  }

  private isOp(op: string): boolean {
    const t = this.peek();
    return t.type === 'op' && t.text === op;
  }

  private enter(at: Token): void {
    if (++this.depth > EXPRESSION_LIMITS.maxDepth) {
      throw expressionError(`expression is nested more than ${EXPRESSION_LIMITS.maxDepth} levels deep`, at.pos);
    }
  }

  parseOr(): Expr {
    this.enter(this.peek());
    let left = this.parseAnd();
    while (this.isWord('or') || this.isOp('or')) {
      const op = this.next();
      left = { kind: 'or', left: condition(left), right: condition(this.parseAnd()), pos: left.pos };
    }
    this.depth--;
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseNot();
    while (this.isWord('and') || this.isOp('and')) {
      const op = this.next();
      left = { kind: 'and', left: condition(left), right: condition(this.parseNot()), pos: left.pos };
    }
    return left;
  }

  private parseNot(): Expr {
    if (this.isWord('not') || this.isOp('not')) {
      const op = this.next();
      this.enter(op);
      const arg = condition(this.parseNot());
      this.depth--;
      return { kind: 'not', arg, pos: op.pos };
    }
    return this.parsePredicate();
  }

  private parsePredicate(): Expr {
    const left = this.parseAdditive();
    const t = this.peek();
    if (t.type === 'op' && COMPARE_OPS.has(t.text)) {
      this.next();
      return compare(t.text as CompareOp, left, this.parseAdditive(), t.pos);
    }
    const negated = this.isWord('not') && (this.isWord('between', 1) || this.isWord('in', 1));
    if (negated) this.next();
    if (this.isWord('between')) return this.parseBetween(left, negated);
    if (this.isWord('in')) return this.parseIn(left, negated);
    if (this.isWord('is')) return this.parseIsNull(left);
    return left;
  }

  private parseBetween(arg: Expr, negated: boolean): Expr {
    this.next();
    const low = this.parseAdditive();
    if (!this.isWord('and')) throw expressionError(`expected 'and' in 'between … and …' but found ${describe(this.peek())}`, this.peek().pos);
    this.next();
    const high = this.parseAdditive();
    for (const e of [arg, low, high]) requireType(e, 'number', 'between needs numbers');
    return { kind: 'between', arg, low, high, negated, pos: arg.pos };
  }

  private parseIn(arg: Expr, negated: boolean): Expr {
    this.next();
    const open = this.expect('(', "'(' after 'in'");
    const list: Expr[] = [];
    if (this.peek().type === ')') throw expressionError("'in' needs at least one value", this.peek().pos);
    for (;;) {
      list.push(this.parseAdditive());
      if (this.peek().type === ',') { this.next(); continue; }
      this.closeParen(open);
      break;
    }
    const argType = typeOf(arg);
    if (argType === 'bool') throw expressionError("'in' needs a number or text on its left", arg.pos);
    for (const item of list) {
      requireType(item, argType, `'in' list values must be ${argType === 'text' ? 'quoted text' : 'numbers'}`);
      if (argType === 'text' && item.kind !== 'string') throw expressionError("'in' list values must be quoted text", item.pos);
    }
    return { kind: 'in', arg, list: arg.kind === 'field' && arg.name === 'market' ? list.map(upper) : list, negated, pos: arg.pos };
  }

  private parseIsNull(arg: Expr): Expr {
    this.next();
    const negated = this.isWord('not');
    if (negated) this.next();
    if (!this.isWord('null')) throw expressionError(`expected 'null' after 'is' but found ${describe(this.peek())}`, this.peek().pos);
    this.next();
    if (typeOf(arg) === 'bool') throw expressionError("'is null' needs a field or value on its left", arg.pos);
    return { kind: 'isnull', arg, negated, pos: arg.pos };
  }

  private parseAdditive(): Expr {
    let left = this.parseMultiplicative();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next();
      left = arith(op.text as ArithOp, left, this.parseMultiplicative(), op.pos);
    }
    return left;
  }

  private parseMultiplicative(): Expr {
    let left = this.parseUnary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = this.next();
      left = arith(op.text as ArithOp, left, this.parseUnary(), op.pos);
    }
    return left;
  }

  private parseUnary(): Expr {
    if (this.isOp('-') || this.isOp('+')) {
      const op = this.next();
      this.enter(op);
      const arg = this.parseUnary();
      this.depth--;
      requireType(arg, 'number', `'${op.text}' needs a number`);
      if (op.text === '+') return arg;
      return arg.kind === 'number' ? { kind: 'number', value: -arg.value, pos: op.pos } : { kind: 'neg', arg, pos: op.pos };
    }
    return this.parsePrimary();
  }

  private parsePrimary(): Expr {
    const t = this.next();
    switch (t.type) {
      case 'num': return { kind: 'number', value: t.num, pos: t.pos };
      case 'str': return { kind: 'string', value: t.text, pos: t.pos };
      case '(': {
        const inner = this.parseOr();
        this.closeParen(t);
        // Errors about a parenthesized operand point at its '('.
        return { ...inner, pos: t.pos };
      }
      case 'ident': return this.parseIdentifier(t);
      case 'eof': throw expressionError('unexpected end of expression: expected a value', t.pos);
      default: throw expressionError(`unexpected ${describe(t)}: expected a value`, t.pos);
    }
  }

  private parseIdentifier(t: Token): Expr {
    if (t.text === 'true' || t.text === 'false') return { kind: 'number', value: t.text === 'true' ? 1 : 0, pos: t.pos };
    if (KEYWORDS.has(t.text)) throw expressionError(`unexpected keyword '${t.text}': expected a value`, t.pos);
    if (this.peek().type === '(') return this.parseCall(t);
    if (TEXT_SET.has(t.text)) return { kind: 'field', name: t.text, text: true, pos: t.pos };
    if (FLAG_SET.has(t.text) || this.known === undefined || this.known.has(t.text)) {
      return { kind: 'field', name: t.text, text: false, pos: t.pos };
    }
    const candidates = [...this.known, ...TEXT_FIELDS, ...FLAG_FIELDS];
    const suggestions = suggestNames(t.text, candidates);
    const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(', ')}?` : '';
    throw expressionError(`unknown field '${t.text}'${hint}`, t.pos, { field: t.text, suggestions });
  }

  private parseCall(name: Token): Expr {
    const open = this.next();
    this.enter(name);
    if (!Object.hasOwn(FUNCTIONS, name.text) && !CROSS_SET.has(name.text)) {
      const suggestions = suggestNames(name.text, ALL_FUNCTIONS, 3);
      const hint = suggestions.length > 0 ? `did you mean ${suggestions.join(', ')}? ` : '';
      throw expressionError(`unknown function '${name.text}'; ${hint}available: ${ALL_FUNCTIONS.join(', ')}`, name.pos, { function: name.text, suggestions });
    }
    const args: Expr[] = [];
    if (this.peek().type !== ')') {
      for (;;) {
        const arg = this.parseAdditive();
        requireType(arg, 'number', `${name.text}() needs numbers`);
        args.push(arg);
        if (this.peek().type !== ',') break;
        this.next();
      }
    }
    this.closeParen(open);
    this.depth--;
    const arity = Object.hasOwn(FUNCTIONS, name.text) ? FUNCTIONS[name.text as ScalarFn] : 1;
    if (args.length !== arity) throw expressionError(`${name.text}() takes ${arity} argument${arity === 1 ? '' : 's'}, got ${args.length}`, name.pos);
    if (!CROSS_SET.has(name.text)) return { kind: 'call', fn: name.text as ScalarFn, args, pos: name.pos };
    return { kind: 'xsec', fn: name.text as CrossFn, arg: args[0]!, by: this.parseBy(), pos: name.pos };
  }

  /** The optional `by sector|industry|market` after a cross-sectional call. */
  private parseBy(): GroupBy | null {
    if (!this.isWord('by')) return null;
    this.next();
    const group = this.peek();
    if (group.type !== 'ident' || !GROUP_SET.has(group.text)) {
      throw expressionError(`expected ${GROUP_BY.join(', ')} after 'by' but found ${describe(group)}`, group.pos, { suggestions: [...GROUP_BY] });
    }
    this.next();
    return group.text as GroupBy;
  }

  private expect(type: Token['type'], what: string): Token {
    const t = this.peek();
    if (t.type !== type) throw expressionError(`expected ${what} but found ${describe(t)}`, t.pos);
    return this.next();
  }

  private closeParen(open: Token): void {
    const t = this.peek();
    if (t.type === ')') {
      this.next();
      return;
    }
    if (t.type === 'eof') throw expressionError(`unclosed '(' opened at position ${open.pos}`, open.pos);
    throw expressionError(`expected ')' but found ${describe(t)}`, t.pos);
  }
}

function describe(t: Token): string {
  switch (t.type) {
    case 'eof': return 'the end of the expression';
    case 'num': return `number ${t.text}`;
    case 'str': return `'${t.text}'`;
    case 'ident': return `'${t.text}'`;
    default: return `'${t.text === 'not' ? '!' : t.text}'`;
  }
}

function requireType(e: Expr, want: ValueType, message: string): void {
  if (typeOf(e) !== want) throw expressionError(message, e.pos);
}

/** A boolean operand: conditions as they are, numbers by truthiness (nonzero), text rejected. */
function condition(e: Expr): Expr {
  if (typeOf(e) === 'text') throw expressionError('a text value is not a condition; compare it with = or in', e.pos);
  return e;
}

function arith(op: ArithOp, left: Expr, right: Expr, pos: number): Expr {
  requireType(left, 'number', `'${op}' needs numbers on both sides`);
  requireType(right, 'number', `'${op}' needs numbers on both sides`);
  return { kind: 'arith', op, left, right, pos: left.pos };
}

function compare(op: CompareOp, left: Expr, right: Expr, pos: number): Expr {
  const lt = typeOf(left);
  const rt = typeOf(right);
  if (lt === 'bool' || rt === 'bool') throw expressionError(`cannot compare a condition with '${op}'; use and/or`, pos);
  if (lt !== rt) throw expressionError(`cannot compare ${lt} with ${rt} using '${op}'`, pos);
  if (lt === 'text' && op !== '=' && op !== '!=') throw expressionError(`text can only be compared with = or != (not '${op}')`, pos);
  const isMarket = (e: Expr): boolean => e.kind === 'field' && e.name === 'market';
  if (isMarket(left)) right = upper(right);
  if (isMarket(right)) left = upper(left);
  return { kind: 'compare', op, left, right, pos: left.pos };
}

// Market names are upper case; accept `market = 'kospi'`.
function upper(e: Expr): Expr {
  return e.kind === 'string' ? { ...e, value: e.value.toUpperCase() } : e;
}
