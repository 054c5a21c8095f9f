/**
 * One read of whole histories as columns: the database joins each column of a stock's bars into
 * one text (the SQL differs per engine), so the driver makes a few strings per stock instead of
 * an object per bar, and each text is parsed back into numbers here.
 */
import type { Db } from './db.js';

/** One stock's bars as columns, oldest first (null where the source gave none). */
export interface BarColumns {
  stock_code: string;
  dates: string[];
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
  value: number[];
  cap: (number | null)[];
  shares: (number | null)[];
}

/** Aliases and columns of readBarColumns. */
const COLUMN_PARTS = [
  ['o', 'open_price'], ['h', 'high_price'], ['l', 'low_price'], ['c', 'close_price'], ['v', 'volume'], ['tv', 'trading_value'],
  ['mc', 'market_cap'], ['so', 'shares_outstanding'],
] as const;

/** Every bar of the given stocks in `table`, as columns, one row per stock. */
export async function readBarColumns(db: Db, table: string, codes: readonly string[]): Promise<BarColumns[]> {
  if (codes.length === 0) return [];
  // Both engines print a double as text that reads back to the same double (shortest round
  // trip). sqlite aggregates in primary-key order, (stock_code, trade_date), and an ORDER BY
  // inside the aggregate would more than double the read; the order is checked below anyway.
  const join = (col: string) => (db.dialect.name === 'sqlite'
    ? `group_concat(coalesce(${col}, 'null'), ',')`
    : `string_agg(coalesce(${col}::text, 'null'), ',' ORDER BY trade_date)`);
  const rows = await db.all<Record<string, string>>(
    `SELECT stock_code, ${join('trade_date')} AS d, ${COLUMN_PARTS.map(([k, col]) => `${join(col)} AS ${k}`).join(', ')}
     FROM ${table} WHERE ${db.dialect.inTextList('stock_code')} GROUP BY stock_code`,
    [db.dialect.textList(codes)],
  );
  return rows.map(parseBarColumns);
}

/** One barColumns row: each joined column parsed, all put in date order (one aggregate pass keeps them aligned). */
export function parseBarColumns(r: Record<string, string>): BarColumns {
  const num = (k: string) => JSON.parse(`[${r[k] ?? ''}]`) as number[];
  const cols: BarColumns = {
    stock_code: r.stock_code ?? '', dates: (r.d ?? '').split(','), open: num('o'), high: num('h'), low: num('l'), close: num('c'),
    volume: num('v'), value: num('tv'), cap: num('mc'), shares: num('so'),
  };
  const { dates } = cols;
  if (dates.every((d, i) => i === 0 || (dates[i - 1] ?? '') < d)) return cols;
  const order = dates.map((_, i) => i).sort((a, b) => ((dates[a] ?? '') < (dates[b] ?? '') ? -1 : 1));
  const by = <T>(xs: T[]): T[] => order.map((i) => xs[i] as T);
  return {
    stock_code: cols.stock_code, dates: by(dates), open: by(cols.open), high: by(cols.high), low: by(cols.low), close: by(cols.close),
    volume: by(cols.volume), value: by(cols.value), cap: by(cols.cap), shares: by(cols.shares),
  };
}
