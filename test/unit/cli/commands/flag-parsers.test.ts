import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { codeArg, durationArg, listArg, numberArg, positiveIntArg, secondsArg } from '../../../../cli/commands/flag-parsers.js';

describe('flag parsers', () => {
  it('parses durations within bounds', () => {
    const interval = durationArg(100, 3_600_000);
    expect(interval('1s')).toBe(1000);
    expect(interval('250ms')).toBe(250);
    expect(() => interval('50ms')).toThrow('must be from 100ms to 1h');
    expect(() => interval('soon')).toThrow(InvalidArgumentError);
  });

  it('parses whole seconds for cooldowns', () => {
    const cooldown = secondsArg(604_800);
    expect(cooldown('10m')).toBe(600);
    expect(cooldown('0')).toBe(0);
    expect(() => cooldown('1500ms')).toThrow('must be whole seconds');
    expect(() => cooldown('8d')).toThrow(InvalidArgumentError);
  });

  it('parses numbers, counts, codes and lists', () => {
    expect(numberArg('-3.5')).toBe(-3.5);
    expect(() => numberArg('')).toThrow('is not a number');
    expect(() => numberArg('1e400')).toThrow('is not a number');
    expect(positiveIntArg('7')).toBe(7);
    expect(() => positiveIntArg('0')).toThrow('not a positive whole number');
    expect(() => positiveIntArg('1.5')).toThrow('not a positive whole number');
    expect(codeArg('0126z0')).toBe('0126Z0');
    expect(() => codeArg('5930')).toThrow('is not a stock code');
    expect(listArg('KOSPI, KOSDAQ', ['X'])).toEqual(['X', 'KOSPI', 'KOSDAQ']);
  });
});
