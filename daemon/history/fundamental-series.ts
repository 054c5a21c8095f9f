/**
 * Per-bar series of the statement-based indicators and the price side: market cap,
 * shares, turnover, valuation, profitability, growth, Piotroski and Altman, on each day the stock
 * traded (not halted), from the statements known on that day. The statement side is computed
 * once per disclosure (the financial view, profitability, growth, scores, valuationBasis); each
 * day then only combines it with its close, shares and cap (valuationFrom), with the same
 * functions the daily computation calls (compute.ts priceSide, fundamentals.ts), so values are
 * equal. Values are NaN where the daily computation gives null.
 */
import { priceSide } from '../indicators/compute.js';
import { createFinancialView } from '../indicators/financials.js';
import { growthIndicators, profitabilityIndicators, valuationBasis, valuationFrom } from '../indicators/fundamentals.js';
import type { IndicatorPatch } from '../indicators/registry.js';
import { VALUATION_INDICATORS, PROFITABILITY_INDICATORS, GROWTH_INDICATORS } from '../indicators/registry-fundamental.js';
import { altmanZ, piotroskiFScore } from '../indicators/scores.js';
import { num, type Bars } from '../indicators/kernel.js';
import { statementsKnownOn, type StockHistory } from './market-history.js';

/** The fields this group fills. */
export const FUNDAMENTAL_FIELDS: readonly string[] = [
  'market_cap', 'shares_outstanding', 'turnover',
  ...VALUATION_INDICATORS.map((d) => d.id), ...PROFITABILITY_INDICATORS.map((d) => d.id), ...GROWTH_INDICATORS.map((d) => d.id),
  'piotroski_f_score', 'altman_z',
];

const VALUATION_IDS: ReadonlySet<string> = new Set(VALUATION_INDICATORS.map((d) => d.id));

/** The statement side of one disclosure epoch. */
interface Epoch {
  known: number;
  financials: ReturnType<typeof statementsKnownOn>;
  basis: ReturnType<typeof valuationBasis>;
  fixed: IndicatorPatch;
}

function epochOf(stock: StockHistory, date: string, known: number): Epoch {
  const financials = statementsKnownOn(stock, date);
  const view = createFinancialView(financials);
  return {
    known, financials, basis: valuationBasis(view),
    fixed: { ...profitabilityIndicators(view), ...growthIndicators(view), piotroski_f_score: piotroskiFScore(view), altman_z: altmanZ(view) },
  };
}

/** Fill the wanted fundamental fields of every bar of `stock` (b: its bars). */
export function fundamentalSeries(stock: StockHistory, b: Bars, out: ReadonlyMap<string, Float64Array>): void {
  const wanted = FUNDAMENTAL_FIELDS.filter((f) => out.has(f));
  if (wanted.length === 0) return;
  const wantsValuation = wanted.some((f) => VALUATION_IDS.has(f));
  let epoch: Epoch | undefined;
  for (let e = 0; e < b.close.length; e++) {
    const date = b.dates[e] ?? '';
    let known = epoch?.known ?? 0;
    while (known < stock.statements.length && (stock.statements[known]?.known_on ?? '') <= date) known++;
    if (!epoch || epoch.known !== known) epoch = epochOf(stock, date, known);
    const cap = stock.cap[e] as number;
    const barShares = stock.shares[e] as number;
    const lastBar = {
      close_price: b.close[e] as number,
      market_cap: Number.isNaN(cap) ? null : cap,
      shares_outstanding: Number.isNaN(barShares) ? null : barShares,
    };
    const side = priceSide({
      halted: false, last_close: null, market_cap: null, financials: epoch.financials,
      shares_outstanding: lastBar.shares_outstanding ?? stock.record.shares_outstanding,
    }, lastBar);
    const volume = b.volume[e] as number;
    // No object spreads: this runs for every bar of every stock.
    const valuation = wantsValuation ? valuationFrom(epoch.basis, side) : undefined;
    for (const f of wanted) {
      const a = out.get(f) as Float64Array;
      let v: number | null | undefined;
      if (f === 'market_cap') v = side.marketCap;
      else if (f === 'shares_outstanding') v = side.shares;
      else if (f === 'turnover') v = side.shares != null ? (volume / side.shares) * 100 : null;
      else if (f in epoch.fixed) v = epoch.fixed[f as keyof IndicatorPatch];
      else v = valuation?.[f as keyof IndicatorPatch];
      a[e] = num(v);
    }
  }
}
