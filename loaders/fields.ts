/**
 * Cell-level parsing shared by the loaders: numbers, dates, markets, and the
 * trade date / stock code / market that a file name can carry.
 */
import { isValidDate } from '../daemon/kernel/krx-calendar.js';
import type { Market } from '../daemon/kernel/records.js';

/**
 * A numeric cell as a number, or null when blank or a dash. Thousands
 * separators and surrounding spaces are ignored; anything else non-numeric
 * gives NaN so the caller can reject the row.
 */
export function parseNumber(cell: string | undefined): number | null {
  if (cell === undefined) return null;
  let s = cell.trim();
  if (s === '' || s === '-') return null;
  if (s.includes(',')) s = s.replace(/,/g, '');
  const n = Number(s);
  return Number.isFinite(n) ? n : Number.NaN;
}

/**
 * A date cell as 'YYYY-MM-DD' (accepts YYYY-MM-DD, YYYYMMDD, YYYY/MM/DD,
 * YYYY.MM.DD, each optionally followed by a time), or null when not a real date.
 */
export function normalizeDate(cell: string | undefined): string | null {
  if (cell === undefined) return null;
  const m = /^\s*(\d{4})[-/.]?(\d{2})[-/.]?(\d{2})(?:[T\s].*)?$/.exec(cell);
  if (!m) return null;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  return isValidDate(date) ? date : null;
}

/** How a source names a market: a covered market, KONEX (skipped) or unknown. */
export type MarketMapping = { market: Market; global: boolean } | 'KONEX' | null;

const MARKET_NAMES: Record<string, MarketMapping> = {
  KOSPI: { market: 'KOSPI', global: false },
  STK: { market: 'KOSPI', global: false },
  유가증권: { market: 'KOSPI', global: false },
  유가증권시장: { market: 'KOSPI', global: false },
  KOSDAQ: { market: 'KOSDAQ', global: false },
  KSQ: { market: 'KOSDAQ', global: false },
  코스닥: { market: 'KOSDAQ', global: false },
  'KOSDAQ GLOBAL': { market: 'KOSDAQ', global: true },
  코스닥글로벌: { market: 'KOSDAQ', global: true },
  KONEX: 'KONEX',
  KNX: 'KONEX',
  코넥스: 'KONEX',
};

/** Maps a market cell (KOSPI, KOSDAQ, KOSDAQ GLOBAL, KONEX, STK/KSQ/KNX or Korean names). */
export function mapMarket(cell: string | undefined): MarketMapping {
  if (cell === undefined) return null;
  return MARKET_NAMES[cell.trim().toUpperCase()] ?? MARKET_NAMES[cell.trim()] ?? null;
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** The first YYYY-MM-DD or YYYYMMDD date in a file's base name, or null. */
export function dateFromFileName(path: string): string | null {
  const m = /(?:^|\D)(\d{4})-?(\d{2})-?(\d{2})(?!\d)/.exec(baseName(path));
  if (!m) return null;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  return isValidDate(date) ? date : null;
}

/** The first 6-character KRX code (digit first, e.g. 005930, 0126Z0) in a file's base name, or null. */
export function codeFromFileName(path: string): string | null {
  const name = baseName(path).replace(/\.[^.]*$/, '');
  const m = /(?:^|[^0-9A-Za-z])([0-9][0-9A-Z]{5})(?=$|[^0-9A-Za-z])/.exec(name);
  return m?.[1] ?? null;
}

/** KOSPI or KOSDAQ from a folder or file name segment (kospi/…, …_kosdaq.csv), or null. */
export function marketFromPath(path: string): Market | null {
  const segments = path.toLowerCase().split(/[\\/]/);
  for (let i = segments.length - 1; i >= 0; i -= 1) {
    const seg = segments[i] ?? '';
    if (/(^|[^a-z])kosdaq([^a-z]|$)/.test(seg)) return 'KOSDAQ';
    if (/(^|[^a-z])kospi([^a-z]|$)/.test(seg)) return 'KOSPI';
  }
  return null;
}
