/**
 * Cross-sectional scores computed over all stocks at once: value, quality,
 * growth and momentum percentiles, the overall score and Greenblatt's magic
 * formula rank. Works on the per-stock value objects, so it can run after the
 * per-stock pass, however that pass was chunked.
 */
import { averageRankPercentile } from '../kernel/percentile.js';
import type { IndicatorId, IndicatorValues } from './registry.js';

/**
 * Percentile rank of each non-null value among the non-null values, on the product's one scale
 * (kernel/percentile.ts, shared with the screening language's pct_rank): 100 × average
 * ascending rank / count, so the highest is 100, the lowest 100 / count, ties share their
 * average rank and a lone value gets 100.
 */
export function percentileRanks(values: readonly (number | null)[]): (number | null)[] {
  const out: (number | null)[] = new Array<number | null>(values.length).fill(null);
  // Typed arrays keep the sort cheap: this runs ~20 times over the whole market per computation.
  const vals = new Float64Array(values.length);
  let m = 0;
  const idx = new Uint32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v == null) continue;
    vals[i] = v;
    idx[m++] = i;
  }
  if (m === 0) return out;
  const order = idx.subarray(0, m).sort((a, b) => vals[a]! - vals[b]!);
  let start = 0;
  while (start < m) {
    let end = start;
    while (end + 1 < m && vals[order[end + 1]!] === vals[order[start]!]) end++;
    const pct = averageRankPercentile(start, end - start + 1, m);
    for (let k = start; k <= end; k++) out[order[k]!] = pct;
    start = end + 1;
  }
  return out;
}

/**
 * Competition ranks ("1224"): 1 for the best non-null value, ties share the
 * better rank. `descending` = true ranks the largest value first.
 */
export function competitionRanks(values: readonly (number | null)[], descending: boolean): (number | null)[] {
  const out: (number | null)[] = new Array<number | null>(values.length).fill(null);
  const idx: number[] = [];
  values.forEach((v, i) => {
    if (v != null) idx.push(i);
  });
  const sign = descending ? -1 : 1;
  idx.sort((a, b) => sign * ((values[a] ?? 0) - (values[b] ?? 0)));
  idx.forEach((i, pos) => {
    const prev = pos > 0 ? idx[pos - 1] : undefined;
    out[i] = prev != null && values[prev] === values[i] ? (out[prev] ?? pos + 1) : pos + 1;
  });
  return out;
}

/** One input of a composite score: an indicator and how to orient it (higher = better). */
export interface ScoreComponent {
  id: IndicatorId;
  orient: (v: number) => number | null;
}

const higher = (v: number): number => v;
const lower = (v: number): number => -v;
const inverse = (v: number): number | null => (v > 0 ? 1 / v : null);

/** The components of one composite score and how many must be present. */
export interface CompositeSpec {
  components: readonly ScoreComponent[];
  minComponents: number;
}

/** The four composite score ids. */
export type CompositeId = 'value_score' | 'quality_score' | 'growth_score' | 'momentum_score';

/** The components of each composite score and how many must be present. */
export const COMPOSITE_SCORES: Readonly<Record<CompositeId, CompositeSpec>> = {
  value_score: {
    components: [
      { id: 'earnings_yield', orient: higher },
      { id: 'pbr', orient: inverse },
      { id: 'psr', orient: inverse },
      { id: 'dividend_yield', orient: higher },
    ],
    minComponents: 2,
  },
  quality_score: {
    components: [
      { id: 'roe', orient: higher },
      { id: 'roa', orient: higher },
      { id: 'operating_margin', orient: higher },
      { id: 'piotroski_f_score', orient: higher },
      { id: 'debt_ratio', orient: lower },
    ],
    minComponents: 3,
  },
  growth_score: {
    components: [
      { id: 'revenue_growth_yoy', orient: higher },
      { id: 'operating_profit_growth_yoy', orient: higher },
      { id: 'net_profit_growth_yoy', orient: higher },
      { id: 'revenue_growth_qoq', orient: higher },
    ],
    minComponents: 2,
  },
  momentum_score: {
    components: [
      { id: 'return_3m', orient: higher },
      { id: 'return_6m', orient: higher },
      { id: 'momentum_12_1', orient: higher },
      { id: 'dist_52w_high', orient: higher },
    ],
    minComponents: 2,
  },
};

function* compositeScore(rows: readonly IndicatorValues[], components: readonly ScoreComponent[], min: number): Generator<void, (number | null)[]> {
  const sums = new Array<number>(rows.length).fill(0);
  const counts = new Array<number>(rows.length).fill(0);
  for (const c of components) {
    yield;
    const ranks = percentileRanks(rows.map((r) => {
      const v = r[c.id];
      return v == null ? null : c.orient(v);
    }));
    ranks.forEach((p, i) => {
      if (p == null) return;
      sums[i] = (sums[i] ?? 0) + p;
      counts[i] = (counts[i] ?? 0) + 1;
    });
  }
  const means = sums.map((s, i) => ((counts[i] ?? 0) >= min ? s / (counts[i] ?? 1) : null));
  return percentileRanks(means);
}

/** Magic formula rank per row: rank(EBIT/EV) + rank(return on capital), ranked again, 1 = best. */
export function magicFormulaRanks(rows: readonly IndicatorValues[]): (number | null)[] {
  const eligible = rows.map((r) => {
    const evEbit = r.ev_ebit;
    const roc = r.return_on_capital;
    return evEbit != null && evEbit > 0 && roc != null;
  });
  const ey = competitionRanks(rows.map((r, i) => (eligible[i] ? 1 / (r.ev_ebit ?? 1) : null)), true);
  const roc = competitionRanks(rows.map((r, i) => (eligible[i] ? (r.return_on_capital ?? null) : null)), true);
  const combined = ey.map((a, i) => {
    const b = roc[i];
    return a == null || b == null ? null : a + b;
  });
  return competitionRanks(combined, false);
}

/**
 * The cross-sectional pass as steps: it pauses (yields) between score components, so an
 * async caller can give the event loop back every few milliseconds.
 */
function* crossSectionSteps(values: Iterable<IndicatorValues>): Generator<void, void> {
  const rows = [...values];
  const categories = Object.entries(COMPOSITE_SCORES) as [CompositeId, CompositeSpec][];
  for (const [id, spec] of categories) {
    const scores = yield* compositeScore(rows, spec.components, spec.minComponents);
    scores.forEach((s, i) => {
      const row = rows[i];
      if (row) row[id] = s;
    });
  }
  yield;
  const magic = magicFormulaRanks(rows);
  yield;
  rows.forEach((row, i) => {
    const parts = categories.map(([id]) => row[id]).filter((v): v is number => v != null);
    row.overall_score = parts.length >= 2 ? Math.round(parts.reduce((a, b) => a + b, 0) / parts.length) : null;
    row.magic_formula_rank = magic[i] ?? null;
  });
}

/**
 * Fills value/quality/growth/momentum scores, overall_score and
 * magic_formula_rank into every value object, in place.
 */
export function applyCrossSectionalScores(values: Iterable<IndicatorValues>): void {
  const steps = crossSectionSteps(values);
  while (!steps.next().done);
}

/** The same as applyCrossSectionalScores, awaiting `pause()` between steps (e.g. setImmediate). */
export async function applyCrossSectionalScoresAsync(values: Iterable<IndicatorValues>, pause: () => Promise<unknown>): Promise<void> {
  const steps = crossSectionSteps(values);
  while (!steps.next().done) await pause();
}
