/**
 * KRX trading calendar: which dates the KOSPI/KOSDAQ markets are open.
 * Dates are 'YYYY-MM-DD' strings (Korea time, calendar dates only). Pure, no I/O.
 *
 * MAINTENANCE: the holiday table below MUST be extended every year (KRX
 * publishes the next year's closing days in December; temporary holidays and
 * election days are announced at short notice). Years outside the table fall
 * back to weekends + fixed-date holidays only (see `isHoliday`), which misses
 * the lunar holidays (Seollal, Chuseok, Buddha's Birthday) and substitutes.
 */
import { invalidRequest } from '../errors.js';

/** One KRX closing day on a weekday. */
export interface KrxHoliday {
  date: string;
  name: string;
}

/**
 * KRX closing days that fall on weekdays, by year. Holidays that fall on a
 * weekend are omitted (the market is closed anyway); their substitute days
 * (대체공휴일, since 2021-08 also for 3.1/8.15/10.3/10.9, since 2023 for Buddha's
 * Birthday and Christmas; Memorial Day has none) are listed instead.
 * Checked against the 2025 and 2026 KOSPI index files (no trading on these days).
 */
export const KRX_HOLIDAYS: Readonly<Record<number, readonly KrxHoliday[]>> = {
  2023: [
    { date: '2023-01-23', name: '설날' },
    { date: '2023-01-24', name: '설날 대체공휴일' },
    { date: '2023-03-01', name: '삼일절' },
    { date: '2023-05-01', name: '근로자의 날' },
    { date: '2023-05-05', name: '어린이날' },
    { date: '2023-05-29', name: '부처님오신날 대체공휴일' },
    { date: '2023-06-06', name: '현충일' },
    { date: '2023-08-15', name: '광복절' },
    { date: '2023-09-28', name: '추석 연휴' },
    { date: '2023-09-29', name: '추석' },
    { date: '2023-10-02', name: '임시공휴일' },
    { date: '2023-10-03', name: '개천절' },
    { date: '2023-10-09', name: '한글날' },
    { date: '2023-12-25', name: '성탄절' },
    { date: '2023-12-29', name: '연말 휴장일' },
  ],
  2024: [
    { date: '2024-01-01', name: '신정' },
    { date: '2024-02-09', name: '설날 연휴' },
    { date: '2024-02-12', name: '설날 대체공휴일' },
    { date: '2024-03-01', name: '삼일절' },
    { date: '2024-04-10', name: '제22대 국회의원선거' },
    { date: '2024-05-01', name: '근로자의 날' },
    { date: '2024-05-06', name: '어린이날 대체공휴일' },
    { date: '2024-05-15', name: '부처님오신날' },
    { date: '2024-06-06', name: '현충일' },
    { date: '2024-08-15', name: '광복절' },
    { date: '2024-09-16', name: '추석 연휴' },
    { date: '2024-09-17', name: '추석' },
    { date: '2024-09-18', name: '추석 연휴' },
    { date: '2024-10-01', name: '국군의 날 임시공휴일' },
    { date: '2024-10-03', name: '개천절' },
    { date: '2024-10-09', name: '한글날' },
    { date: '2024-12-25', name: '성탄절' },
    { date: '2024-12-31', name: '연말 휴장일' },
  ],
  2025: [
    { date: '2025-01-01', name: '신정' },
    { date: '2025-01-27', name: '임시공휴일' },
    { date: '2025-01-28', name: '설날 연휴' },
    { date: '2025-01-29', name: '설날' },
    { date: '2025-01-30', name: '설날 연휴' },
    { date: '2025-03-03', name: '삼일절 대체공휴일' },
    { date: '2025-05-01', name: '근로자의 날' },
    { date: '2025-05-05', name: '어린이날·부처님오신날' },
    { date: '2025-05-06', name: '대체공휴일' },
    { date: '2025-06-03', name: '제21대 대통령선거' },
    { date: '2025-06-06', name: '현충일' },
    { date: '2025-08-15', name: '광복절' },
    { date: '2025-10-03', name: '개천절' },
    { date: '2025-10-06', name: '추석' },
    { date: '2025-10-07', name: '추석 연휴' },
    { date: '2025-10-08', name: '추석 대체공휴일' },
    { date: '2025-10-09', name: '한글날' },
    { date: '2025-12-25', name: '성탄절' },
    { date: '2025-12-31', name: '연말 휴장일' },
  ],
  2026: [
    { date: '2026-01-01', name: '신정' },
    { date: '2026-02-16', name: '설날 연휴' },
    { date: '2026-02-17', name: '설날' },
    { date: '2026-02-18', name: '설날 연휴' },
    { date: '2026-03-02', name: '삼일절 대체공휴일' },
    { date: '2026-05-01', name: '근로자의 날' },
    { date: '2026-05-05', name: '어린이날' },
    { date: '2026-05-25', name: '부처님오신날 대체공휴일' },
    { date: '2026-06-03', name: '제9회 전국동시지방선거' },
    { date: '2026-08-17', name: '광복절 대체공휴일' },
    { date: '2026-09-24', name: '추석 연휴' },
    { date: '2026-09-25', name: '추석' },
    { date: '2026-10-05', name: '개천절 대체공휴일' },
    { date: '2026-10-09', name: '한글날' },
    { date: '2026-12-25', name: '성탄절' },
    { date: '2026-12-31', name: '연말 휴장일' },
  ],
  2027: [
    { date: '2027-01-01', name: '신정' },
    { date: '2027-02-08', name: '설날 연휴' },
    { date: '2027-02-09', name: '설날 대체공휴일' },
    { date: '2027-03-01', name: '삼일절' },
    { date: '2027-05-05', name: '어린이날' },
    { date: '2027-05-13', name: '부처님오신날' },
    { date: '2027-08-16', name: '광복절 대체공휴일' },
    { date: '2027-09-14', name: '추석 연휴' },
    { date: '2027-09-15', name: '추석' },
    { date: '2027-09-16', name: '추석 연휴' },
    { date: '2027-10-04', name: '개천절 대체공휴일' },
    { date: '2027-10-11', name: '한글날 대체공휴일' },
    { date: '2027-12-27', name: '성탄절 대체공휴일' },
    { date: '2027-12-31', name: '연말 휴장일' },
  ],
};

