/**
 * Static material for the sample market: per-sector behaviour (beta,
 * volatility, margins, balance-sheet shape, valuation, loss and dividend
 * propensity). The issues themselves are the real listing (universe-data.ts).
 */
import type { Sector } from '../sectors.js';

/** How issues of one sector behave. */
export interface SectorProfile {
  sector: Sector;
  beta: number;
  /** Idiosyncratic daily volatility. */
  vol: number;
  opMargin: number;
  opMarginSd: number;
  grossMargin: number;
  /** Annual revenue / total assets. */
  turnover: number;
  /** Total assets / equity. */
  leverage: number;
  /** Median price-to-book. */
  pbr: number;
  lossProb: number;
  divProb: number;
}

type Row = [Sector, number, number, number, number, number, number, number, number, number, number];
// sector, beta, vol, opMargin, sd, gross, turnover, leverage, pbr, lossProb, divProb
const ROWS: Row[] = [
  ['전기전자', 1.15, 0.022, 0.07, 0.06, 0.22, 0.9, 1.7, 1.3, 0.15, 0.45],
  ['화학', 1.0, 0.02, 0.06, 0.05, 0.18, 0.8, 1.9, 0.8, 0.12, 0.55],
  ['의약품', 0.9, 0.022, 0.08, 0.07, 0.5, 0.6, 1.5, 2.5, 0.12, 0.5],
  ['제약', 0.9, 0.03, 0.05, 0.09, 0.5, 0.6, 1.5, 2.5, 0.25, 0.3],
  ['바이오', 1.1, 0.038, 0.02, 0.25, 0.45, 0.25, 1.3, 4.0, 0.55, 0.05],
  ['운수장비', 1.1, 0.021, 0.05, 0.04, 0.15, 1.0, 2.2, 0.7, 0.12, 0.5],
  ['금융업', 0.8, 0.015, 0.2, 0.1, 0.5, 0.15, 2.5, 0.6, 0.08, 0.6],
  ['서비스업', 1.0, 0.022, 0.08, 0.08, 0.4, 0.7, 1.6, 1.6, 0.18, 0.35],
  ['유통업', 0.85, 0.018, 0.03, 0.03, 0.25, 1.5, 2.0, 0.7, 0.15, 0.45],
  ['철강금속', 1.1, 0.02, 0.05, 0.04, 0.1, 0.9, 1.9, 0.5, 0.12, 0.55],
  ['건설업', 1.05, 0.021, 0.04, 0.04, 0.1, 0.9, 2.6, 0.5, 0.18, 0.45],
  ['음식료품', 0.7, 0.016, 0.06, 0.04, 0.3, 1.1, 1.8, 0.9, 0.08, 0.6],
  ['기계', 1.1, 0.024, 0.06, 0.06, 0.22, 0.8, 1.8, 1.1, 0.18, 0.4],
  ['통신업', 0.6, 0.013, 0.08, 0.04, 0.6, 0.6, 2.2, 0.8, 0.1, 0.8],
  ['섬유의복', 0.85, 0.02, 0.05, 0.05, 0.35, 0.9, 1.7, 0.6, 0.15, 0.5],
  ['종이목재', 0.85, 0.018, 0.04, 0.04, 0.15, 0.9, 2.0, 0.5, 0.15, 0.5],
  ['비금속광물', 0.9, 0.018, 0.06, 0.04, 0.2, 0.7, 1.9, 0.5, 0.12, 0.55],
  ['의료정밀', 1.0, 0.028, 0.07, 0.1, 0.5, 0.6, 1.5, 2.0, 0.25, 0.3],
  ['운수창고업', 1.0, 0.02, 0.06, 0.05, 0.15, 0.9, 2.5, 0.8, 0.12, 0.45],
  ['전기가스업', 0.6, 0.015, 0.05, 0.04, 0.12, 0.5, 2.8, 0.4, 0.2, 0.6],
  ['보험', 0.8, 0.016, 0.06, 0.03, 0.2, 0.2, 9.0, 0.5, 0.05, 0.8],
  ['증권', 1.2, 0.02, 0.15, 0.1, 0.6, 0.08, 7.0, 0.6, 0.1, 0.8],
  ['은행', 0.9, 0.015, 0.25, 0.06, 0.6, 0.05, 13.0, 0.4, 0.02, 0.95],
  ['IT서비스', 1.05, 0.026, 0.06, 0.07, 0.35, 0.9, 1.6, 1.8, 0.2, 0.3],
  ['반도체', 1.35, 0.03, 0.08, 0.1, 0.3, 0.6, 1.5, 2.0, 0.22, 0.3],
  ['소프트웨어', 1.05, 0.03, 0.05, 0.12, 0.6, 0.6, 1.4, 2.2, 0.3, 0.25],
  ['오락문화', 1.0, 0.032, 0.04, 0.12, 0.4, 0.6, 1.5, 2.0, 0.3, 0.2],
];

/** Sector profiles, one per sector. */
export const SECTOR_PROFILES: readonly SectorProfile[] = ROWS.map(
  ([sector, beta, vol, opMargin, opMarginSd, grossMargin, turnover, leverage, pbr, lossProb, divProb]) => ({
    sector, beta, vol, opMargin, opMarginSd, grossMargin, turnover, leverage, pbr, lossProb, divProb,
  }),
);
