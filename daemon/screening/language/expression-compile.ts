/**
 * Compiles a typed expression AST into closures over a snapshot's columns.
 *
 * Null semantics are SQL's three-valued logic: numbers are NaN when null,
 * arithmetic with a null is null, a comparison with a null is UNKNOWN, and
 * and/or/not follow Kleene logic (`not UNKNOWN` stays UNKNOWN). A row matches
 * only when the whole condition is TRUE. Division by zero, log of x ≤ 0 and sqrt of x < 0 are
 * null. Cross-sectional terms are evaluated once per compile over the context's
 * universe into a column (remembered in the context's memo) and then read like a field.
 */

import { MARKETS } from '../../kernel/records.js';
import { FLAG_BITS } from '../engine/snapshot.js';
import type { DictColumn, Snapshot, StockFlag } from '../engine/snapshot.js';
import { typeOf } from './expression-parser.js';
import type { ArithOp, CompareOp, Expr } from './expression-parser.js';
import { crossSection, groupIds, rowMask, sortedValues, type CrossSectionMemo } from './cross-section.js';
import { formatExpression, walk } from './expression-format.js';

type Num = (row: number) => number;
type Txt = (row: number) => string | null;
/** Three-valued truth: TRUE, FALSE or UNKNOWN. */
type Tri = (row: number) => number;

const TRUE = 1;
const FALSE = 0;
const UNKNOWN = 2;

const notTri = (t: number): number => (t === UNKNOWN ? UNKNOWN : 1 - t);

/** Where cross-sectional terms rank, and where their columns are remembered. */
export interface CompileContext {
  /** Rows cross-sectional functions rank over (the request's universe); default every row. */
  universe?: Int32Array;
  /** Remembers cross-sectional columns across requests. */
  memo?: CrossSectionMemo;
  /** Snapshot the memo is keyed by (the base of a view with formula columns); default the compiled one. */
  base?: Snapshot;
  /** Names the universe in memo keys (required with `memo` when `universe` is not every row). */
  scope?: string;
  /** Canonical definition of a formula column, so memo keys name values, not column names. */
  resolve?: (name: string) => string | undefined;
}

/** Returns a row predicate: true when the expression is TRUE for that row (never for UNKNOWN). */
export function compileAst(ast: Expr, snapshot: Snapshot, context: CompileContext = {}): (row: number) => boolean {
  const tri = new Compiler(snapshot, context).bool(ast);
  return (row) => tri(row) === TRUE;
}

/** Returns `row → value` of a numeric AST (NaN for null). */
export function compileNumber(ast: Expr, snapshot: Snapshot, context: CompileContext = {}): (row: number) => number {
  return new Compiler(snapshot, context).num(ast);
}

class Compiler {
  constructor(private readonly s: Snapshot, private readonly ctx: CompileContext) {}

  bool(e: Expr): Tri {
    switch (e.kind) {
      case 'and': return this.and(this.bool(e.left), this.bool(e.right));
      case 'or': return this.or(this.bool(e.left), this.bool(e.right));
      case 'not': {
        const arg = this.bool(e.arg);
        return (i) => notTri(arg(i));
      }
      case 'compare': return typeOf(e.left) === 'text' ? this.textCompare(e.op, e.left, e.right) : numCompare(e.op, this.num(e.left), this.num(e.right));
      case 'between': return this.between(e.arg, e.low, e.high, e.negated);
      case 'in': return this.inList(e.arg, e.list, e.negated);
      case 'isnull': return this.isNull(e.arg, e.negated);
      default: {
        // A number used as a condition (e.g. a 1/0 flag): nonzero is TRUE.
        const v = this.num(e);
        return (i) => {
          const x = v(i);
          return x !== x ? UNKNOWN : x !== 0 ? TRUE : FALSE;
        };
      }
    }
  }

  private and(l: Tri, r: Tri): Tri {
    return (i) => {
      const a = l(i);
      if (a === FALSE) return FALSE;
      const b = r(i);
      if (b === FALSE) return FALSE;
      return a === TRUE && b === TRUE ? TRUE : UNKNOWN;
    };
  }

  private or(l: Tri, r: Tri): Tri {
    return (i) => {
      const a = l(i);
      if (a === TRUE) return TRUE;
      const b = r(i);
      if (b === TRUE) return TRUE;
      return a === FALSE && b === FALSE ? FALSE : UNKNOWN;
    };
  }

