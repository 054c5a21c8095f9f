/** Daily prices repository: OHLCV bars and trading halts, bulk upserts and range reads. */
import type { DailyBar, HaltRecord } from '../kernel/records.js';
import { bulkUpsert } from './bulk.js';
import type { Db, Queryable } from './db.js';
import { LIVE_TABLES, type MarketTableNames } from './market-tables.js';
import { readBarColumns, type BarColumns } from './bar-columns.js';

export { parseBarColumns, type BarColumns } from './bar-columns.js';

const BAR_COLUMNS = [
  'stock_code', 'trade_date', 'open_price', 'high_price', 'low_price', 'close_price',
  'volume', 'trading_value', 'market_cap', 'shares_outstanding',
] as const;
const HALT_COLUMNS = ['stock_code', 'trade_date', 'last_close', 'market_cap', 'shares_outstanding'] as const;

/** A history read. */
export interface HistoryQuery {
  from?: string;
  to?: string;
  /** Most recent N bars (still returned oldest first). */
  limit?: number;
}

/** Prices repository. */
export interface PricesRepo {
  upsertBars(q: Queryable, bars: readonly DailyBar[]): Promise<number>;
  /** A halt replaces no bar; a bar on the same day (a later correction) removes the halt. */
  upsertHalts(q: Queryable, halts: readonly HaltRecord[]): Promise<number>;
  history(code: string, query: HistoryQuery): Promise<DailyBar[]>;
  /** The last `n` bars of every stock, oldest first, grouped by code. */
  recentBars(n: number): Promise<Map<string, DailyBar[]>>;
  /** Latest halt per stock on or after its last bar. */
  latestHalts(): Promise<Map<string, HaltRecord>>;
  /** The stock's halt record when it is newer than its last bar (halted as of its latest data). */
  latestHalt(code: string): Promise<HaltRecord | undefined>;
  countBars(): Promise<number>;
  /** Every bar of the given stocks on or after `from`, by code then date. */
  barsFor(codes: readonly string[], from?: string): Promise<DailyBar[]>;
  /** The date `n` trading days back from the latest one (null without data). */
  nthLatestDate(n: number): Promise<string | null>;
  /** Every halt record (for exports). */
  allHalts(): Promise<HaltRecord[]>;
  /** Every date that has bars, oldest first. */
  tradeDates(): Promise<string[]>;
  /** Every stock's bar of one date (a day of a full market is ~2,700 rows: one short read). */
  barsOn(date: string): Promise<DailyBar[]>;
  /**
   * Every bar of the given stocks as columns, one row per stock (the whole history of 100 stocks
   * is a short read): the database joins each column into one text, so the driver makes a few
   * strings per stock instead of an object per bar (the history read).
   */
  barColumns(codes: readonly string[]): Promise<BarColumns[]>;
  latestDate(): Promise<string | null>;
}

