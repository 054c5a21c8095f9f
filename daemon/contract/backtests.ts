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
