/**
 * The names of the market's tables. Readers use the live names; a load writes into a staged
 * copy of every table (market-stage.ts) and publishes it by renaming, so the repositories take
 * the set of names they work on.
 */

/** Tables of the market, children first (deleting in this order never trips a foreign key). */
export const MARKET_TABLES = [
  'stock_indicators', 'indicator_runs', 'stock_designations', 'daily_prices', 'trading_halts', 'financials', 'financial_reports', 'market_index', 'stocks', 'market_meta',
] as const;

/** One market table. */
export type MarketTable = (typeof MARKET_TABLES)[number];

/** The actual name of each market table in one set (live or staged). */
export type MarketTableNames = Readonly<Record<MarketTable, string>>;

/** The tables readers see. */
export const LIVE_TABLES: MarketTableNames = Object.freeze(Object.fromEntries(MARKET_TABLES.map((t) => [t, t])) as Record<MarketTable, string>);

/** The same tables under a prefix (`<prefix>daily_prices`, …). */
export function prefixedTables(prefix: string): MarketTableNames {
  return Object.freeze(Object.fromEntries(MARKET_TABLES.map((t) => [t, `${prefix}${t}`])) as Record<MarketTable, string>);
}
