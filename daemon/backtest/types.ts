/**
 * The vocabulary of backtests: what a run is asked, what it answers. Plain data. What a run
 * answers is the wire's (daemon/contract/backtests.ts): the engine produces those types.
 */
import type {
  BacktestCurvePoint, BacktestHolding, BacktestRebalance, BacktestResult, BacktestRules, BacktestStats, BacktestTrade,
} from '../contract/backtests.js';

export {
  DEFAULT_CAPITAL, DEFAULT_FEE_BPS, KRX_SELL_TAX_BPS, REBALANCE_PERIODS, WEIGHTINGS, type RebalancePeriod, type Weighting,
} from '../contract/backtests.js';

/** The trading rules of a run (all amounts KRW, rates in basis points). */
export type { BacktestRules, BacktestStats, BacktestResult };

/** One stock a rebalance selects, in the screen's order. */
export interface Selected {
  code: string;
  market_cap: number | null;
}

/** One point of the equity curve (values at the day's close). */
export type CurvePoint = BacktestCurvePoint;
/** One trade. `price` is the execution price (open ± slippage); `reason` says why a sell happened outside a rebalance ('delisted'). */
export type Trade = BacktestTrade;
/** One holding of one rebalance period. Prices are market prices (opens; closes at the end), before slippage. */
export type PeriodHolding = BacktestHolding;
/** One rebalance: the screen's date, the trading day, what was held until the next. */
export type RebalanceRecord = BacktestRebalance;