  private between(argE: Expr, lowE: Expr, highE: Expr, negated: boolean): Tri {
    const [arg, low, high] = [this.num(argE), this.num(lowE), this.num(highE)];
    const hit = negated ? FALSE : TRUE;
    const miss = negated ? TRUE : FALSE;
    return (i) => {
      const v = arg(i);
      const lo = low(i);
      const hi = high(i);
      if (v !== v || lo !== lo || hi !== hi) return UNKNOWN;
      return v >= lo && v <= hi ? hit : miss;
    };
  }

  private inList(argE: Expr, list: Expr[], negated: boolean): Tri {
    if (typeOf(argE) === 'text') {
      const member = this.membership(argE, list.map((e) => (e.kind === 'string' ? e.value : '')));
      return negated ? (i) => notTri(member(i)) : member;
    }
    const arg = this.num(argE);
    const items = list.map((e) => this.num(e));
    const member: Tri = (i) => {
      const v = arg(i);
      if (v !== v) return UNKNOWN;
      let sawNull = false;
      for (const item of items) {
        const x = item(i);
        if (x === v) return TRUE;
        if (x !== x) sawNull = true;
      }
      // SQL: `1 in (2, null)` is UNKNOWN, not FALSE.
      return sawNull ? UNKNOWN : FALSE;
    };
    return negated ? (i) => notTri(member(i)) : member;
  }

  private isNull(argE: Expr, negated: boolean): Tri {
    const yes = negated ? FALSE : TRUE;
    const no = negated ? TRUE : FALSE;
    if (typeOf(argE) === 'text') {
      const get = this.text(argE);
      return (i) => (get(i) === null ? yes : no);
    }
    const get = this.num(argE);
    return (i) => {
      const v = get(i);
      return v !== v ? yes : no;
    };
  }

  private textCompare(op: CompareOp, left: Expr, right: Expr): Tri {
    let cmp: Tri;
    if (right.kind === 'string' && left.kind !== 'string') cmp = this.membership(left, [right.value]);
    else if (left.kind === 'string' && right.kind !== 'string') cmp = this.membership(right, [left.value]);
    else {
      const [l, r] = [this.text(left), this.text(right)];
      cmp = (i) => {
        const a = l(i);
        const b = r(i);
        return a === null || b === null ? UNKNOWN : a === b ? TRUE : FALSE;
      };
    }
    return op === '!=' ? (i) => notTri(cmp(i)) : cmp;
  }

  /** TRUE when the text value is one of `values`, UNKNOWN when it is null. */
  private membership(e: Expr, values: string[]): Tri {
    const wanted = new Set(values);
    if (e.kind === 'field' && (e.name === 'sector' || e.name === 'industry')) return dictMembership(this.s[e.name], wanted);
    if (e.kind === 'field' && e.name === 'market') {
      const ids = this.s.market;
      const mask = Uint8Array.from(MARKETS, (m) => (wanted.has(m) ? TRUE : FALSE));
      return (i) => mask[ids[i]!]!;
    }
    const get = this.text(e);
    return (i) => {
      const v = get(i);
      return v === null ? UNKNOWN : wanted.has(v) ? TRUE : FALSE;
    };
  }

  private text(e: Expr): Txt {
    if (e.kind === 'string') {
      const value = e.value;
      return () => value;
    }
    if (e.kind !== 'field') throw new Error(`compileAst: ${e.kind} is not text`);
    const s = this.s;
    switch (e.name) {
      case 'market': return (i) => MARKETS[s.market[i]!] ?? null;
      case 'sector': case 'industry': {
        const { ids, dict } = s[e.name];
        return (i) => (ids[i] === 0 ? null : dict[ids[i]! - 1] ?? null);
      }
      case 'code': return (i) => s.codes[i] ?? null;
      case 'name': return (i) => s.names[i] ?? null;
      default: return (i) => s.boards[i] ?? null;
    }
  }

  num(e: Expr): Num {
    switch (e.kind) {
      case 'number': {
        const c = e.value;
        return () => c;
      }
      case 'field': return this.field(e.name);
      case 'neg': {
        const arg = this.num(e.arg);
        return (i) => -arg(i);
      }
      case 'arith': return arith(e.op, this.num(e.left), this.num(e.right));
      case 'call': return scalarCall(e.fn, e.args.map((a) => this.num(a)));
      case 'xsec': return this.crossSectional(e);
      default: throw new Error(`compileAst: ${e.kind} is not a number`);
    }
  }

