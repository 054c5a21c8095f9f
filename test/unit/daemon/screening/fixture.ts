/**
 * A hand-written eight-stock market whose screening results can be read off by eye.
 *
 * | code   | name       | market | sector | industry | flag           | close | chg  | mcap | per  | pbr  | roe  | rsi  | sma_200 | dy   |
 * |--------|------------|--------|--------|----------|----------------|-------|------|------|------|------|------|------|---------|------|
 * | 000010 | 가온전자   | KOSPI  | 반도체 | 전자부품 |                | 1000  | 1.5  | 5e11 | 5    | 0.5  | 12   | 25   | 900     | 3    |
 * | 000020 | 나래제약   | KOSDAQ | 제약   | 의약품   |                | 2000  | -2   | 3e11 | 20   | 2    | 8    | 55   | 2100    | null |
 * | 000030 | 다온금융   | KOSPI  | 금융   | 은행     |                | 500   | 0    | 8e11 | null | 0.3  | -5   | 40   | 450     | 6    |
 * | 000040 | 라온반도체 | KOSDAQ | 반도체 | 전자부품 |                | 3000  | 3    | 1e11 | 10   | 1    | 15   | 70   | null    | 1    |
 * | 000045 | 가온전자우 | KOSPI  | 반도체 | 전자부품 | preferred      | 800   | 1    | 5e10 | 4    | 0.4  | 12   | 30   | 700     | 4    |
 * | 000050 | 마루스팩   | KOSDAQ | null   | null     | spac           | 2100  | 0.5  | 1e10 | null | null | null | null | null    | null |
 * | 000080 | 사랑건설   | KOSPI  | 건설   | 건설업   | halted         | 700   | null | 9e10 | 6    | 0.7  | 11   | null | 650     | 2    |
 * | 0126Z0 | 바다바이오 | KOSDAQ | 제약   | 의약품   | administrative | 1500  | -5   | 2e11 | 15   | 3    | 2    | 20   | 1800    | null |
 *
 * Code order (= snapshot row order): 000010 000020 000030 000040 000045 000050 000080 0126Z0.
 */

import { buildSnapshot } from '../../../../daemon/screening/engine/snapshot.js';
import type { Snapshot, SnapshotRow } from '../../../../daemon/screening/engine/snapshot.js';

export const FIELDS = ['close', 'change_percent', 'market_cap', 'per', 'pbr', 'roe', 'rsi_14', 'sma_200', 'dividend_yield', 'volume'] as const;
export const KNOWN: ReadonlySet<string> = new Set(FIELDS);

type Values = Partial<Record<(typeof FIELDS)[number], number | null>>;

function row(
  code: string,
  name: string,
  market: 'KOSPI' | 'KOSDAQ',
  sector: string | null,
  industry: string | null,
  flag: keyof SnapshotRow['flags'] | null,
  values: Values,
): SnapshotRow {
  return {
    code,
    name,
    name_english: null,
    market,
    sector,
    industry,
    board: null,
    flags: { administrative: flag === 'administrative', spac: flag === 'spac', preferred: flag === 'preferred', halted: flag === 'halted' },
    values,
  };
}

// Deliberately not in code order: the snapshot must sort.
export const ROWS: SnapshotRow[] = [
  row('0126Z0', '바다바이오', 'KOSDAQ', '제약', '의약품', 'administrative', { close: 1500, change_percent: -5, market_cap: 2e11, per: 15, pbr: 3, roe: 2, rsi_14: 20, sma_200: 1800, dividend_yield: null, volume: 300 }),
  row('000010', '가온전자', 'KOSPI', '반도체', '전자부품', null, { close: 1000, change_percent: 1.5, market_cap: 5e11, per: 5, pbr: 0.5, roe: 12, rsi_14: 25, sma_200: 900, dividend_yield: 3, volume: 1000 }),
  row('000020', '나래제약', 'KOSDAQ', '제약', '의약품', null, { close: 2000, change_percent: -2, market_cap: 3e11, per: 20, pbr: 2, roe: 8, rsi_14: 55, sma_200: 2100, dividend_yield: null, volume: 500 }),
  row('000030', '다온금융', 'KOSPI', '금융', '은행', null, { close: 500, change_percent: 0, market_cap: 8e11, per: null, pbr: 0.3, roe: -5, rsi_14: 40, sma_200: 450, dividend_yield: 6, volume: 2000 }),
  row('000040', '라온반도체', 'KOSDAQ', '반도체', '전자부품', null, { close: 3000, change_percent: 3, market_cap: 1e11, per: 10, pbr: 1, roe: 15, rsi_14: 70, sma_200: null, dividend_yield: 1, volume: 800 }),
  row('000045', '가온전자우', 'KOSPI', '반도체', '전자부품', 'preferred', { close: 800, change_percent: 1, market_cap: 5e10, per: 4, pbr: 0.4, roe: 12, rsi_14: 30, sma_200: 700, dividend_yield: 4, volume: 100 }),
  row('000050', '마루스팩', 'KOSDAQ', null, null, 'spac', { close: 2100, change_percent: 0.5, market_cap: 1e10, volume: 10 }),
  row('000080', '사랑건설', 'KOSPI', '건설', '건설업', 'halted', { close: 700, change_percent: null, market_cap: 9e10, per: 6, pbr: 0.7, roe: 11, rsi_14: null, sma_200: 650, dividend_yield: 2, volume: 0 }),
];

/** The fixture market as a snapshot. */
export function fixtureSnapshot(): Snapshot {
  return buildSnapshot(ROWS, FIELDS, 'v1');
}

/** Codes of the rows (in the given order). */
export function codesAt(snapshot: Snapshot, rows: Iterable<number>): string[] {
  return Array.from(rows, (r) => snapshot.codes[r] ?? '?');
}
