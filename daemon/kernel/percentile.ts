/**
 * The one percentile convention of the product. Every 0–100 rank it computes — the screening
 * language's `pct_rank`, a screen's `score` column, and the stored value, quality, growth and
 * momentum scores — places a value on this scale, so a threshold means the same wherever it is
 * written (`pct_rank(roe) >= 90` and `quality_score >= 90` select alike).
 */

/**
 * The convention in words, as GET /screen/fields and the indicator definitions state it:
 * pandas' `rank(method="average", pct=True)` × 100.
 */
export const PERCENTILE_CONVENTION =
  '100 × average ascending rank / n over the n non-null values (pandas rank(pct=True) × 100): the largest value gets 100, the smallest 100 / n, ' +
  'ties share their average rank, a lone value gets 100';

/**
 * The percentile of a value with `below` smaller values and `ties` equal ones (itself included)
 * among `n` values: 100 × its average 1-based ascending rank / n.
 */
export function averageRankPercentile(below: number, ties: number, n: number): number {
  return (100 * (below + (ties + 1) / 2)) / n;
}
