/**
 * Backtest runs on the wire: POST /screen/backtest, GET /screen/backtests[/{id}],
 * DELETE /screen/backtests/{id}. The request body, the run and its result are zod schemas: the
 * routes validate and document with them, the backtest engine produces their types and the CLI
 * reads them.
 */
import { z } from 'zod';
import { MARKETS } from '../kernel/records.js';
import { MAX_PRESET_QUERY_KEYS } from './presets.js';

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

/** How often the portfolio is rebuilt from the screen. */
export const REBALANCE_PERIODS = ['weekly', 'monthly', 'quarterly'] as const;
/** A rebalance period. */
export type RebalancePeriod = (typeof REBALANCE_PERIODS)[number];

/** How the money is split among the selected stocks. */
export const WEIGHTINGS = ['equal', 'market_cap'] as const;
/** A weighting. */
export type Weighting = (typeof WEIGHTINGS)[number];

/**
 * The KRX securities transaction tax on sells, in basis points: 0.20% since 2026-01-01 (KOSPI
 * 0.05% transaction tax + 0.15% special tax for rural development; KOSDAQ 0.20%), after 0.18%
 * in 2024–2025 (Securities Transaction Tax Act, 2025 amendment). Buys are not taxed.
 */
export const KRX_SELL_TAX_BPS = 20;
/** Default brokerage fee per side, in basis points (a typical online rate, 0.015%). */
export const DEFAULT_FEE_BPS = 1.5;
/** Money the portfolio starts with (KRW). */
export const DEFAULT_CAPITAL = 100_000_000;
/** Most stocks a rebalance may hold. */
export const MAX_TOP = 500;
/** Largest cost rate accepted, in basis points (10%). */
export const MAX_BPS = 1000;

const date = z.string({ error: 'must be a date YYYY-MM-DD' }).regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date YYYY-MM-DD, e.g. 2025-01-02' });
const bps = (fallback: number, what: string) =>
  z.number({ error: 'must be a number of basis points' }).min(0, { error: 'must be ≥ 0' }).max(MAX_BPS, { error: `must be at most ${MAX_BPS}` }).default(fallback).describe(what);

/** Body of POST /screen/backtest; cross-field rules (one screen source, from < to, the loaded range) are checked by the service. */
export const BacktestRequest = z
  .strictObject({
    query: z.record(z.string().max(100), z.unknown(), { error: 'must be a screening request object (shape A or B)' })
      .refine((q) => Object.keys(q).length <= MAX_PRESET_QUERY_KEYS, { error: `must have at most ${MAX_PRESET_QUERY_KEYS} keys` })
      .meta({ maxProperties: MAX_PRESET_QUERY_KEYS })
      .optional()
      .describe('A screening request (either shape; no as_of: the rebalance dates set it). Give exactly one of query, preset_id, template.'),
    preset_id: z.string().min(1).max(100).optional().describe('One of your saved presets.'),
    template: z.string().regex(/^[a-z0-9-]{1,64}$/, { error: 'must be a template id such as value' }).optional().describe('A predefined screen (GET /screen/templates).'),
    market: z.enum(['KOSPI', 'KOSDAQ', 'ALL'], { error: 'must be KOSPI, KOSDAQ or ALL' }).optional().describe('With template: override its market.'),
    from: date.describe('First rebalance date (the last trading day on or before it).'),
    to: date.optional().describe('Last valuation date (default: the last loaded date).'),
    rebalance: z.enum(REBALANCE_PERIODS, { error: 'must be weekly, monthly or quarterly' }).default('monthly'),
    top: z.union([z.int({ error: 'must be an integer' }).min(1, { error: 'must be at least 1' }).max(MAX_TOP, { error: `must be at most ${MAX_TOP}` }), z.literal('all')], { error: `must be an integer 1–${MAX_TOP} or "all"` })
      .default(20).describe('Hold the first N by the screen\'s sort, or "all" members.'),
    weighting: z.enum(WEIGHTINGS, { error: 'must be equal or market_cap' }).default('equal'),
    fee_bps: bps(DEFAULT_FEE_BPS, 'Brokerage fee per side, basis points (default 1.5 = 0.015%).'),
    tax_bps: bps(KRX_SELL_TAX_BPS, 'Tax on sells, basis points (default 20 = 0.20%, the KRX securities transaction tax since 2026).'),
    slippage_bps: bps(0, 'Price slippage per fill, basis points (buys above, sells below the open).'),
    benchmark: z.enum(MARKETS, { error: 'must be KOSPI or KOSDAQ' }).default('KOSPI'),
    capital: z.number({ error: 'must be a number' }).min(1e5, { error: 'must be at least 100,000' }).max(1e13, { error: 'must be at most 10,000,000,000,000' }).default(DEFAULT_CAPITAL),
  })
  .meta({ id: 'BacktestRequest', example: { template: 'value', from: '2025-01-02', rebalance: 'monthly', top: 20 } });

/** A validated body (defaults filled in). */
export type BacktestRequest = z.output<typeof BacktestRequest>;

const ratio = (description: string) => z.number().nullable().meta({ description });

