import { describe, expect, it } from 'vitest';
import { changeCell, formatBytes, formatKrw, formatPercent, formatSignedPercent, formatValue, groupThousands } from '../../../../../cli/services/output/number-format.js';

describe('KRW amounts', () => {
  it('uses 조 from 1e12 with two decimals, 억 from 1e8 with at most one, separators below', () => {
    // Samsung Electronics' market cap on 2026-03-20: 1,180,375,801,646,800 / 1e12 = 1180.3758… → 1,180.38조
    expect(formatKrw(1_180_375_801_646_800)).toBe('1,180.38조');
    // Its trading value that day: 7,019,725,077,866 / 1e12 = 7.0197… → 7.02조
    expect(formatKrw(7_019_725_077_866)).toBe('7.02조');
    expect(formatKrw(1e12)).toBe('1.00조');
    expect(formatKrw(5e10)).toBe('500억'); // 5e10 / 1e8 = 500
    expect(formatKrw(150_000_000)).toBe('1.5억');
    expect(formatKrw(123_456_789_012)).toBe('1,234.6억'); // 1234.56789… → one decimal
    expect(formatKrw(99_999_999)).toBe('99,999,999');
    expect(formatKrw(199_400)).toBe('199,400');
    expect(formatKrw(-1_100)).toBe('-1,100');
    expect(formatKrw(-3e8)).toBe('-3억');
    expect(formatKrw(12.5)).toBe('12.50'); // a small fractional amount such as an EPS
  });
});

describe('percent and other units', () => {
  it('shows two decimals for percentages, signed for changes, never "-0.00"', () => {
    expect(formatPercent(12.3)).toBe('12.30%');
    expect(formatPercent(1234.5)).toBe('1,234.50%');
    expect(formatSignedPercent(1.234)).toBe('+1.23%');
    expect(formatSignedPercent(-0.55)).toBe('-0.55%');
    expect(formatSignedPercent(0.004)).toBe('0.00%');
    expect(formatSignedPercent(-0.004)).toBe('0.00%');
  });

  it('formats each registry unit', () => {
    expect(formatValue(8.5, 'x')).toBe('8.50x');
    expect(formatValue(0.123, 'ratio')).toBe('0.12');
    expect(formatValue(1234.567, 'index')).toBe('1,234.57');
    expect(formatValue(35_279_762, 'shares')).toBe('35,279,762');
    expect(formatValue(12, 'rank')).toBe('12');
    expect(formatValue(1, 'flag')).toBe('yes');
    expect(formatValue(0, 'flag')).toBe('no');
    expect(formatValue(7, 'score')).toBe('7');
    expect(formatValue(72.27, 'score')).toBe('72.3');
    expect(formatValue(null, '%')).toBe('-');
    expect(formatValue(3.14159)).toBe('3.14');
    expect(formatValue('KOSPI')).toBe('KOSPI');
  });

  it('tones changes: up is good, down is bad, flat and missing are plain or muted', () => {
    expect(changeCell(1.234)).toEqual({ text: '+1.23%', tone: 'good' });
    expect(changeCell(-2)).toEqual({ text: '-2.00%', tone: 'bad' });
    expect(changeCell(0)).toEqual({ text: '0.00%' });
    expect(changeCell(null)).toEqual({ text: '-', tone: 'muted' });
  });

  it('groups thousands without depending on the locale, and sizes bytes', () => {
    expect(groupThousands(1234567.891, 2, 2)).toBe('1,234,567.89');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB'); // 1536 / 1024
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MB');
  });
});
