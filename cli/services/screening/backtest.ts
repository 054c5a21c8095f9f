/**
 * `stockscreen backtest`: build the POST /screen/backtest body from flags, start
 * the run and follow it (GET /screen/backtests/{id}) while it is queued or running, reporting
 * progress; then the summary rows, the CSVs (equity curve, trades) and the equity-vs-benchmark
 * chart. Also the list of your runs, one run, and cancelling one.
 */
import type { BacktestPhase } from '../../../daemon/contract/backtests.js';
import { isActive, type BacktestResult, type BacktestRun } from './backtest-run.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';
import { CliError } from '../session/errors.js';
import type { TableData } from '../output/output.js';
import type { Session } from '../session/session.js';

export { isActive, type BacktestResult, type BacktestRun } from './backtest-run.js';
export { backtestStepHint, backtestStepLabel, type BacktestProgressSink, type BacktestProgressSnapshot } from './backtest-progress.js';

const runPath = (id: string) => `${API_PREFIX}/screen/backtests/${encodeURIComponent(id)}`;

/** One of your runs. @throws CliError NOT_FOUND */
export function getBacktest(session: Session, id: string): Promise<ApiResponse<BacktestRun>> {
  return session.api.request<BacktestRun>({ method: 'GET', path: runPath(id) });
}

/** Your runs, newest first (without results). */
export function listBacktests(session: Session, limit: number): Promise<ApiResponse<BacktestRun[]>> {
  return session.api.request<BacktestRun[]>({ method: 'GET', path: `${API_PREFIX}/screen/backtests?limit=${limit}` });
}

/** Cancel a queued or running run. @throws CliError NOT_FOUND, CONFLICT (already ended) */
export function cancelBacktest(session: Session, id: string): Promise<ApiResponse<BacktestRun>> {
  return session.api.request<BacktestRun>({ method: 'DELETE', path: runPath(id) });
}

/** Runs as rows: ID STATUS PROGRESS SCREEN FROM REBALANCE CREATED FINISHED ERROR. */
export function runsTable(runs: BacktestRun[]): TableData {
  const screen = (r: Record<string, unknown>) =>
    typeof r.template === 'string' ? `template:${r.template}` : typeof r.preset_id === 'string' ? `preset:${r.preset_id}` : 'query';
  return {
    headers: ['id', 'status', 'progress', 'screen', 'from', 'rebalance', 'created', 'finished', 'error'],
    rows: runs.map((r) => [
      r.id, r.status, `${r.done}/${r.total}`, screen(r.request), String(r.request.from ?? ''), String(r.request.rebalance ?? ''),
      r.created_at, r.finished_at ?? '', r.error ?? '',
    ]),
  };
}

/** Start a backtest; answers the run (completed when the server ran it directly). */
export async function startBacktest(session: Session, body: Record<string, unknown>): Promise<ApiResponse<BacktestRun>> {
  return session.api.request<BacktestRun>({ method: 'POST', path: `${API_PREFIX}/screen/backtest`, body });
}

/**
 * Poll the run every `intervalMs` while it is queued or running, calling `onProgress` each time.
 * @throws CliError BACKTEST_FAILED when it failed or was cancelled
 */
export async function followBacktest(session: Session, started: ApiResponse<BacktestRun>, onProgress: (run: BacktestRun) => void, intervalMs = 500): Promise<ApiResponse<BacktestRun>> {
  let res = started;
  while (isActive(res.data)) {
    onProgress(res.data);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    res = await getBacktest(session, started.data.id);
  }
  onProgress(res.data);
  if (res.data.status === 'failed') throw new CliError({ code: 'BACKTEST_FAILED', message: `backtest ${res.data.id} failed: ${res.data.error ?? 'unknown error'}` });
  if (res.data.status === 'cancelled') throw new CliError({ code: 'BACKTEST_FAILED', message: `backtest ${res.data.id} was cancelled` });
  return res;
}

/** What each phase before the first screened date reads as. */
const PHASE_TEXT: Partial<Record<BacktestPhase, string>> = {
  reading_history: 'reading the market history (the first run after a start or a load takes a few seconds)',
  building_series: 'building the indicator series the screen reads',
};

