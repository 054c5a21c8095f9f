import type { Migration } from './index.js';

const SQL = `
CREATE TABLE backtests (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  done INTEGER NOT NULL DEFAULT 0,
  total INTEGER NOT NULL DEFAULT 0,
  request_json TEXT NOT NULL,
  result_json TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  -- Renewed while the daemon holding the run lives; a running run without one for a while was interrupted.
  heartbeat_at TEXT
);
CREATE INDEX backtests_user ON backtests (user_id, created_at);
`;

/** Backtest runs, one owner each, kept with their progress and result (same SQL on both engines). */
export const m012Backtests: Migration = { id: 12, name: 'backtests', sqlite: SQL, postgres: SQL };
