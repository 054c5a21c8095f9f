/** Commander parsers for the market commands' flags and arguments: durations, numbers, stock codes, lists. */
import { InvalidArgumentError, Option } from 'commander';
import { STOCK_CODE_PATTERN } from '../../daemon/contract/stocks.js';
import { formatDuration, parseDuration } from '../services/output/duration.js';
import { DEFAULT_RETRY_FOR_MS } from '../services/load/jobs.js';

/** A duration flag (`10s`, `500ms`, `1m30s`, bare seconds) as milliseconds within [minMs, maxMs]. */
export function durationArg(minMs: number, maxMs: number): (value: string) => number {
  return (value) => {
    let ms: number;
    try {
      ms = parseDuration(value);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
    if (ms < minMs || ms > maxMs) throw new InvalidArgumentError(`must be from ${formatDuration(minMs)} to ${formatDuration(maxMs)}`);
    return ms;
  };
}

/** A duration flag in whole seconds (e.g. `--cooldown 10m` → 600). */
export function secondsArg(maxS: number): (value: string) => number {
  const ms = durationArg(0, maxS * 1000);
  return (value) => {
    const n = ms(value);
    if (n % 1000 !== 0) throw new InvalidArgumentError('must be whole seconds');
    return n / 1000;
  };
}

/** A finite number (negative allowed: `-3.5` for a change-percent threshold). */
export function numberArg(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`"${value}" is not a number`);
  return n;
}

/** A positive whole number. */
export function positiveIntArg(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive whole number`);
  return n;
}

/** A KRX stock code (6 characters, upper-cased: 005930, 0126Z0). */
export function codeArg(value: string): string {
  const code = value.trim().toUpperCase();
  if (!STOCK_CODE_PATTERN.test(code)) throw new InvalidArgumentError(`"${value}" is not a stock code (6 characters such as 005930)`);
  return code;
}

/** A repeatable, comma-separated list flag (`--market KOSPI,KOSDAQ` or `--market KOSPI --market KOSDAQ`). */
export function listArg(value: string, previous: string[] | undefined): string[] {
  const items = value.split(',').map((v) => v.trim()).filter(Boolean);
  return [...(previous ?? []), ...items];
}

/** A calendar date YYYY-MM-DD. */
export function dateArg(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw new InvalidArgumentError(`"${value}" is not a date YYYY-MM-DD`);
  return value;
}

/** `--retry-for <duration>`: how long following a job waits out an unreachable or busy daemon. */
export function retryForOption(): Option {
  return new Option('--retry-for <duration>', 'while following a job, wait out an unreachable or busy daemon this long (0 = give up at once)')
    .argParser(durationArg(0, 24 * 3_600_000))
    .default(DEFAULT_RETRY_FOR_MS, '10m');
}

/** A repeatable flag: each occurrence adds its value (`--notify a --notify b` → ['a', 'b']). */
export function collectValues(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
