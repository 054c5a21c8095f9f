/**
 * Backtest runs on the wire: POST /screen/backtest, GET /screen/backtests[/{id}],
 * DELETE /screen/backtests/{id}. The run's full shape is documented by the OpenAPI schema
 * (daemon/http/schemas/backtests.ts); its states are written here once.
 */

/**
 * A run's states: `queued` (waiting for a worker of any daemon), `running` (done/total
 * rebalance dates screened), then `completed` (result set), `failed` (error says why) or
 * `cancelled` (by its owner).
 */
export const BACKTEST_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
/** A run's state. */
export type BacktestStatus = (typeof BACKTEST_STATUSES)[number];

/**
 * What an active run is doing, so a client can say so from the first second instead of a blank
 * screen: `queued` (waiting for a worker), `reading_history` (the market's history is read into
 * memory: the first run after a start or a load, seconds on a full market), `building_series`
 * (the indicator series the screen reads are built over the whole history, once per data
 * version), `screening` (one rebalance date after another: done/total). Null once the run ended.
 */
export const BACKTEST_PHASES = ['queued', 'reading_history', 'building_series', 'screening'] as const;
/** An active run's phase. */
export type BacktestPhase = (typeof BACKTEST_PHASES)[number];
