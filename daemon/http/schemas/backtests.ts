/** Wire schemas of backtest runs, for OpenAPI: every field of a run and its result. */
import { z } from 'zod';
import { BACKTEST_STATUSES } from '../../contract/backtests.js';

const ratio = (description: string) => z.number().nullable().meta({ description });

const curvePoint = z.object({
  date: z.string().meta({ description: 'Trading date (YYYY-MM-DD)' }),
  equity: z.number().meta({ description: 'Portfolio value at the close, KRW (cash + holdings; halted/delisted at their last close)' }),
  benchmark: z.number().nullable().meta({ description: 'The benchmark index scaled to the starting capital, KRW; null without index data' }),
}).meta({ id: 'BacktestCurvePoint' });

const trade = z.object({
  date: z.string(), code: z.string(), side: z.enum(['buy', 'sell']),
  shares: z.number().int(), price: z.number().meta({ description: 'Execution price: the open ± slippage (a delisting: the last close)' }),
  fee: z.number().meta({ description: 'Brokerage fee, KRW' }), tax: z.number().meta({ description: 'Transaction tax (sells), KRW' }),
  reason: z.literal('delisted').optional().meta({ description: 'Set on the forced sale of a delisted stock' }),
}).meta({ id: 'BacktestTrade' });

const holding = z.object({
  code: z.string(), name: z.string(), shares: z.number().int(),
  entry_price: z.number().meta({ description: 'Market price at the period start (the trade day open; last close when halted)' }),
  exit_price: z.number().nullable().meta({ description: 'Market price at the period end (next trade day open, the last close at `to`, or the delisting price)' }),
  exit_date: z.string().nullable(), return_pct: z.number().nullable().meta({ description: 'exit / entry − 1, percent' }),
});

const rebalance = z.object({
  signal_date: z.string().meta({ description: 'The as-of date of the screen' }),
  trade_date: z.string().meta({ description: 'The next trading day: trades at its open' }),
  selected: z.number().int().meta({ description: 'Stocks the screen selected (after top)' }),
  skipped: z.array(z.object({ code: z.string(), reason: z.enum(['halted', 'limit_up', 'limit_down']) })).meta({ description: 'Orders not filled: halted, opened at the upper limit (buy) or lower limit (sell)' }),
  turnover: z.number().meta({ description: 'One-way turnover of this rebalance: (bought + sold) / 2 / value at the open' }),
  holdings: z.array(holding),
}).meta({ id: 'BacktestRebalance' });

const stats = z.object({
  total_return: z.number().meta({ description: 'Final / starting equity − 1 (ratio)' }),
  cagr: ratio('Compound annual growth rate over calendar days'),
  volatility: ratio('Annualised volatility: stdev of daily returns × √252'),
  sharpe: ratio('(mean daily return × 252 − risk-free rate) / volatility'),
  max_drawdown: z.number().meta({ description: 'Largest fall from a running peak (ratio ≥ 0)' }),
  max_drawdown_peak: z.string().nullable(), max_drawdown_trough: z.string().nullable(),
  turnover: z.number().meta({ description: 'Mean one-way turnover per rebalance' }),
  hit_rate: ratio('Share of period holdings that ended above their entry price'),
  benchmark_return: ratio('The benchmark index over the same days'),
  excess_return: ratio('total_return − benchmark_return'),
  final_equity: z.number(),
}).meta({ id: 'BacktestStats' });

const rules = z.object({
  rebalance: z.enum(['weekly', 'monthly', 'quarterly']), top: z.number().int().nullable().meta({ description: 'null: every member' }),
  weighting: z.enum(['equal', 'market_cap']), fee_bps: z.number(), tax_bps: z.number(), slippage_bps: z.number(),
  benchmark: z.enum(['KOSPI', 'KOSDAQ']), capital: z.number(), risk_free_rate: z.number(),
});

/** A completed run's result. */
export const backtestResultSchema = z.object({
  from: z.string().meta({ description: 'First signal date used (trading day)' }), to: z.string(), rules,
  stats: stats.nullable().meta({ description: 'null when nothing was ever held (see message)' }),
  message: z.string().optional(), curve: z.array(curvePoint), rebalances: z.array(rebalance), trades: z.array(trade),
}).meta({ id: 'BacktestResult' });

/** A run as stored: status, progress, the request, the result once completed. */
export const backtestRunSchema = z.object({
  id: z.string(),
  status: z.enum(BACKTEST_STATUSES).meta({
    description: 'queued: waiting for a worker; running: done/total rebalance dates screened; completed: result set; failed: error says why; cancelled: by its owner',
  }),
  done: z.number().int().meta({ description: 'Rebalance dates screened so far (0 while queued; from 0 again when another daemon takes the run over)' }),
  total: z.number().int().meta({ description: 'Rebalance dates of the run' }),
  request: z.record(z.string(), z.unknown()),
  result: backtestResultSchema.nullable().meta({ description: 'Set once completed (null in lists)' }),
  error: z.string().nullable(),
  created_at: z.string(), finished_at: z.string().nullable(),
}).meta({ id: 'BacktestRun' });
