import type { Migration } from './index.js';

const SQL = `
CREATE TABLE screen_presets (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  query_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (user_id, name)
);
`;

/** Saved screen presets, one owner each; names unique per owner (same SQL on both engines). */
export const m003Presets: Migration = { id: 3, name: 'screen-presets', sqlite: SQL, postgres: SQL };
