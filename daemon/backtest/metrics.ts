/**
 * Summary figures of an equity curve. Daily simple returns; volatility is their
 * sample standard deviation × √252; Sharpe = (mean daily return × 252 − risk-free rate) /
 * volatility; CAGR over calendar days (365.25 a year); max drawdown = the largest fall from a
 * running peak, with the peak's and the trough's dates.
 */
import type { BacktestStats, CurvePoint, RebalanceRecord } from './types.js';

/** Trading days a year. */
export const TRADING_DAYS = 252;

/** Max drawdown (a ratio ≥ 0) and the dates of its peak and trough. */
export function maxDrawdown(curve: readonly CurvePoint[]): { depth: number; peak: string | null; trough: string | null } {
  let best = { depth: 0, peak: null as string | null, trough: null as string | null };
  let peak = curve[0];
  for (const p of curve) {
    if (peak === undefined || p.equity > peak.equity) peak = p;
    const depth = peak.equity > 0 ? 1 - p.equity / peak.equity : 0;
    if (depth > best.depth) best = { depth, peak: peak.date, trough: p.date };
  }
  return best;
}

function dailyReturns(curve: readonly CurvePoint[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < curve.length; i++) {
    const prev = curve[i - 1]?.equity ?? 0;
    if (prev > 0) out.push((curve[i]?.equity ?? 0) / prev - 1);
  }
  return out;
}

/** The run's statistics; `riskFree` is an annual rate. */
export function computeStats(curve: readonly CurvePoint[], rebalances: readonly RebalanceRecord[], riskFree: number): BacktestStats {
  const first = curve[0];
  const last = curve[curve.length - 1];
  const start = first?.equity ?? 0;
  const end = last?.equity ?? 0;
  const total = start > 0 ? end / start - 1 : 0;
  const days = first && last ? (Date.parse(last.date) - Date.parse(first.date)) / 86_400_000 : 0;
  const returns = dailyReturns(curve);
  const mean = returns.length ? returns.reduce((a, b) => a + b, 0) / returns.length : 0;
  const variance = returns.length > 1 ? returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (returns.length - 1) : null;
  const volatility = variance === null ? null : Math.sqrt(variance) * Math.sqrt(TRADING_DAYS);
  const dd = maxDrawdown(curve);
  const bench0 = first?.benchmark ?? null;
  const bench1 = last?.benchmark ?? null;
  const benchmark = bench0 && bench1 ? bench1 / bench0 - 1 : null;
  const holdings = rebalances.flatMap((r) => r.holdings).filter((h) => h.return_pct !== null);
  return {
    total_return: total,
    cagr: days > 0 && start > 0 && end > 0 ? (end / start) ** (365.25 / days) - 1 : null,
    volatility,
    sharpe: volatility ? (mean * TRADING_DAYS - riskFree) / volatility : null,
    max_drawdown: dd.depth,
    max_drawdown_peak: dd.peak,
    max_drawdown_trough: dd.trough,
    turnover: rebalances.length ? rebalances.reduce((a, r) => a + r.turnover, 0) / rebalances.length : 0,
    hit_rate: holdings.length ? holdings.filter((h) => (h.return_pct ?? 0) > 0).length / holdings.length : null,
    benchmark_return: benchmark,
    excess_return: benchmark === null ? null : total - benchmark,
    final_equity: end,
  };
}
