import type { Migration } from './index.js';

// sqlite cannot change a CHECK constraint in place: the table is rebuilt (same rows).
const sqlite = `
CREATE TABLE backtests_014 (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  done INTEGER NOT NULL DEFAULT 0,
  total INTEGER NOT NULL DEFAULT 0,
  request_json TEXT NOT NULL,
  result_json TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  finished_at TEXT
);
INSERT INTO backtests_014 (id, user_id, status, done, total, request_json, result_json, error, created_at, finished_at)
  SELECT id, user_id, status, done, total, request_json, result_json, error, created_at, finished_at FROM backtests;
DROP TABLE backtests;
ALTER TABLE backtests_014 RENAME TO backtests;
CREATE INDEX backtests_user ON backtests (user_id, created_at);
CREATE INDEX backtests_status ON backtests (status);
`;

const postgres = `
ALTER TABLE backtests DROP CONSTRAINT backtests_status_check;
ALTER TABLE backtests ADD CONSTRAINT backtests_status_check CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled'));
ALTER TABLE backtests DROP COLUMN heartbeat_at;
CREATE INDEX backtests_status ON backtests (status);
`;

/**
 * Backtest runs become queue jobs: a run may be `queued` (waiting for a worker of any
 * daemon) or `cancelled` by its owner; the heartbeat column goes (BullMQ's job lock replaces it).
 */
export const m014BacktestQueue: Migration = { id: 14, name: 'backtest-queue', sqlite, postgres };
