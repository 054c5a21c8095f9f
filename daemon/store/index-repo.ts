/** Market index series (KOSPI, KOSDAQ composite), loaded or computed from constituents. */
import type { IndexBar, Market } from '../kernel/records.js';
import { bulkUpsert } from './bulk.js';
import type { Db, Queryable } from './db.js';
import { LIVE_TABLES, type MarketTableNames } from './market-tables.js';

const COLUMNS = ['market', 'trade_date', 'open', 'high', 'low', 'close', 'volume', 'trading_value', 'computed'] as const;

/** Index repository. */
export interface IndexRepo {
  /** Loaded series overwrite computed ones; computed ones never overwrite loaded ones. */
  upsert(q: Queryable, rows: readonly IndexBar[], computed?: boolean): Promise<number>;
  series(market: Market, from?: string): Promise<IndexBar[]>;
  /** Number of loaded (not computed) days per market. */
  loadedDays(market: Market): Promise<number>;
}

/** Create the index repository. */
export function createIndexRepo(db: Db, t: MarketTableNames = LIVE_TABLES): IndexRepo {
  return {
    async upsert(q, rows, computed = false) {
      const values = rows.map((r) => [r.market, r.trade_date, r.open, r.high, r.low, r.close, r.volume, r.trading_value, computed ? 1 : 0]);
      if (!computed) return bulkUpsert(q, { table: t.market_index, columns: COLUMNS, key: ['market', 'trade_date'] }, values);
      let n = 0;
      for (let i = 0; i < values.length; i += 800) {
        const chunk = values.slice(i, i + 800);
        const r = await q.run(
          `INSERT INTO ${t.market_index} (${COLUMNS.join(', ')}) VALUES ${chunk.map(() => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ')}
           ON CONFLICT (market, trade_date) DO UPDATE SET open = excluded.open, high = excluded.high, low = excluded.low, close = excluded.close,
             volume = excluded.volume, trading_value = excluded.trading_value WHERE ${t.market_index}.computed = 1`,
          chunk.flat(),
        );
        n += r.changes;
      }
      return n;
    },
    series: (market, from = '0000-00-00') =>
      db.all<IndexBar>(`SELECT market, trade_date, open, high, low, close, volume, trading_value FROM ${t.market_index} WHERE market = ? AND trade_date >= ? ORDER BY trade_date`, [market, from]),
    async loadedDays(market) {
      return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t.market_index} WHERE market = ? AND computed = 0`, [market]))?.n ?? 0;
    },
  };
}
