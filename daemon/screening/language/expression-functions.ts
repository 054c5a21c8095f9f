/**
 * The functions of the screening language: scalar functions
 * of numbers, and cross-sectional functions that rank a value among the stocks of the
 * request's universe, optionally within each sector, industry or market (`by sector`).
 * One table, read by the parser (names and arity), the compiler and `GET /screen/fields`.
 */
import { GROUP_BY } from '../../contract/screening.js';
import { PERCENTILE_CONVENTION } from '../../kernel/percentile.js';
export { GROUP_BY } from '../../contract/screening.js';

/** Scalar functions and their arity; any null argument makes the result null (except coalesce). */
export const FUNCTIONS = { abs: 1, min: 2, max: 2, log: 1, sqrt: 1, coalesce: 2 } as const;
/** A scalar function name. */
export type ScalarFn = keyof typeof FUNCTIONS;

/** Cross-sectional functions: one numeric argument, optionally followed by `by <group>`. */
export const CROSS_FUNCTIONS = ['rank', 'rank_asc', 'pct_rank', 'zscore'] as const;
/** A cross-sectional function name. */
export type CrossFn = (typeof CROSS_FUNCTIONS)[number];

/** A `by` group. */
export type GroupBy = (typeof GROUP_BY)[number];

/** Most cross-sectional terms one request may hold over its expression, columns and score (each costs a sort). */
export const MAX_CROSS_TERMS = 32;

/** One function as `GET /screen/fields` documents it. */
export interface FunctionDoc {
  name: string;
  signature: string;
  cross_sectional: boolean;
  description: string;
  example: string;
}

/** Documentation of every function, in display order. */
export const FUNCTION_DOCS: readonly FunctionDoc[] = Object.freeze([
  { name: 'abs', signature: 'abs(x)', cross_sectional: false, description: 'Absolute value.', example: 'abs(change_percent) > 5' },
  { name: 'min', signature: 'min(x, y)', cross_sectional: false, description: 'The smaller of two numbers (null if either is null).', example: 'min(per, 50)' },
  { name: 'max', signature: 'max(x, y)', cross_sectional: false, description: 'The larger of two numbers (null if either is null).', example: 'max(roe, roa) > 10' },
  { name: 'log', signature: 'log(x)', cross_sectional: false, description: 'Natural logarithm; null for x ≤ 0.', example: 'log(market_cap) > 25' },
  { name: 'sqrt', signature: 'sqrt(x)', cross_sectional: false, description: 'Square root; null for x < 0.', example: 'sqrt(pbr * per)' },
  { name: 'coalesce', signature: 'coalesce(x, y)', cross_sectional: false, description: 'x, or y when x is null.', example: 'coalesce(dividend_yield, 0) >= 2' },
  {
    name: 'rank', signature: 'rank(x) [by sector|industry|market]', cross_sectional: true,
    description: 'Rank among the universe, 1 = largest; ties share the best rank (1, 2, 2, 4). Null x: excluded, result null.',
    example: 'rank(market_cap) by sector <= 3',
  },
  { name: 'rank_asc', signature: 'rank_asc(x) [by …]', cross_sectional: true, description: 'Like rank, 1 = smallest.', example: 'rank_asc(per) <= 20 and per > 0' },
  {
    name: 'pct_rank', signature: 'pct_rank(x) [by …]', cross_sectional: true,
    description: `Percentile 0–100: ${PERCENTILE_CONVENTION}. The value, quality, growth and momentum scores use the same scale.`,
    example: 'pct_rank(roe) by sector >= 90',
  },
  {
    name: 'zscore', signature: 'zscore(x) [by …]', cross_sectional: true,
    description: '(x − mean) / population standard deviation over the non-null values; null when the group has no spread (e.g. one stock).',
    example: 'zscore(return_3m) by market > 2',
  },
] satisfies FunctionDoc[]);
