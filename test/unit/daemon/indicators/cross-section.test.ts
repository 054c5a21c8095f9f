import { describe, expect, it } from 'vitest';
import {
  applyCrossSectionalScores,
  competitionRanks,
  magicFormulaRanks,
  percentileRanks,
} from '../../../../daemon/indicators/cross-section.js';
import { emptyIndicatorValues, type IndicatorValues } from '../../../../daemon/indicators/registry.js';
import { refPctRank } from '../../../helpers/cross-section-reference.js';
import { expectNear } from './expect-close.js';

function row(values: Record<string, number | null>): IndicatorValues {
  return { ...emptyIndicatorValues(), ...values };
}

describe('percentileRanks', () => {
  it('is pandas rank(pct=True) × 100: highest → 100, lowest → 100 / n, ties share their average rank', () => {
    // sorted: 10, 20, 20, 30 (4 values): 10 → rank 1 → 25, 20s → rank 2.5 → 62.5, 30 → rank 4 → 100
    expect(percentileRanks([10, 30, 20, null, 20])).toEqual([25, 100, 62.5, null, 62.5]);
  });

  it('gives a lone value 100', () => {
    expect(percentileRanks([null, 7])).toEqual([null, 100]);
  });

  it('agrees with the independent pandas reference, which the screening language\'s pct_rank is tested against', () => {
    const values = Array.from({ length: 57 }, (_, i) => (i % 9 === 0 ? null : ((i * 37) % 23) - 11));
    const reference = refPctRank(values.map((value, i) => ({ key: String(i), value })), false);
    const ranks = percentileRanks(values);
    values.forEach((_, i) => {
      const want = reference.get(String(i)) ?? null;
      if (want === null) expect(ranks[i]).toBeNull();
      else expectNear(ranks[i], want, 1e-9);
    });
  });
});

describe('competitionRanks', () => {
  it('ranks 1224-style', () => {
    expect(competitionRanks([5, 9, 9, 1], true)).toEqual([3, 1, 1, 4]);
    expect(competitionRanks([5, null, 2], false)).toEqual([2, null, 1]);
  });
});

describe('magicFormulaRanks', () => {
  it('adds the earnings-yield rank and the return-on-capital rank, then ranks the sum', () => {
    // EBIT/EV: A 1/5 = 0.20, B 1/10 = 0.10, C 1/4 = 0.25 → ranks C1 A2 B3
    // ROC:     A 10, B 30, C 20                          → ranks B1 C2 A3
    // sums: A 5, B 4, C 3 → C 1, B 2, A 3; D lacks EV/EBIT → null
    const rows = [
      row({ ev_ebit: 5, return_on_capital: 10 }),
      row({ ev_ebit: 10, return_on_capital: 30 }),
      row({ ev_ebit: 4, return_on_capital: 20 }),
      row({ ev_ebit: null, return_on_capital: 50 }),
    ];
    expect(magicFormulaRanks(rows)).toEqual([3, 2, 1, null]);
  });
});

describe('applyCrossSectionalScores', () => {
  it('averages component percentiles, re-ranks them and needs enough components', () => {
    // Percentiles are 100 × average ascending rank / n:
    // earnings_yield: S3 −2, S4 3, S2 5, S1 10 → S3 25, S4 50, S2 75, S1 100
    // 1/pbr: S1 2, S2 1, S3 0.5 → 100, 66.7, 33.3; 1/psr: S1 1, S2 0.5 → 100, 50; dividend: S1 3, S2 1 → 100, 50
    // means: S1 100; S2 (75+66.7+50+50)/4 = 60.4; S3 (25+33.3)/2 = 29.2; S4 only 1 component → null
    // re-ranked among 3: S3 100/3, S2 200/3, S1 100
    const rows = [
      row({ earnings_yield: 10, pbr: 0.5, psr: 1, dividend_yield: 3 }),
      row({ earnings_yield: 5, pbr: 1, psr: 2, dividend_yield: 1 }),
      row({ earnings_yield: -2, pbr: 2 }),
      row({ earnings_yield: 3 }),
    ];
    applyCrossSectionalScores(rows);
    expect(rows.map((r) => r.value_score)).toEqual([100, 200 / 3, 100 / 3, null]);
    expect(rows.every((r) => r.quality_score === null && r.overall_score === null)).toBe(true);
  });

  it('averages the category scores into an integer overall score', () => {
    // value (ey, 1/pbr): X best, Y middle, Z worst → 100, 66.7, 33.3
    // momentum (return_3m, return_6m): X 1, Y 3, Z 2 → 33.3, 100, 66.7
    // overall: X (100+33.3)/2 = 66.7 → 67, Y (66.7+100)/2 = 83.3 → 83, Z (33.3+66.7)/2 = 50
    const rows = [
      row({ earnings_yield: 10, pbr: 1, return_3m: 1, return_6m: 1 }),
      row({ earnings_yield: 5, pbr: 2, return_3m: 3, return_6m: 3 }),
      row({ earnings_yield: 1, pbr: 4, return_3m: 2, return_6m: 2 }),
    ];
    applyCrossSectionalScores(rows);
    expect(rows.map((r) => r.momentum_score)).toEqual([100 / 3, 100, 200 / 3]);
    expect(rows.map((r) => r.overall_score)).toEqual([67, 83, 50]);
  });

  it('treats a lower debt ratio as better quality', () => {
    const rows = [
      row({ roe: 10, roa: 5, operating_margin: 10, debt_ratio: 300 }),
      row({ roe: 10, roa: 5, operating_margin: 10, debt_ratio: 50 }),
    ];
    applyCrossSectionalScores(rows);
    // equal on three components (75 each), debt: 300 → 50, 50 → 100; means 68.75 vs 81.25 → 50 vs 100
    expectNear(rows[0]?.quality_score, 50, 1e-9);
    expectNear(rows[1]?.quality_score, 100, 1e-9);
  });
});

describe('applyCrossSectionalScoresAsync', () => {
  it('gives exactly the synchronous result while pausing between steps', async () => {
    const { applyCrossSectionalScores, applyCrossSectionalScoresAsync } = await import('../../../../daemon/indicators/cross-section.js');
    const { emptyIndicatorValues } = await import('../../../../daemon/indicators/registry.js');
    // Deterministic rows: values derived from the row index so every percentile differs.
    const make = () =>
      Array.from({ length: 40 }, (_, i) => {
        const v = emptyIndicatorValues();
        for (const [k, idx] of Object.keys(v).map((key, j) => [key, j] as const)) v[k] = ((i * 7 + idx * 13) % 41) - 10;
        return v;
      });
    const sync = make();
    const async_ = make();
    applyCrossSectionalScores(sync);
    let pauses = 0;
    await applyCrossSectionalScoresAsync(async_, async () => void pauses++);
    expect(async_).toEqual(sync);
    expect(pauses).toBeGreaterThan(5);
    expect(sync.some((r) => r.overall_score !== null)).toBe(true);
  });
});
