/**
 * What the stored market is: the generated sample market, real loaded files,
 * or nothing yet; and removing the whole market (inside a load's transaction).
 */
import type { Queryable } from './db.js';
import { LIVE_TABLES, MARKET_TABLES, type MarketTableNames } from './market-tables.js';

export { MARKET_TABLES } from './market-tables.js';

/** What the market tables hold. */
export type MarketContent = 'sample' | 'files' | 'empty';

/** The market's content as recorded; a database with stocks and no record (loaded before this record existed) holds files. */
export async function marketContent(q: Queryable, t: MarketTableNames = LIVE_TABLES): Promise<MarketContent> {
  const row = await q.get<{ value: string }>(`SELECT value FROM ${t.market_meta} WHERE key = 'content'`);
  if (row?.value === 'sample' || row?.value === 'files') return row.value;
  const any = await q.get(`SELECT code FROM ${t.stocks} LIMIT 1`);
  return any ? 'files' : 'empty';
}

/** Record the market's content (inside the load's transaction). */
export async function setMarketContent(q: Queryable, content: Exclude<MarketContent, 'empty'>, t: MarketTableNames = LIVE_TABLES): Promise<void> {
  await q.run(`DELETE FROM ${t.market_meta} WHERE key = 'content'`);
  await q.run(`INSERT INTO ${t.market_meta} (key, value) VALUES ('content', ?)`, [content]);
}

/** Remove every market row (stocks, bars, halts, statements, index, indicators). */
export async function clearMarket(q: Queryable, t: MarketTableNames = LIVE_TABLES): Promise<void> {
  for (const table of MARKET_TABLES) await q.run(`DELETE FROM ${t[table]}`);
}
