import type { Migration } from './index.js';

const sql = `
ALTER TABLE financials ADD COLUMN disclosed_on TEXT;
`;

/**
 * The date a quarter's statement became public (a statement is used
 * only from its disclosure date). Null when the source gave none: readers then assume the
 * statutory deadline (45 days after a quarter's end, 90 after the fiscal year's).
 */
export const m011DisclosureDates: Migration = { id: 11, name: 'disclosure-dates', sqlite: sql, postgres: sql };
