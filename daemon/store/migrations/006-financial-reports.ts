import type { Migration } from './index.js';

const table = (real: string, without: string) => `
CREATE TABLE financial_reports (
  stock_code TEXT NOT NULL REFERENCES stocks(code) ON DELETE CASCADE,
  fiscal_year INTEGER NOT NULL,
  fiscal_quarter INTEGER NOT NULL CHECK (fiscal_quarter BETWEEN 1 AND 4),
  field TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('flow', 'ytd', 'stock')),
  amount ${real} NOT NULL,
  ytd ${real},
  PRIMARY KEY (stock_code, fiscal_year, fiscal_quarter, field)
)${without};
`;

/**
 * Statement amounts as filed (OpenDART reports, one row per account of a report), so
 * that the quarters of a year can be derived from reports loaded in separate files
 * and in any order (daemon/kernel/financial-reports.ts).
 */
export const m006FinancialReports: Migration = {
  id: 6,
  name: 'financial-reports',
  sqlite: table('REAL', ' WITHOUT ROWID'),
  postgres: table('DOUBLE PRECISION', ''),
};