/**
 * One progress line: `queued, waiting for a worker`, what the run does before its first date
 * (reading the history, building series), then `[#####-----] 12/26 rebalances`.
 */
export function progressText(run: BacktestRun, width = 24): string {
  const head = `backtest ${run.id.slice(0, 8)}`;
  const phase = isActive(run) && run.phase ? PHASE_TEXT[run.phase] : undefined;
  if (phase) return `${head} ${phase}${run.total > 0 ? ` (${run.total} rebalances)` : ''}…`;
  if (run.status === 'queued') return `${head} queued, waiting for a worker (${run.total} rebalances)`;
  const filled = run.total > 0 ? Math.min(width, Math.floor((run.done / run.total) * width)) : 0;
  return `${head} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${run.done}/${run.total} rebalances${run.status === 'cancelled' ? ' (cancelled)' : ''}`;
}

const pct = (v: number | string | null | undefined) => (typeof v === 'number' ? `${(v * 100).toFixed(2)}%` : '—');
const num = (v: number | string | null | undefined, digits = 2) => (typeof v === 'number' ? v.toFixed(digits) : '—');
const won = (v: number | string | null | undefined) => (typeof v === 'number' ? `${Math.round(v).toLocaleString('en-US')} KRW` : '—');

/** The summary as label/value rows. */
export function summaryTable(r: BacktestResult): TableData {
  const s: Partial<NonNullable<BacktestResult['stats']>> = r.stats ?? {};
  const rows: [string, string][] = [
    ['period', `${r.from} … ${r.to}`], ['rebalances', String(r.rebalances.length)], ['final equity', won(s.final_equity)],
    ['total return', pct(s.total_return)], ['benchmark return', pct(s.benchmark_return)], ['excess return', pct(s.excess_return)],
    ['CAGR', pct(s.cagr)], ['volatility (ann.)', pct(s.volatility)], ['Sharpe', num(s.sharpe)],
    ['max drawdown', `${pct(s.max_drawdown)}${s.max_drawdown_peak ? ` (${s.max_drawdown_peak} → ${s.max_drawdown_trough})` : ''}`],
    ['turnover / rebalance', pct(s.turnover)], ['hit rate', pct(s.hit_rate)], ['trades', String(r.trades.length)],
  ];
  return { headers: ['metric', 'value'], rows };
}

const csvCell = (v: unknown) => (typeof v === 'string' && /[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : String(v ?? ''));

/** The equity curve as CSV (date, equity, benchmark). */
export function equityCsv(r: BacktestResult): string {
  return ['date,equity,benchmark', ...r.curve.map((p) => [p.date, p.equity, p.benchmark ?? ''].map(csvCell).join(','))].join('\n') + '\n';
}

/** The trades as CSV. */
export function tradesCsv(r: BacktestResult): string {
  const cols = ['date', 'code', 'side', 'shares', 'price', 'fee', 'tax', 'reason'] as const;
  return [cols.join(','), ...r.trades.map((t) => cols.map((c) => csvCell(t[c])).join(','))].join('\n') + '\n';
}

/**
 * `height` rows of a `width`-column chart of the equity (█) against the benchmark (·) on one
 * scale, each resampled to the width (the last point of each bucket); '▓' where they meet.
 */
export function equityChart(r: BacktestResult, width: number, height: number): string[] {
  const pick = (values: number[]) => (values.length <= width ? values : Array.from({ length: width }, (_, i) => values[Math.ceil(((i + 1) * values.length) / width) - 1]!));
  const equity = pick(r.curve.map((p) => p.equity));
  const bench = pick(r.curve.map((p) => p.benchmark ?? Number.NaN));
  const all = [...equity, ...bench.filter(Number.isFinite)];
  const min = Math.min(...all);
  const max = Math.max(...all);
  const rowOf = (v: number) => (max === min ? Math.floor(height / 2) : Math.round(((max - v) / (max - min)) * (height - 1)));
  const grid = Array.from({ length: height }, () => new Array<string>(equity.length).fill(' '));
  bench.forEach((v, x) => Number.isFinite(v) && (grid[rowOf(v)]![x] = '·'));
  equity.forEach((v, x) => {
    const row = grid[rowOf(v)]!;
    row[x] = row[x] === '·' ? '▓' : '█';
  });
  return grid.map((cells) => cells.join(''));
}
