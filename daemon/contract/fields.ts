/**
 * Fields shared by request schemas: the stock code, and the one date schema of every request: real calendar dates (no 2026-02-31) in a sane
 * range (1900-01-01 … 2100-12-31), optionally not in the future (trades, acquisitions).
 * "Today" is Korea's (the markets' day); a date-time may run at most
 * a minute ahead of the server clock (client clock skew).
 */
import { z } from 'zod';
import { STOCK_CODE_PATTERN } from '../kernel/records.js';

/** A KRX stock code: six characters, digits or capitals (005930). */
export function stockCode() {
  return z
    .string({ error: 'is required' })
    .max(6, 'must be a 6-character KRX code such as 005930')
    .regex(STOCK_CODE_PATTERN, 'must be a 6-character KRX code such as 005930');
}

/** Earliest accepted date. */
export const MIN_DATE = '1900-01-01';
/** Latest accepted date (when the future is allowed at all). */
export const MAX_DATE = '2100-12-31';

const KST_OFFSET_MS = 9 * 3600_000;
const SKEW_MS = 60_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):([0-5]\d)(:([0-5]\d)(\.\d{1,9})?)?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** True for a real calendar date written YYYY-MM-DD (leap years included). */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(y, mo - 1, d));
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === mo - 1 && probe.getUTCDate() === d;
}

/** Today in Korea, YYYY-MM-DD. */
export function koreaToday(nowMs = Date.now()): string {
  return new Date(nowMs + KST_OFFSET_MS).toISOString().slice(0, 10);
}

/** Options of the date schemas. */
export interface DateOptions {
  /** Reject dates after today in Korea (and date-times over a minute ahead of now). */
  notFuture?: boolean;
  /** The clock (tests); default Date.now. */
  now?: () => number;
}

function rangeProblem(day: string, options: DateOptions): string | undefined {
  if (day < MIN_DATE) return `must not be before ${MIN_DATE}`;
  if (day > MAX_DATE) return `must not be after ${MAX_DATE}`;
  if (options.notFuture && day > koreaToday((options.now ?? Date.now)())) return 'must not be in the future';
  return undefined;
}

/** A calendar date YYYY-MM-DD in the sane range (10 characters). */
export function calendarDate(options: DateOptions = {}) {
  return z
    .string({ error: 'must be a date YYYY-MM-DD' })
    .max(10, 'must be a date YYYY-MM-DD')
    .superRefine((value, ctx) => {
      if (!isCalendarDate(value)) return void ctx.addIssue({ code: 'custom', message: 'must be a real calendar date YYYY-MM-DD' });
      const problem = rangeProblem(value, options);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ format: 'date', example: '2025-01-06' });
}

/** A calendar date, or an ISO 8601 date-time with a zone (Z or ±hh:mm), in the sane range (at most 35 characters). */
export function dateOrDateTime(options: DateOptions = {}) {
  return z
    .string({ error: 'must be a date YYYY-MM-DD or an ISO date-time' })
    .max(35, 'must be a date YYYY-MM-DD or an ISO date-time')
    .superRefine((value, ctx) => {
      const time = DATE_TIME.exec(value);
      const day = time ? time[1]! : value;
      if (!isCalendarDate(day) || (!time && !DATE.test(value))) {
        return void ctx.addIssue({ code: 'custom', message: 'must be a real date YYYY-MM-DD or an ISO date-time with a zone' });
      }
      const problem = rangeProblem(day, { ...options, notFuture: false });
      if (problem) return void ctx.addIssue({ code: 'custom', message: problem });
      const now = (options.now ?? Date.now)();
      const future = time ? Date.parse(value) > now + SKEW_MS : day > koreaToday(now);
      if (options.notFuture && future) ctx.addIssue({ code: 'custom', message: 'must not be in the future' });
    })
    .meta({ example: '2025-01-06T09:30:00+09:00' });
}
