/**
 * Tokenizer of the screening expression language.
 * Produces tokens with 0-based character positions so every error can point
 * at the offending character.
 */

import { invalidRequest } from '../../errors.js';
import type { AppError, ErrorDetails } from '../../errors.js';

/** Kinds of token the lexer emits. */
export type TokenType = 'num' | 'str' | 'ident' | 'op' | '(' | ')' | ',' | 'eof';

/** One token; `text` is the normalized operator for `op` and the lower-cased name for `ident`. */
export interface Token {
  readonly type: TokenType;
  readonly text: string;
  /** Parsed value of a number token. */
  readonly num: number;
  /** 0-based index of the first character. */
  readonly pos: number;
}

/** Builds the 400 every expression problem raises: details carry the message and 0-based position. */
export function expressionError(message: string, position: number, extra: ErrorDetails = {}): AppError {
  return invalidRequest(`Invalid expression: ${message} (at position ${position})`, {
    expression: message,
    position,
    ...extra,
  });
}

// Longest first so `<=` wins over `<`; unicode forms map to their ASCII operator.
const OPERATORS: readonly (readonly [string, string])[] = [
  ['<=', '<='], ['>=', '>='], ['<>', '!='], ['!=', '!='], ['==', '='], ['&&', 'and'], ['||', 'or'],
  ['<', '<'], ['>', '>'], ['=', '='], ['!', 'not'], ['+', '+'], ['-', '-'], ['*', '*'], ['/', '/'],
  ['%', '%'], ['≤', '<='], ['≥', '>='], ['≠', '!='], ['×', '*'], ['÷', '/'], ['−', '-'],
];

const NUMBER_RE = /(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d+)?/y;
const IDENT_RE = /[A-Za-z_][A-Za-z0-9_]*/y;

/** Splits `source` into tokens ending with an `eof` token. Throws invalidRequest on a bad character, number or string. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i] ?? '';
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const token = readToken(source, i);
    tokens.push(token.token);
    i = token.end;
  }
  tokens.push({ type: 'eof', text: '', num: 0, pos: source.length });
  return tokens;
}

function readToken(source: string, pos: number): { token: Token; end: number } {
  const ch = source[pos] ?? '';
  if (ch === '(' || ch === ')' || ch === ',') return { token: tok(ch, ch, pos), end: pos + 1 };
  if (/[0-9.]/.test(ch)) return readNumber(source, pos);
  if (ch === "'" || ch === '"') return readString(source, pos, ch);
  IDENT_RE.lastIndex = pos;
  const ident = IDENT_RE.exec(source);
  if (ident !== null) return { token: tok('ident', ident[0].toLowerCase(), pos), end: pos + ident[0].length };
  for (const [symbol, op] of OPERATORS) {
    if (source.startsWith(symbol, pos)) return { token: tok('op', op, pos), end: pos + symbol.length };
  }
  throw expressionError(`unexpected character '${ch}'`, pos);
}

function readNumber(source: string, pos: number): { token: Token; end: number } {
  NUMBER_RE.lastIndex = pos;
  const match = NUMBER_RE.exec(source);
  const end = pos + (match?.[0].length ?? 0);
  const next = source[end] ?? '';
  // `1e`, `1_`, `1.2.3` and `12abc` are typos, not two tokens.
  if (match === null || /[0-9A-Za-z_.]/.test(next)) {
    let stop = end;
    while (/[0-9A-Za-z_.]/.test(source[stop] ?? '')) stop++;
    throw expressionError(`malformed number '${source.slice(pos, Math.max(stop, pos + 1))}'`, pos);
  }
  const value = Number(match[0].replaceAll('_', ''));
  return { token: { type: 'num', text: match[0], num: value, pos }, end };
}

function readString(source: string, pos: number, quote: string): { token: Token; end: number } {
  let value = '';
  let i = pos + 1;
  while (i < source.length) {
    const ch = source[i];
    if (ch === quote) {
      // A doubled quote is an escaped quote, as in SQL.
      if (source[i + 1] === quote) {
        value += quote;
        i += 2;
        continue;
      }
      return { token: tok('str', value, pos), end: i + 1 };
    }
    value += ch;
    i++;
  }
  throw expressionError('unterminated string', pos);
}

function tok(type: TokenType, text: string, pos: number): Token {
  return { type, text, num: 0, pos };
}
