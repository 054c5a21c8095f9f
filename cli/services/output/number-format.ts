/**
 * Numbers for people (TTY views only; piped output keeps raw values): thousands
 * separators, KRW amounts in 억 (1e8) and 조 (1e12), percentages with two decimals,
 * and a tone for signed changes. Units are those of GET /screen/fields.
 */
import type { Cell } from './output.js';

/** 1억 KRW. */
const EOK = 1e8;
/** 1조 KRW. */
const JO = 1e12;

const formatters = new Map<string, Intl.NumberFormat>();

/** `n` with thousands separators and between `minDigits` and `maxDigits` decimals (locale-independent). */
export function groupThousands(n: number, maxDigits = 0, minDigits = 0): string {
  const key = `${minDigits}:${maxDigits}`;
  let fmt = formatters.get(key);
  if (!fmt) {
    fmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: minDigits, maximumFractionDigits: maxDigits });
    formatters.set(key, fmt);
  }
  // Intl prints "-0" for tiny negatives that round to zero.
  const text = fmt.format(n);
  return /^-0(\.0+)?$/.test(text) ? text.slice(1) : text;
}

/**
 * A KRW amount: 조 with two decimals from 1조, 억 with at most one decimal from 1억,
 * else the whole amount with separators (two decimals for small fractional values such as EPS).
 */
export function formatKrw(value: number): string {
  const abs = Math.abs(value);
  if (abs >= JO) return `${groupThousands(value / JO, 2, 2)}조`;
  if (abs >= EOK) return `${groupThousands(value / EOK, 1)}억`;
  if (abs < 100 && !Number.isInteger(value)) return groupThousands(value, 2, 2);
  return groupThousands(value);
}

/** A percentage with two decimals: 12.3 → "12.30%". */
export function formatPercent(value: number): string {
  return `${groupThousands(value, 2, 2)}%`;
}

/** A signed change in percent: +1.23% / -0.55% / 0.00%. */
export function formatSignedPercent(value: number): string {
  const text = formatPercent(value);
  return value > 0 && text !== '0.00%' ? `+${text}` : text;
}

/** A value in the unit the registry gives it (unknown units: up to two decimals). Null is "-". */
export function formatValue(value: unknown, unit?: string): string {
  if (value === null || value === undefined) return '-';
  if (typeof value !== 'number') return String(value);
  if (!Number.isFinite(value)) return String(value);
  switch (unit) {
    case 'KRW':
      return formatKrw(value);
    case '%':
      return formatPercent(value);
    case 'x':
      return `${groupThousands(value, 2, 2)}x`;
    case 'ratio':
    case 'index':
      return groupThousands(value, 2, 2);
    case 'shares':
    case 'count':
    case 'rank':
      return groupThousands(value);
    case 'flag':
      return value ? 'yes' : 'no';
    case 'score':
      return groupThousands(value, Number.isInteger(value) ? 0 : 1);
    default:
      return groupThousands(value, Number.isInteger(value) ? 0 : 2);
  }
}

/** A change (in percent) as a cell: signed text, toned up (good) or down (bad). Null is a muted "-". */
export function changeCell(value: number | null | undefined): Cell {
  if (value === null || value === undefined || !Number.isFinite(value)) return { text: '-', tone: 'muted' };
  const text = formatSignedPercent(value);
  if (text.startsWith('+')) return { text, tone: 'good' };
  if (text.startsWith('-')) return { text, tone: 'bad' };
  return { text };
}

/** A value as a cell for a TTY table: change columns get changeCell, others formatValue. */
export function valueCell(field: string, value: unknown, unit?: string): Cell {
  if (field === 'change_percent' || (unit === '%' && /^(return_|change_)/.test(field))) {
    return changeCell(typeof value === 'number' ? value : null);
  }
  const text = formatValue(value, unit);
  return text === '-' ? { text, tone: 'muted' } : { text };
}

/** A byte count for people: 1536 → "1.5 KB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return i === 0 ? `${bytes} B` : `${groupThousands(value, 1, 1)} ${units[i]}`;
}