  private crossSectional(e: Extract<Expr, { kind: 'xsec' }>): Num {
    const { universe, memo, base, scope, resolve } = this.ctx;
    const owner = base ?? this.s;
    const size = this.s.size;
    const compute = (): Float64Array => {
      // An argument over indicators alone has the same order in every universe: sort it once per snapshot.
      const shared = memo !== undefined && !dependsOnUniverse(e.arg, resolve);
      const sort = () => sortedValues(this.num(e.arg), shared || universe === undefined ? allRows(size) : universe);
      const order = shared ? memo.get(owner, `order|${formatExpression(e.arg)}`, sort) : sort();
      const mask = shared && universe !== undefined ? this.universeMask(universe) : null;
      return crossSection(e.fn, order, size, groupIds(this.s, e.by), mask);
    };
    const values = memo === undefined ? compute() : memo.get(owner, `${scope ?? '*'}|${formatExpression(e, resolve)}`, compute);
    return (i) => values[i]!;
  }

  private mask: Uint8Array | undefined;

  /** 1 at every universe row, built once per compile. */
  private universeMask(universe: Int32Array): Uint8Array {
    return (this.mask ??= rowMask(universe, this.s.size));
  }

  private field(name: string): Num {
    if (name.startsWith('is_') && Object.hasOwn(FLAG_BITS, name.slice(3))) {
      const bit = FLAG_BITS[name.slice(3) as StockFlag];
      const flags = this.s.flags;
      return (i) => ((flags[i]! & bit) !== 0 ? 1 : 0);
    }
    const column = this.s.columns.get(name);
    if (column === undefined) return () => Number.NaN;
    const values = column.values;
    return (i) => values[i]!;
  }
}

function dictMembership(column: DictColumn, wanted: ReadonlySet<string>): Tri {
  const mask = new Uint8Array(column.dict.length + 1);
  mask[0] = UNKNOWN;
  column.dict.forEach((value, k) => {
    mask[k + 1] = wanted.has(value) ? TRUE : FALSE;
  });
  const ids = column.ids;
  return (i) => mask[ids[i]!]!;
}

function allRows(size: number): Int32Array {
  const rows = new Int32Array(size);
  for (let i = 0; i < size; i++) rows[i] = i;
  return rows;
}

/** True when `e`'s values depend on the universe: it holds a cross-sectional term or a formula column. */
function dependsOnUniverse(e: Expr, resolve: ((name: string) => string | undefined) | undefined): boolean {
  let depends = false;
  walk(e, (x) => {
    if (x.kind === 'xsec' || (x.kind === 'field' && resolve?.(x.name) !== undefined)) depends = true;
  });
  return depends;
}

function scalarCall(fn: Extract<Expr, { kind: 'call' }>['fn'], args: Num[]): Num {
  const [a, b] = [args[0]!, args[1] ?? args[0]!];
  switch (fn) {
    case 'abs': return (i) => Math.abs(a(i));
    // Math.min/max return NaN when either side is NaN: null in, null out.
    case 'min': return (i) => Math.min(a(i), b(i));
    case 'max': return (i) => Math.max(a(i), b(i));
    case 'log': return (i) => {
      const x = a(i);
      return x > 0 ? Math.log(x) : Number.NaN;
    };
    case 'sqrt': return (i) => Math.sqrt(a(i));
    case 'coalesce': return (i) => {
      const x = a(i);
      return x === x ? x : b(i);
    };
  }
}

function arith(op: ArithOp, l: Num, r: Num): Num {
  switch (op) {
    case '+': return (i) => l(i) + r(i);
    case '-': return (i) => l(i) - r(i);
    case '*': return (i) => l(i) * r(i);
    case '/': return (i) => {
      const b = r(i);
      return b === 0 ? Number.NaN : l(i) / b;
    };
    default: return (i) => l(i) % r(i);
  }
}

function numCompare(op: CompareOp, l: Num, r: Num): Tri {
  const test = COMPARATORS[op];
  return (i) => {
    const a = l(i);
    const b = r(i);
    if (a !== a || b !== b) return UNKNOWN;
    return test(a, b) ? TRUE : FALSE;
  };
}

const COMPARATORS: Readonly<Record<CompareOp, (a: number, b: number) => boolean>> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '=': (a, b) => a === b,
  '!=': (a, b) => a !== b,
};
