/** Which OpenDART report periods a run fetches. */
import { describe, expect, it } from 'vitest';
import { reportPeriods } from '../../../../../daemon/sources/dart/periods.js';

const names = (from: string, to: string) => reportPeriods(from, to).map((p) => `${p.year}Q${p.quarter}:${p.reprt_code}`);

describe('reportPeriods', () => {
  it('takes the four quarters that ended before `to`, with their report codes', () => {
    expect(names('2026-11-27', '2026-11-27')).toEqual(['2025Q4:11011', '2026Q1:11013', '2026Q2:11012', '2026Q3:11014', '2025Q3:11014'].sort());
  });

  it('adds the Q3 report of an annual report\'s year (Q4 alone is derived from it)', () => {
    expect(names('2025-03-20', '2025-03-20')).toEqual(['2024Q1:11013', '2024Q2:11012', '2024Q3:11014', '2024Q4:11011']);
    expect(names('2025-08-01', '2025-08-01')).toEqual(['2024Q3:11014', '2024Q4:11011', '2025Q1:11013', '2025Q2:11012']);
    expect(names('2025-05-02', '2025-05-02')).toEqual(['2024Q2:11012', '2024Q3:11014', '2024Q4:11011', '2025Q1:11013']);
  });

  it('a quarter\'s last day has not ended: on 03-31 the latest quarter is the previous one', () => {
    expect(names('2025-03-31', '2025-03-31').at(-1)).toBe('2024Q4:11011');
    expect(names('2025-04-01', '2025-04-01').at(-1)).toBe('2025Q1:11013');
  });

  it('goes back to `from`, never before OpenDART\'s first year', () => {
    expect(names('2023-10-01', '2025-03-20')).toEqual(['2023Q3:11014', '2023Q4:11011', '2024Q1:11013', '2024Q2:11012', '2024Q3:11014', '2024Q4:11011']);
    expect(names('2010-01-04', '2015-08-01')).toEqual(['2015Q1:11013', '2015Q2:11012']);
  });
});