/** One point of the equity curve (values at the day's close). */
export const BacktestCurvePoint = z.object({
  date: z.string().meta({ description: 'Trading date (YYYY-MM-DD)' }),
  equity: z.number().meta({ description: 'Portfolio value at the close, KRW (cash + holdings; halted/delisted at their last close)' }),
  benchmark: z.number().nullable().meta({ description: 'The benchmark index scaled to the starting capital, KRW; null without index data' }),
}).meta({ id: 'BacktestCurvePoint' });
export type BacktestCurvePoint = z.output<typeof BacktestCurvePoint>;

/** One trade. `price` is the execution price (open ± slippage). */
export const BacktestTrade = z.object({
  date: z.string(), code: z.string(), side: z.enum(['buy', 'sell']),
  shares: z.number().int(), price: z.number().meta({ description: 'Execution price: the open ± slippage (a delisting: the last close)' }),
  fee: z.number().meta({ description: 'Brokerage fee, KRW' }), tax: z.number().meta({ description: 'Transaction tax (sells), KRW' }),
  reason: z.literal('delisted').optional().meta({ description: 'Set on the forced sale of a delisted stock' }),
}).meta({ id: 'BacktestTrade' });
export type BacktestTrade = z.output<typeof BacktestTrade>;

/** One holding of one rebalance period. Prices are market prices (opens; closes at the end), before slippage. */
export const BacktestHolding = z.object({
  code: z.string(), name: z.string(), shares: z.number().int(),
  entry_price: z.number().meta({ description: 'Market price at the period start (the trade day open; last close when halted)' }),
  exit_price: z.number().nullable().meta({ description: 'Market price at the period end (next trade day open, the last close at `to`, or the delisting price)' }),
  exit_date: z.string().nullable(), return_pct: z.number().nullable().meta({ description: 'exit / entry − 1, percent' }),
});
export type BacktestHolding = z.output<typeof BacktestHolding>;

/** One rebalance: the screen's date, the trading day, what was held until the next. */
export const BacktestRebalance = z.object({
  signal_date: z.string().meta({ description: 'The as-of date of the screen' }),
  trade_date: z.string().meta({ description: 'The next trading day: trades at its open' }),
  selected: z.number().int().meta({ description: 'Stocks the screen selected (after top)' }),
  skipped: z.array(z.object({ code: z.string(), reason: z.enum(['halted', 'limit_up', 'limit_down']) })).meta({ description: 'Orders not filled: halted, opened at the upper limit (buy) or lower limit (sell)' }),
  turnover: z.number().meta({ description: 'One-way turnover of this rebalance: (bought + sold) / 2 / value at the open' }),
  holdings: z.array(BacktestHolding),
}).meta({ id: 'BacktestRebalance' });
export type BacktestRebalance = z.output<typeof BacktestRebalance>;

/** Summary figures (ratios, not percent). Null where undefined (e.g. one day of curve). */
export const BacktestStats = z.object({
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
export type BacktestStats = z.output<typeof BacktestStats>;

/** The trading rules of a run (amounts KRW, rates in basis points; `risk_free_rate`: annual, for the Sharpe ratio, e.g. 0.03). */
export const BacktestRules = z.object({
  rebalance: z.enum(REBALANCE_PERIODS), top: z.number().int().nullable().meta({ description: 'null: every member' }),
  weighting: z.enum(WEIGHTINGS), fee_bps: z.number(), tax_bps: z.number(), slippage_bps: z.number(),
  benchmark: z.enum(MARKETS), capital: z.number(), risk_free_rate: z.number(),
});
export type BacktestRules = z.output<typeof BacktestRules>;

/** A completed run's result. */
export const BacktestResult = z.object({
  from: z.string().meta({ description: 'First signal date used (trading day)' }), to: z.string(), rules: BacktestRules,
  stats: BacktestStats.nullable().meta({ description: 'null when nothing was ever held (see message)' }),
  message: z.string().optional(), curve: z.array(BacktestCurvePoint), rebalances: z.array(BacktestRebalance), trades: z.array(BacktestTrade),
}).meta({ id: 'BacktestResult' });
export type BacktestResult = z.output<typeof BacktestResult>;

/** A run as stored: status, progress, the request, the result once completed. */
export const BacktestRun = z.object({
  id: z.string(),
  status: z.enum(BACKTEST_STATUSES).meta({
    description: 'queued: waiting for a worker; running: done/total rebalance dates screened; completed: result set; failed: error says why; cancelled: by its owner',
  }),
  phase: z.enum(BACKTEST_PHASES).nullable().meta({
    description: 'What an active run is doing, from the first second: queued (waiting for a worker, or for the history to be read before its dates are known: total 0), ' +
      'reading_history (the market history is read into memory: the first run after a start or a load), building_series (the indicator series the screen reads are built over the whole history, ' +
      'once per data version), screening (rebalance dates one after another: done/total). null once the run ended',
  }),
  done: z.number().int().meta({ description: 'Rebalance dates screened so far (0 while queued; from 0 again when another daemon takes the run over)' }),
  total: z.number().int().meta({ description: 'Rebalance dates of the run (0 while a run accepted before the history was read waits for it)' }),
  request: z.record(z.string(), z.unknown()),
  result: BacktestResult.nullable().meta({ description: 'Set once completed (null in lists)' }),
  error: z.string().nullable(),
  created_at: z.string(), finished_at: z.string().nullable(),
}).meta({ id: 'BacktestRun' });
export type BacktestRun = z.output<typeof BacktestRun>;
