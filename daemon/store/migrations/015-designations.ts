import type { Migration } from './index.js';

const table = (flag: string) => `
CREATE TABLE stock_designations (
  stock_code TEXT NOT NULL REFERENCES stocks(code) ON DELETE CASCADE,
  trade_date TEXT NOT NULL,
  is_administrative ${flag} NOT NULL,
  board TEXT,
  PRIMARY KEY (stock_code, trade_date)
)`;

/**
 * Designations by day (an as-of screen uses the designation in force on its date):
 * one row per issue and trading day a dated all-issue file stated it. Rows only where the
 * source said something (KRX daily files leave KOSPI issues' 소속부 blank).
 */
export const m015Designations: Migration = {
  id: 15,
  name: 'designations',
  sqlite: `${table('INTEGER')} WITHOUT ROWID;`,
  postgres: `${table('INTEGER')};`,
};
