/** A backtest run as the API answers it, for the CLI's services and views (no session: views import it). */
import type { BacktestRun } from '../../../daemon/contract/backtests.js';

export type { BacktestResult, BacktestRun } from '../../../daemon/contract/backtests.js';

/** True while a worker may still change the run. */
export const isActive = (run: BacktestRun) => run.status === 'queued' || run.status === 'running';
