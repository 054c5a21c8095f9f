import type { Migration } from './index.js';

const SECRETS = `
CREATE TABLE app_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL
);
`;

/**
 * Secrets every daemon sharing the database must agree on (the generated JWT signing
 * key when none is configured), and an index for the case-insensitive email lookup
 * that both engines now run as `lower(email) = lower(?)` (PostgreSQL has it from 001).
 */
export const m005SharedSecrets: Migration = {
  id: 5,
  name: 'shared-secrets',
  sqlite: `${SECRETS}CREATE INDEX users_email_lower ON users (lower(email));\n`,
  postgres: SECRETS,
};
