/**
 * A screen compiled once: the validated query with everything derived from it that the cache
 * and the engine read — its parsed expression, its formula columns and score, its cost, and its
 * cache key. The request path builds it once per body and hands this one value on (budget
 * check, rate-limit weight, cache lookup, execution), so nothing is recomputed and nothing
 * travels on the query itself.
 */
import { hash } from 'node:crypto';
import { costOf, type QueryCost } from '../engine/cost.js';
import type { ParsedExpression } from '../language/expression.js';
import { formulasOf, type Formula } from '../language/formula-columns.js';
import { normalizeQuery } from './query-normalize.js';
import { expressionOf } from '../engine/query.js';
import type { ScreenQuery } from './query-types.js';

/** A validated screen with its derived parts (see the file comment). */
export interface CompiledScreen {
  readonly query: ScreenQuery;
  /** `query.expression` parsed (undefined when it has none). */
  readonly expression: ParsedExpression | undefined;
  /** Its formula columns, then its score, parsed. */
  readonly formulas: readonly Formula[];
  /** What it costs (the budget check and the rate-limit weight read it). */
  readonly cost: QueryCost;
  /** Digest of the normalised query: identical screens (either request shape) share it. The cache key adds the snapshot version. */
  readonly key: string;
}

/**
 * Compile `query` (from the request parser, or built in code and trusted). `knownFields`: the
 * indicator registry (what an as-of screen reads from history).
 * @throws AppError INVALID_REQUEST when a formula of a query built in code does not parse
 */
export function compileScreen(query: ScreenQuery, knownFields: ReadonlySet<string>): CompiledScreen {
  return Object.freeze({
    query,
    expression: expressionOf(query),
    formulas: formulasOf(query),
    cost: costOf(query, knownFields),
    key: hash('sha1', normalizeQuery(query), 'base64url'),
  });
}
