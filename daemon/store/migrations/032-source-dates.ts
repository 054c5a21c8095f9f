import type { Migration } from './index.js';

const table = `
CREATE TABLE source_dates (
  source TEXT NOT NULL,
  unit TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  rows_ok INTEGER NOT NULL,
  rows_rejected INTEGER NOT NULL,
  loaded_at TEXT NOT NULL,
  PRIMARY KEY (source, unit)
)`;

/**
 * What each data source has committed: one row per source and unit (a trading date, or a
 * company-quarter), written in the same transaction as the unit's market rows. The content hash
 * lets a later run tell an unchanged answer (nothing written) from a correction (replaced).
 */
export const m032SourceDates: Migration = {
  id: 32,
  name: 'source-dates',
  sqlite: `${table} WITHOUT ROWID;`,
  postgres: `${table};`,
};
