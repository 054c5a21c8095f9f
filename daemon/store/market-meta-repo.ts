/**
 * What the stored market is: the generated sample market, real loaded files,
 * or nothing yet; and removing the whole market (inside a load's transaction).
 */
import type { Queryable } from './db.js';

/** What the market tables hold. */
export type MarketContent = 'sample' | 'files' | 'empty';

/** Tables of the market, children first (deleting in this order never trips a foreign key). */
export const MARKET_TABLES = [
  'stock_indicators', 'indicator_runs', 'stock_designations', 'daily_prices', 'trading_halts', 'financials', 'financial_reports', 'market_index', 'stocks', 'market_meta',
] as const;

/** The market's content as recorded; a database with stocks and no record (loaded before this record existed) holds files. */
export async function marketContent(q: Queryable): Promise<MarketContent> {
  const row = await q.get<{ value: string }>("SELECT value FROM market_meta WHERE key = 'content'");
  if (row?.value === 'sample' || row?.value === 'files') return row.value;
  const any = await q.get('SELECT code FROM stocks LIMIT 1');
  return any ? 'files' : 'empty';
}

/** Record the market's content (inside the load's transaction). */
export async function setMarketContent(q: Queryable, content: Exclude<MarketContent, 'empty'>): Promise<void> {
  await q.run("DELETE FROM market_meta WHERE key = 'content'");
  await q.run("INSERT INTO market_meta (key, value) VALUES ('content', ?)", [content]);
}

/** Remove every market row (stocks, bars, halts, statements, index, indicators). */
export async function clearMarket(q: Queryable): Promise<void> {
  for (const table of MARKET_TABLES) await q.run(`DELETE FROM ${table}`);
}
