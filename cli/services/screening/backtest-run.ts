/** A backtest run as the API answers it, for the CLI's services and views (no session: views import it). */
import type { BacktestPhase, BacktestStatus } from '../../../daemon/contract/backtests.js';

/** A run as the API answers it (daemon/http/schemas/backtests.ts). */
export interface BacktestRun {
  id: string;
  status: BacktestStatus;
  /** What an active run is doing (absent from daemons older than this field). */
  phase?: BacktestPhase | null;
  done: number;
  total: number;
  error: string | null;
  result: BacktestResultWire | null;
  request: Record<string, unknown>;
  created_at: string;
  finished_at: string | null;
}

/** True while a worker may still change the run. */
export const isActive = (run: BacktestRun) => run.status === 'queued' || run.status === 'running';

/** The result part the CLI reads. */
export interface BacktestResultWire {
  from: string;
  to: string;
  message?: string;
  stats: Record<string, number | string | null> | null;
  curve: { date: string; equity: number; benchmark: number | null }[];
  trades: { date: string; code: string; side: string; shares: number; price: number; fee: number; tax: number; reason?: string }[];
  rebalances: { signal_date: string; trade_date: string; selected: number; turnover: number; holdings: unknown[] }[];
  rules: Record<string, unknown>;
}