/** Create the prices repository: bars here, halts and trading dates below, whole histories as columns in bar-columns.ts. */
export function createPricesRepo(db: Db, t: MarketTableNames = LIVE_TABLES): PricesRepo {
  return {
    async upsertBars(q, bars) {
      const written = await bulkUpsert(q, { table: t.daily_prices, columns: BAR_COLUMNS, key: ['stock_code', 'trade_date'] }, bars.map((b) => BAR_COLUMNS.map((c) => b[c])));
      if (bars.length) {
        // A real trade that day supersedes an earlier halt record.
        await q.run(
          `DELETE FROM ${t.trading_halts} WHERE (stock_code, trade_date) IN (SELECT value->>0, value->>1 FROM ${q.dialect.jsonRows})`,
          [JSON.stringify(bars.map((b) => [b.stock_code, b.trade_date]))],
        );
      }
      return written;
    },
    async history(code, { from, to, limit }) {
      const where = ['stock_code = ?'];
      const params: unknown[] = [code];
      if (from) (where.push('trade_date >= ?'), params.push(from));
      if (to) (where.push('trade_date <= ?'), params.push(to));
      const rows = await db.all<DailyBar>(
        `SELECT * FROM ${t.daily_prices} WHERE ${where.join(' AND ')} ORDER BY trade_date DESC ${limit ? 'LIMIT ?' : ''}`,
        limit ? [...params, limit] : params,
      );
      return rows.reverse();
    },
    async recentBars(n) {
      const cutoff = await db.get<{ d: string }>(
        `SELECT trade_date AS d FROM (SELECT DISTINCT trade_date FROM ${t.daily_prices} ORDER BY trade_date DESC LIMIT ?) AS recent ORDER BY trade_date ASC LIMIT 1`,
        [n],
      );
      const out = new Map<string, DailyBar[]>();
      if (!cutoff) return out;
      const rows = await db.all<DailyBar>(`SELECT * FROM ${t.daily_prices} WHERE trade_date >= ? ORDER BY stock_code, trade_date`, [cutoff.d]);
      for (const r of rows) {
        let list = out.get(r.stock_code);
        if (!list) out.set(r.stock_code, (list = []));
        list.push(r);
      }
      return out;
    },
    barsFor: (codes, from = '') =>
      db.all<DailyBar>(
        `SELECT * FROM ${t.daily_prices} WHERE ${db.dialect.inTextList('stock_code')} AND trade_date >= ? ORDER BY stock_code, trade_date`,
        [db.dialect.textList(codes), from],
      ),
    barsOn: (date) => db.all<DailyBar>(`SELECT * FROM ${t.daily_prices} WHERE trade_date = ?`, [date]),
    barColumns: (codes) => readBarColumns(db, t.daily_prices, codes),
    async countBars() {
      return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t.daily_prices}`))?.n ?? 0;
    },
    ...haltQueries(db, t),
    ...dateQueries(db, t),
  };
}

/** Trading halts: a halt is kept only for a day without a bar, and read when newer than the stock's last bar. */
function haltQueries(db: Db, t: MarketTableNames): Pick<PricesRepo, 'upsertHalts' | 'latestHalts' | 'latestHalt' | 'allHalts'> {
  return {
    async upsertHalts(q, halts) {
      const free: HaltRecord[] = [];
      for (const h of halts) {
        const bar = await q.get(`SELECT 1 AS x FROM ${t.daily_prices} WHERE stock_code = ? AND trade_date = ?`, [h.stock_code, h.trade_date]);
        if (!bar) free.push(h);
      }
      return bulkUpsert(q, { table: t.trading_halts, columns: HALT_COLUMNS, key: ['stock_code', 'trade_date'] }, free.map((h) => HALT_COLUMNS.map((c) => h[c])));
    },
    async latestHalts() {
      const rows = await db.all<HaltRecord>(
        `SELECT h.* FROM ${t.trading_halts} h
         JOIN (SELECT stock_code, MAX(trade_date) AS d FROM ${t.trading_halts} GROUP BY stock_code) m
           ON m.stock_code = h.stock_code AND m.d = h.trade_date
         WHERE h.trade_date > COALESCE((SELECT MAX(trade_date) FROM ${t.daily_prices} p WHERE p.stock_code = h.stock_code), '')`,
      );
      return new Map(rows.map((r) => [r.stock_code, r]));
    },
    latestHalt: (code) =>
      db.get<HaltRecord>(
        `SELECT * FROM ${t.trading_halts} h WHERE stock_code = ?
           AND trade_date > COALESCE((SELECT MAX(trade_date) FROM ${t.daily_prices} p WHERE p.stock_code = h.stock_code), '')
         ORDER BY trade_date DESC LIMIT 1`,
        [code],
      ),
    allHalts: () => db.all<HaltRecord>(`SELECT * FROM ${t.trading_halts} ORDER BY stock_code, trade_date`),
  };
}

/** The trading dates that have bars, read off the trade_date index. */
function dateQueries(db: Db, t: MarketTableNames): Pick<PricesRepo, 'nthLatestDate' | 'tradeDates' | 'latestDate'> {
  return {
    async nthLatestDate(n) {
      // A skip scan over the trade_date index: one seek per date (~2 ms for 300 dates) instead of
      // DISTINCT over every bar (~50 ms on a full market). A long query matters beyond its own
      // wait: the sqlite driver finalises other statements on the main thread under the same
      // connection mutex, so the event loop stalls while it runs.
      const row = await db.get<{ d: string | null }>(
        `WITH RECURSIVE recent(d, n) AS (
           SELECT (SELECT MAX(trade_date) FROM ${t.daily_prices}), 1
           UNION ALL
           SELECT (SELECT MAX(trade_date) FROM ${t.daily_prices} WHERE trade_date < recent.d), n + 1 FROM recent WHERE n < ? AND recent.d IS NOT NULL
         ) SELECT MIN(d) AS d FROM recent`,
        [n],
      );
      return row?.d ?? null;
    },
    async tradeDates() {
      // Skip scan (see nthLatestDate): one index seek per date.
      const rows = await db.all<{ d: string }>(
        `WITH RECURSIVE dates(d) AS (
           SELECT (SELECT MIN(trade_date) FROM ${t.daily_prices})
           UNION ALL
           SELECT (SELECT MIN(trade_date) FROM ${t.daily_prices} WHERE trade_date > dates.d) FROM dates WHERE dates.d IS NOT NULL
         ) SELECT d FROM dates WHERE d IS NOT NULL ORDER BY d`,
      );
      return rows.map((r) => r.d);
    },
    async latestDate() {
      return (await db.get<{ d: string | null }>(`SELECT MAX(trade_date) AS d FROM ${t.daily_prices}`))?.d ?? null;
    },
  };
}
