import { describe, expect, it } from 'vitest';
import {
  applyCrossSectionalScores,
  competitionRanks,
  magicFormulaRanks,
  percentileRanks,
} from '../../../../daemon/indicators/cross-section.js';
import { emptyIndicatorValues, type IndicatorValues } from '../../../../daemon/indicators/registry.js';
import { expectNear } from './expect-close.js';

function row(values: Record<string, number | null>): IndicatorValues {
  return { ...emptyIndicatorValues(), ...values };
}

describe('percentileRanks', () => {
  it('maps lowest → 0, highest → 100 and gives ties their mid-rank', () => {
    // sorted: 10, 20, 20, 30 (4 values): 10 → 0/3, 20s → 1.5/3 = 50, 30 → 3/3
    expect(percentileRanks([10, 30, 20, null, 20])).toEqual([0, 100, 50, null, 50]);
  });

  it('gives a lone value 50', () => {
    expect(percentileRanks([null, 7])).toEqual([null, 50]);
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
    // earnings_yield: S3 −2, S4 3, S2 5, S1 10 → S3 0, S4 33.3, S2 66.7, S1 100
    // 1/pbr: S1 2, S2 1, S3 0.5 → 100, 50, 0; 1/psr: S1 1, S2 0.5 → 100, 0; dividend: S1 3, S2 1 → 100, 0
    // means: S1 100; S2 (66.7+50+0+0)/4 = 29.2; S3 (0+0)/2 = 0; S4 only 1 component → null
    // re-ranked: S3 0, S2 50, S1 100
    const rows = [
      row({ earnings_yield: 10, pbr: 0.5, psr: 1, dividend_yield: 3 }),
      row({ earnings_yield: 5, pbr: 1, psr: 2, dividend_yield: 1 }),
      row({ earnings_yield: -2, pbr: 2 }),
      row({ earnings_yield: 3 }),
    ];
    applyCrossSectionalScores(rows);
    expect(rows.map((r) => r.value_score)).toEqual([100, 50, 0, null]);
    expect(rows.every((r) => r.quality_score === null && r.overall_score === null)).toBe(true);
  });

  it('averages the category scores into an integer overall score', () => {
    // value (ey, 1/pbr): X best, Y middle, Z worst → 100, 50, 0
    // momentum (return_3m, return_6m): X 1, Y 3, Z 2 → 0, 100, 50
    // overall: X (100+0)/2 = 50, Y (50+100)/2 = 75, Z (0+50)/2 = 25
    const rows = [
      row({ earnings_yield: 10, pbr: 1, return_3m: 1, return_6m: 1 }),
      row({ earnings_yield: 5, pbr: 2, return_3m: 3, return_6m: 3 }),
      row({ earnings_yield: 1, pbr: 4, return_3m: 2, return_6m: 2 }),
    ];
    applyCrossSectionalScores(rows);
    expect(rows.map((r) => r.momentum_score)).toEqual([0, 100, 50]);
    expect(rows.map((r) => r.overall_score)).toEqual([50, 75, 25]);
  });

  it('treats a lower debt ratio as better quality', () => {
    const rows = [
      row({ roe: 10, roa: 5, operating_margin: 10, debt_ratio: 300 }),
      row({ roe: 10, roa: 5, operating_margin: 10, debt_ratio: 50 }),
    ];
    applyCrossSectionalScores(rows);
    // equal on three components (50 each), debt: 300 → 0, 50 → 100; means 37.5 vs 62.5
    expectNear(rows[0]?.quality_score, 0, 1e-9);
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
