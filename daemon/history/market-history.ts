/**
 * The whole stored market held in memory for screening through time: every
 * trading date, each stock's bars as typed columns (≈70 bytes a bar: a full sample market of
 * 2,700 stocks × 500 days is ≈95 MB), its halt days, and its statements with the date each
 * became known. Plain data and pure look-ups; loading is in history-loader.ts.
 */
import type { DailyBar, DesignationRecord, FinancialQuarter, HaltRecord, IndexBar, Market, StockRecord } from '../kernel/records.js';
import type { OhlcvColumns } from '../indicators/kernel.js';

/** A statement and the first date it may be used (its disclosure date, or the statutory deadline). */
export interface KnownStatement {
  known_on: string;
  quarter: FinancialQuarter;
}

/** One stock's history. Bars are in date order; `days[i]` indexes `MarketHistory.dates`. */
export interface StockHistory extends OhlcvColumns {
  readonly record: StockRecord;
  readonly days: Int32Array;
  /** NaN where the source gave none. */
  readonly cap: Float64Array;
  /** NaN where the source gave none. */
  readonly shares: Float64Array;
  /** Halt records by date index (days without a bar). */
  readonly halts: ReadonlyMap<number, HaltRecord>;
  /** Statements, ordered by `known_on`. */
  readonly statements: readonly KnownStatement[];
  /** Designations dated files stated, ordered by date (empty when no source dated them). */
  readonly designations: readonly DesignationRecord[];
  /** First and last date index with a bar or halt record (-1 when none). */
  readonly firstDay: number;
  readonly lastDay: number;
}

/** The market's history. */
export interface MarketHistory {
  /** The data version this history was read at (the live snapshot's version). */
  readonly version: string;
  /** Every date with a bar or a halt record, ascending. */
  readonly dates: readonly string[];
  readonly stocks: readonly StockHistory[];
  readonly byCode: ReadonlyMap<string, StockHistory>;
  /** Index series by market, oldest first. */
  readonly index: Readonly<Record<Market, IndexBar[]>>;
}

/** Index of the last date ≤ `date` in `dates` (ascending), or -1. */
export function dayOnOrBefore(dates: readonly string[], date: string): number {
  let lo = 0;
  let hi = dates.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((dates[mid] ?? '') <= date) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Number of the stock's bars dated on or before date index `day`. */
export function barsThrough(stock: StockHistory, day: number): number {
  let lo = 0;
  let hi = stock.days.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((stock.days[mid] ?? 0) <= day) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Position of the stock's bar on date index `day`, or -1 (no bar: halted, not listed). */
export function barOn(stock: StockHistory, day: number): number {
  const n = barsThrough(stock, day);
  return n > 0 && stock.days[n - 1] === day ? n - 1 : -1;
}

/** The stock's last known close on or before `day` (a bar's close or a halt's last close), or null. */
export function closeThrough(stock: StockHistory, day: number): number | null {
  const halt = stock.halts.get(day);
  if (halt) return halt.last_close;
  const n = barsThrough(stock, day);
  return n > 0 ? (stock.close[n - 1] ?? null) : null;
}

/** The last `limit` bars on or before date index `day`, as records, oldest first. */
export function barRecords(history: MarketHistory, stock: StockHistory, day: number, limit: number): DailyBar[] {
  const end = barsThrough(stock, day);
  const start = Math.max(0, end - limit);
  const out: DailyBar[] = new Array<DailyBar>(end - start);
  const code = stock.record.code;
  for (let i = start; i < end; i++) {
    const cap = stock.cap[i] ?? Number.NaN;
    const shares = stock.shares[i] ?? Number.NaN;
    out[i - start] = {
      stock_code: code,
      trade_date: history.dates[stock.days[i] ?? 0] ?? '',
      open_price: stock.open[i] ?? 0,
      high_price: stock.high[i] ?? 0,
      low_price: stock.low[i] ?? 0,
      close_price: stock.close[i] ?? 0,
      volume: stock.volume[i] ?? 0,
      trading_value: stock.value[i] ?? 0,
      market_cap: Number.isNaN(cap) ? null : cap,
      shares_outstanding: Number.isNaN(shares) ? null : shares,
    };
  }
  return out;
}

/** The statements known on `date` (disclosed on or before it), in fiscal order. */
export function statementsKnownOn(stock: StockHistory, date: string): FinancialQuarter[] {
  const out: FinancialQuarter[] = [];
  for (const s of stock.statements) {
    if (s.known_on > date) break;
    out.push(s.quarter);
  }
  return out.sort((a, b) => a.fiscal_year - b.fiscal_year || a.fiscal_quarter - b.fiscal_quarter);
}

/**
 * Whether the stock is part of the market on date index `day`: listed by then (a bar or halt
 * on or before it, and its listing date not after it) and not delisted before it (its data
 * ending before the market's does means it was delisted after its last day).
 */
export function isListedOn(history: MarketHistory, stock: StockHistory, day: number): boolean {
  if (stock.firstDay < 0 || stock.firstDay > day) return false;
  const listing = stock.record.listing_date;
  if (listing && listing > (history.dates[day] ?? '')) return false;
  const marketLast = history.dates.length - 1;
  return stock.lastDay >= day || stock.lastDay === marketLast;
}

/** The stock's delisting date index (its last day of data when that is before the market's), or null. */
export function delistedAfter(history: MarketHistory, stock: StockHistory): number | null {
  return stock.lastDay >= 0 && stock.lastDay < history.dates.length - 1 ? stock.lastDay : null;
}

/**
 * The stock's designation on `date`: the last one a dated file stated on or before it; before
 * the first statement (or with none) the listing's current flag and board, since nothing older
 * is known.
 */
export function designationOn(stock: StockHistory, date: string): { is_administrative: boolean; board: string | null } {
  let lo = 0;
  let hi = stock.designations.length - 1;
  let found: DesignationRecord | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const d = stock.designations[mid]!;
    if (d.trade_date <= date) {
      found = d;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found ?? stock.record;
}
