import type { Migration } from './index.js';

const sql = `
CREATE TABLE market_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;

/**
 * Facts about the stored market as a whole: `content` is `sample` while the
 * database holds the generated sample market and `files` once real files were loaded, so
 * a load never mixes the two unawares.
 */
export const m008MarketContent: Migration = { id: 8, name: 'market-content', sqlite: sql, postgres: sql };
