/**
 * The vocabulary of backtests: what a run is asked, what it answers. Plain data.
 */
import type { Market } from '../kernel/records.js';

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

/** The trading rules of a run (all amounts KRW, rates in basis points). */
export interface BacktestRules {
  rebalance: RebalancePeriod;
  /** The first N by the screen's sort; null = every member. */
  top: number | null;
  weighting: Weighting;
  fee_bps: number;
  tax_bps: number;
  slippage_bps: number;
  benchmark: Market;
  capital: number;
  /** Annual risk-free rate for the Sharpe ratio (e.g. 0.03). */
  risk_free_rate: number;
}

/** One stock a rebalance selects, in the screen's order. */
export interface Selected {
  code: string;
  market_cap: number | null;
}

/** One point of the equity curve (values at the day's close). */
export interface CurvePoint {
  date: string;
  equity: number;
  benchmark: number | null;
}

/** One trade. `price` is the execution price (open ± slippage). */
export interface Trade {
  date: string;
  code: string;
  side: 'buy' | 'sell';
  shares: number;
  price: number;
  fee: number;
  tax: number;
  /** Why a sell happened outside a rebalance ('delisted'), else absent. */
  reason?: 'delisted';
}

/** One holding of one rebalance period. Prices are market prices (opens; closes at the end), before slippage. */
export interface PeriodHolding {
  code: string;
  name: string;
  shares: number;
  entry_price: number;
  exit_price: number | null;
  exit_date: string | null;
  return_pct: number | null;
}

/** One rebalance: the screen's date, the trading day, what was held until the next. */
export interface RebalanceRecord {
  signal_date: string;
  trade_date: string;
  selected: number;
  /** Codes that could not be bought (halted, at the upper limit) or sold (halted, at the lower limit). */
  skipped: { code: string; reason: 'halted' | 'limit_up' | 'limit_down' }[];
  turnover: number;
  holdings: PeriodHolding[];
}

/** Summary figures (ratios, not percent). Null where undefined (e.g. one day of curve). */
export interface BacktestStats {
  total_return: number;
  cagr: number | null;
  volatility: number | null;
  sharpe: number | null;
  max_drawdown: number;
  max_drawdown_peak: string | null;
  max_drawdown_trough: string | null;
  /** Mean one-way turnover per rebalance. */
  turnover: number;
  /** Share of period holdings that ended above their entry. */
  hit_rate: number | null;
  benchmark_return: number | null;
  excess_return: number | null;
  final_equity: number;
}

/** A run's answer. */
export interface BacktestResult {
  from: string;
  to: string;
  rules: BacktestRules;
  stats: BacktestStats | null;
  /** Set when the run had nothing to hold (e.g. the screen selected no stock on any date). */
  message?: string;
  curve: CurvePoint[];
  rebalances: RebalanceRecord[];
  trades: Trade[];
}
