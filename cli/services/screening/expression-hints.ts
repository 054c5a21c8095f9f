/**
 * A hint for the commonest expression slip: comparing a text field with a bare
 * word, `market = kospi`, which the parser reads as a field named kospi. The daemon's error
 * names the field and its position; the CLI has the expression, so it can see the comparison
 * in front of it and show the quoted form.
 */
import { CliError } from '../session/errors.js';

const COMPARISON = /(=|==|!=|<>)\s*$/;

/** The name in "unknown field 'x'" (the screening request's details carry the parser's message). */
function unknownField(message: unknown): string | undefined {
  return typeof message === 'string' ? /unknown field '([^']+)'/.exec(message)?.[1] : undefined;
}

/** `err` with a "quote it" hint when it is an unknown field right after `=`/`!=` in `expression`; else `err` unchanged. */
export function withQuoteHint(err: unknown, expression: string | undefined): unknown {
  if (!(err instanceof CliError) || err.code !== 'INVALID_REQUEST' || expression === undefined) return err;
  const details = err.details as { field?: unknown; position?: unknown; expression?: unknown };
  const field = typeof details.field === 'string' ? details.field : unknownField(details.expression);
  const position = details.position;
  if (field === undefined || typeof position !== 'number') return err;
  const before = expression.slice(0, position);
  if (!COMPARISON.test(before)) return err;
  const subject = /([A-Za-z_][\w]*)\s*(=|==|!=|<>)\s*$/.exec(before)?.[1];
  const value = subject === 'market' ? field.toUpperCase() : field;
  return new CliError({
    code: err.code, status: err.status, requestId: err.requestId, details: err.details, message: err.message,
    hint: `to compare with a text value, quote it: ${before.trimEnd()} '${value}'${err.hint ? `; ${err.hint}` : ''}`,
  });
}
