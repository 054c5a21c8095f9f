/**
 * Valuation, profitability and growth indicators from quarterly statements
 * (TTM = last four consecutive quarters) and the latest price.
 */
import { currentRatio, debtRatio, equityRatio, marginPercent } from './balance-sheet.js';
import { averageWithYearAgo, balanceSheetAt, type FinancialView } from './financials.js';
import type { IndicatorPatch } from './registry.js';
import { safeDiv } from './series.js';

/** Price-side inputs of the valuation ratios. */
export interface PriceContext {
  close: number | null;
  marketCap: number | null;
  /** Shares outstanding, > 0 or null. */
  shares: number | null;
}

/** x when it is a number > 0, else null (denominators that must be positive). */
export function positive(x: number | null | undefined): number | null {
  return x != null && x > 0 ? x : null;
}

/** (current − base) / base × 100; null when either is missing or base ≤ 0. */
export function growthPercent(current: number | null, base: number | null): number | null {
  if (current == null || base == null || base <= 0) return null;
  return ((current - base) / base) * 100;
}

/** a / b × 100 with the same null rules as safeDiv. */
function percent(a: number | null, b: number | null): number | null {
  const r = safeDiv(a, b);
  return r == null ? null : r * 100;
}

/**
 * Enterprise value: market cap + long-term debt − cash of the latest quarter (a
 * missing debt or cash figure counts as 0); null without any statement.
 */
export function enterpriseValue(view: FinancialView, marketCap: number | null): number | null {
  if (marketCap == null || !view.hasData) return null;
  return marketCap + (view.at('long_term_debt') ?? 0) - (view.at('cash') ?? 0);
}

/** Capital employed: total assets − current liabilities, else equity + long-term debt. */
export function capitalEmployed(view: FinancialView): number | null {
  const assets = view.at('total_assets');
  const currentLiabilities = view.at('current_liabilities');
  if (assets != null && currentLiabilities != null) return assets - currentLiabilities;
  const equity = view.at('equity');
  return equity == null ? null : equity + (view.at('long_term_debt') ?? 0);
}

/** What the valuation ratios take from the statements (constant between two disclosures). */
export interface ValuationBasis {
  hasData: boolean;
  netProfit: number | null;
  operatingProfit: number | null;
  equity: number | null;
  revenue: number | null;
  npGrowth: number | null;
  longTermDebt: number | null;
  cash: number | null;
  dps: number | null;
}

/** The statement side of valuationIndicators (as-of series compute it once per disclosure). */
export function valuationBasis(view: FinancialView): ValuationBasis {
  const netProfit = view.ttm('net_profit');
  return {
    hasData: view.hasData,
    netProfit,
    operatingProfit: view.ttm('operating_profit'),
    equity: view.at('equity'),
    revenue: view.ttm('revenue'),
    npGrowth: growthPercent(netProfit, view.ttm('net_profit', 4)),
    longTermDebt: view.at('long_term_debt'),
    cash: view.at('cash'),
    dps: view.ttmSparse('dividends_per_share'),
  };
}

/** per, pbr, psr, por, earnings_yield, eps, bps, graham_ratio, peg, dividend_yield, enterprise_value, ev_ebit. */
export function valuationIndicators(view: FinancialView, price: PriceContext): IndicatorPatch {
  return valuationFrom(valuationBasis(view), price);
}

/** valuationIndicators from a basis and the day's price side. */
export function valuationFrom(b: ValuationBasis, price: PriceContext): IndicatorPatch {
  const cap = positive(price.marketCap);
  const shares = positive(price.shares);
  const { netProfit, operatingProfit, equity } = b;
  const eps = safeDiv(netProfit, shares);
  const bps = safeDiv(equity, shares);
  const per = safeDiv(cap, positive(netProfit));
  // enterpriseValue() with the basis' figures: cap + long-term debt − cash.
  const ev = cap == null || !b.hasData ? null : cap + (b.longTermDebt ?? 0) - (b.cash ?? 0);
  const grahamBase = eps != null && bps != null && eps > 0 && bps > 0 ? Math.sqrt(22.5 * eps * bps) : null;
  return {
    per,
    pbr: safeDiv(cap, positive(equity)),
    psr: safeDiv(cap, positive(b.revenue)),
    por: safeDiv(cap, positive(operatingProfit)),
    earnings_yield: percent(netProfit, cap),
    eps,
    bps,
    graham_ratio: safeDiv(price.close, grahamBase),
    peg: safeDiv(per, positive(b.npGrowth)),
    dividend_yield: percent(b.dps, positive(price.close)),
    enterprise_value: ev,
    ev_ebit: safeDiv(positive(ev), positive(operatingProfit)),
  };
}

/** roe, roa, margins, asset_turnover, debt/equity/current ratios, return_on_capital. */
export function profitabilityIndicators(view: FinancialView): IndicatorPatch {
  const revenue = positive(view.ttm('revenue'));
  const netProfit = view.ttm('net_profit');
  const avgAssets = positive(averageWithYearAgo(view, 'total_assets'));
  const sheet = balanceSheetAt(view);
  return {
    roe: percent(netProfit, positive(averageWithYearAgo(view, 'equity'))),
    roa: percent(netProfit, avgAssets),
    operating_margin: marginPercent(view.ttm('operating_profit'), revenue),
    net_margin: marginPercent(netProfit, revenue),
    gross_margin: marginPercent(view.ttm('gross_profit'), revenue),
    asset_turnover: safeDiv(revenue, avgAssets),
    debt_ratio: debtRatio(sheet),
    equity_ratio: equityRatio(sheet),
    current_ratio: currentRatio(sheet),
    return_on_capital: percent(view.ttm('operating_profit'), positive(capitalEmployed(view))),
  };
}

/** YoY growth of TTM revenue / operating profit / net profit, QoQ revenue growth, turnaround. */
export function growthIndicators(view: FinancialView): IndicatorPatch {
  const opNow = view.at('operating_profit', 0);
  const opYearAgo = view.at('operating_profit', 4);
  return {
    revenue_growth_yoy: growthPercent(view.ttm('revenue'), view.ttm('revenue', 4)),
    operating_profit_growth_yoy: growthPercent(view.ttm('operating_profit'), view.ttm('operating_profit', 4)),
    net_profit_growth_yoy: growthPercent(view.ttm('net_profit'), view.ttm('net_profit', 4)),
    revenue_growth_qoq: growthPercent(view.at('revenue', 0), view.at('revenue', 1)),
    turnaround: opNow == null || opYearAgo == null ? null : opNow > 0 && opYearAgo < 0 ? 1 : 0,
  };
}
