import type { Migration } from './index.js';

const sql = `ALTER TABLE backtests ADD COLUMN phase TEXT;`;

/**
 * What an active backtest is doing (queued, reading_history, building_series, screening; null
 * once it ended), kept on the row so every daemon answering GET /screen/backtests/{id} can say so.
 */
export const m054BacktestPhase: Migration = { id: 54, name: 'backtest-phase', sqlite: sql, postgres: sql };
