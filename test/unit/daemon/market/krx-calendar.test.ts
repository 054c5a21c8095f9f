import { describe, it, expect } from 'vitest';
import {
  addDays, calendarCoversYear, isFirstTradingDayOfYear, isHoliday, isTradingDay, isValidDate,
  nextTradingDay, previousTradingDay, tradingDaysBetween, tradingDaysEndingAt,
} from '../../../../daemon/kernel/krx-calendar.js';

describe('isTradingDay', () => {
  it('is true for every date of the real listing files (2026-03-09 … 2026-03-20)', () => {
    const dates = ['2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13',
      '2026-03-16', '2026-03-17', '2026-03-18', '2026-03-19', '2026-03-20'];
    for (const d of dates) expect(isTradingDay(d), d).toBe(true);
  });

  it('is false on weekends', () => {
    expect(isTradingDay('2026-03-14')).toBe(false); // Saturday
    expect(isTradingDay('2026-03-15')).toBe(false); // Sunday
  });

  it('is false on known KRX holidays', () => {
    const closed = [
      '2024-04-10', // National Assembly election
      '2024-10-01', // Armed Forces Day temporary holiday
      '2025-01-27', // temporary holiday before Seollal
      '2025-03-03', // 3.1 substitute
      '2025-06-03', // presidential election
      '2025-10-08', // Chuseok substitute
      '2025-12-31', // year-end closing
      '2026-02-17', // Seollal
      '2026-03-02', // 3.1 substitute (the real 2026 KOSPI file jumps from 02-27 to 03-03)
      '2026-05-01', // Labour Day
      '2026-06-03', // local elections
      '2027-02-09', // Seollal substitute
      '2027-12-27', // Christmas substitute
    ];
    for (const d of closed) expect(isTradingDay(d), d).toBe(false);
  });

  it('rejects malformed and impossible dates', () => {
    expect(() => isTradingDay('2026-02-30')).toThrow(/invalid date/);
    expect(() => isTradingDay('20260309')).toThrow(/invalid date/);
  });
});

describe('isHoliday outside the table', () => {
  it('knows only fixed-date holidays and the year-end closing day', () => {
    expect(calendarCoversYear(2022)).toBe(false);
    expect(isHoliday('2022-03-01')).toBe(true);
    // 2022-12-31 was a Saturday: the closing day moved to Friday 12-30.
    expect(isHoliday('2022-12-30')).toBe(true);
    expect(isHoliday('2022-12-29')).toBe(false);
  });
});

describe('trading-day arithmetic', () => {
  it('counts the 2025 trading days like the real KOSPI 2025 file (242 rows up to 12-30)', () => {
    expect(tradingDaysBetween('2025-01-01', '2025-12-31')).toHaveLength(242);
  });

  it('counts 2026-01-01 … 2026-03-20 like the real 2026 index file (52 rows)', () => {
    const days = tradingDaysBetween('2026-01-01', '2026-03-20');
    expect(days).toHaveLength(52);
    expect(days[0]).toBe('2026-01-02');
    expect(days.at(-1)).toBe('2026-03-20');
  });

  it('steps over weekends and holidays', () => {
    expect(previousTradingDay('2026-03-03')).toBe('2026-02-27'); // Mon 03-02 substitute, weekend
    expect(nextTradingDay('2026-02-13')).toBe('2026-02-19'); // Seollal 16–18
    expect(nextTradingDay('2026-03-20')).toBe('2026-03-23');
    expect(previousTradingDay('2026-03-09')).toBe('2026-03-06');
  });

  it('recognises the first trading day of a year', () => {
    expect(isFirstTradingDayOfYear('2026-01-02')).toBe(true);
    expect(isFirstTradingDayOfYear('2026-01-05')).toBe(false);
    expect(isFirstTradingDayOfYear('2025-01-02')).toBe(true);
    expect(isFirstTradingDayOfYear('2027-01-04')).toBe(true); // 01-01 Fri holiday, then weekend
  });

  it('lists the last N trading days ending at a date', () => {
    const days = tradingDaysEndingAt('2026-03-15', 3); // a Sunday
    expect(days).toEqual(['2026-03-11', '2026-03-12', '2026-03-13']);
  });

  it('validates and adds calendar dates', () => {
    expect(isValidDate('2024-02-29')).toBe(true);
    expect(isValidDate('2025-02-29')).toBe(false);
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
  });
});
