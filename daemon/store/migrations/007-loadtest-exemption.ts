import type { Migration } from './index.js';

const COLUMNS = `
ALTER TABLE users ADD COLUMN loadtest_exempt_until TEXT;
ALTER TABLE users ADD COLUMN loadtest_exempt_by TEXT;
`;

/**
 * A time-limited load-test exemption on an account: until `loadtest_exempt_until`
 * (ISO time) the rate limiter does not count the account's requests; `loadtest_exempt_by`
 * is the email of the admin who granted it. Past that time the columns mean nothing.
 */
export const m007LoadtestExemption: Migration = {
  id: 7,
  name: 'loadtest-exemption',
  sqlite: COLUMNS,
  postgres: COLUMNS,
};