const HOLIDAY_SET: ReadonlySet<string> = new Set(
  Object.values(KRX_HOLIDAYS).flatMap((list) => list.map((h) => h.date)),
);

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

/** True when `value` is a real calendar date written 'YYYY-MM-DD'. */
export function isValidDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

/** Days since 1970-01-01 for a valid date; throws on anything else. */
function toDayNumber(date: string): number {
  if (!isValidDate(date)) throw invalidRequest(`invalid date: ${String(date)}`, { date: 'expected YYYY-MM-DD' });
  return Date.parse(`${date}T00:00:00Z`) / MS_PER_DAY;
}

function fromDayNumber(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/**
 * Adds (or with a negative count subtracts) calendar days.
 * @throws AppError INVALID_REQUEST when `date` is not a valid 'YYYY-MM-DD' date.
 */
export function addDays(date: string, days: number): string {
  return fromDayNumber(toDayNumber(date) + days);
}

/** True when the years's closing days are in `KRX_HOLIDAYS` (otherwise only an approximation is known). */
export function calendarCoversYear(year: number): boolean {
  return KRX_HOLIDAYS[year] !== undefined;
}

function isWeekendDay(day: number): boolean {
  const weekday = (day + 4) % 7; // 1970-01-01 was a Thursday (4); 0 = Sunday
  return weekday === 0 || weekday === 6;
}

/** Fallback for years outside the table: fixed-date holidays and the year-end closing day. */
function isFixedHoliday(date: string, day: number): boolean {
  const year = Number(date.slice(0, 4));
  const md = date.slice(5);
  const fixed = ['01-01', '03-01', '05-01', '05-05', '06-06', '08-15', '10-03', '12-25'];
  if (fixed.includes(md) || (md === '10-09' && year >= 2013)) return true;
  // Year-end closing: Dec 31, or the last weekday before it when it is a weekend.
  if (md >= '12-29') {
    let last = toDayNumber(`${year}-12-31`);
    while (isWeekendDay(last)) last -= 1;
    return day === last;
  }
  return false;
}

/**
 * True when KRX is closed on a weekday `date` for a holiday (weekends are not holidays here).
 * @throws AppError INVALID_REQUEST when `date` is not a valid 'YYYY-MM-DD' date.
 */
export function isHoliday(date: string): boolean {
  const day = toDayNumber(date);
  if (isWeekendDay(day)) return false;
  const year = Number(date.slice(0, 4));
  return calendarCoversYear(year) ? HOLIDAY_SET.has(date) : isFixedHoliday(date, day);
}

/**
 * True when KRX equities trade on `date`: a weekday that is not a holiday.
 * @throws AppError INVALID_REQUEST when `date` is not a valid 'YYYY-MM-DD' date.
 */
export function isTradingDay(date: string): boolean {
  const known = tradingDayMemo.get(date);
  if (known !== undefined) return known;
  const open = !isWeekendDay(toDayNumber(date)) && !isHoliday(date);
  // Validation asks about the same few hundred dates millions of times.
  if (tradingDayMemo.size < 100_000) tradingDayMemo.set(date, open);
  return open;
}

const tradingDayMemo = new Map<string, boolean>();

/**
 * Trading days from `from` to `to`, both inclusive, ascending ([] when from > to).
 * @throws AppError INVALID_REQUEST on an invalid date.
 */
export function tradingDaysBetween(from: string, to: string): string[] {
  const end = toDayNumber(to);
  const out: string[] = [];
  for (let day = toDayNumber(from); day <= end; day += 1) {
    if (isWeekendDay(day)) continue;
    const date = fromDayNumber(day);
    if (!isHoliday(date)) out.push(date);
  }
  return out;
}

/**
 * The last trading day strictly before `date`.
 * @throws AppError INVALID_REQUEST on an invalid date.
 */
export function previousTradingDay(date: string): string {
  let d = addDays(date, -1);
  while (!isTradingDay(d)) d = addDays(d, -1);
  return d;
}

/**
 * The first trading day strictly after `date`.
 * @throws AppError INVALID_REQUEST on an invalid date.
 */
export function nextTradingDay(date: string): string {
  let d = addDays(date, 1);
  while (!isTradingDay(d)) d = addDays(d, 1);
  return d;
}

/**
 * True when `date` is the year's first trading day (KRX opens at 10:00 that day).
 * @throws AppError INVALID_REQUEST on an invalid date.
 */
export function isFirstTradingDayOfYear(date: string): boolean {
  if (!isTradingDay(date)) return false;
  return previousTradingDay(date).slice(0, 4) !== date.slice(0, 4);
}

/**
 * The `count` trading days ending at `end` (inclusive when `end` is a trading day), ascending.
 * @throws AppError INVALID_REQUEST on an invalid date or a negative count.
 */
export function tradingDaysEndingAt(end: string, count: number): string[] {
  if (!Number.isInteger(count) || count < 0) throw invalidRequest(`invalid day count: ${count}`, { count: 'expected an integer ≥ 0' });
  const out: string[] = [];
  let d = isTradingDay(end) ? end : previousTradingDay(end);
  while (out.length < count) {
    out.push(d);
    d = previousTradingDay(d);
  }
  return out.reverse();
}
