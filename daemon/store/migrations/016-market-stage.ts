import type { Migration } from './index.js';

const sql = `
CREATE TABLE market_stage (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  owner TEXT NOT NULL,
  started_at TEXT NOT NULL
);
`;

/**
 * Who owns the staged copy of the market a load is writing (daemon/store/market-stage.ts): a
 * load claims it when it starts staging and may publish only while it still owns it, so a worker
 * that lost its job (its lock lapsed and another worker runs the job again) can never publish
 * the other run's half-written stage.
 */
export const m016MarketStage: Migration = { id: 16, name: 'market-stage', sqlite: sql, postgres: sql };
