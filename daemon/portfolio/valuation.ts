/**
 * Valuation of holdings at current prices (pure): per-holding market value, cost,
 * unrealised P&L, day change and weight; portfolio totals; allocation by stock, sector,
 * market and market-cap bucket; best and worst holdings. Percentages are 0–100.
 */
import type { AllocationSlice, Holding, PortfolioTotals, RankedHolding, ValuedHolding as HoldingView } from '../contract/portfolio.js';
import type { Market } from '../kernel/records.js';

/** A holding as stored (what valuation reads of it). */
export type HoldingInput = Omit<Holding, 'created_at' | 'updated_at'>;

/** What valuation needs of the stock. */
export interface StockInfo {
  name: string;
  market: Market;
  sector: string | null;
  shares_outstanding: number | null;
}

/** A current price: live from the feed, else the last close. `change` is against the previous close. */
export interface PriceQuote {
  price: number;
  change: number | null;
  source: 'live' | 'close';
  /** ISO time of a live quote, or the close's trade date. */
  as_of: string;
}

/** The valued holding, totals and allocation slices are wire types (daemon/contract/portfolio.ts). */
export type { AllocationSlice, PortfolioTotals, ValuedHolding as HoldingView } from '../contract/portfolio.js';

/** Market-cap buckets in KRW: large ≥ 10조, mid ≥ 1조, small below, unknown without shares. */
export const CAP_BUCKETS = { large: 10_000_000_000_000, mid: 1_000_000_000_000 } as const;

const pct = (part: number, whole: number) => (whole !== 0 ? (part / whole) * 100 : 0);

/** Value one holding (weight is filled in by `valueHoldings`). */
function valueOne(h: HoldingInput, stock: StockInfo | undefined, quote: PriceQuote | null): HoldingView {
  const cost = h.quantity * h.average_price;
  const price = quote?.price ?? null;
  const value = price === null ? cost : h.quantity * price;
  const change = quote?.change ?? 0;
  const dayChange = price === null ? 0 : h.quantity * change;
  return {
    ...h,
    name: stock?.name ?? null, market: stock?.market ?? null, sector: stock?.sector ?? null,
    current_price: price, price_source: quote?.source ?? null, price_as_of: quote?.as_of ?? null,
    market_value: value, cost, unrealized_pnl: value - cost, unrealized_pnl_percent: pct(value - cost, cost),
    day_change: dayChange, day_change_percent: pct(dayChange, value - dayChange), weight: 0,
    market_cap: price !== null && stock?.shares_outstanding ? stock.shares_outstanding * price : null,
  };
}

/** Value every holding and total them. */
export function valueHoldings(items: readonly { holding: HoldingInput; stock: StockInfo | undefined; quote: PriceQuote | null }[]): { holdings: HoldingView[]; totals: PortfolioTotals } {
  const views = items.map((i) => valueOne(i.holding, i.stock, i.quote));
  const value = views.reduce((s, v) => s + v.market_value, 0);
  const cost = views.reduce((s, v) => s + v.cost, 0);
  const day = views.reduce((s, v) => s + v.day_change, 0);
  for (const v of views) v.weight = pct(v.market_value, value);
  return {
    holdings: views,
    totals: {
      holdings: views.length, market_value: value, cost, unrealized_pnl: value - cost, unrealized_pnl_percent: pct(value - cost, cost),
      day_change: day, day_change_percent: pct(day, value - day),
    },
  };
}

/** The market-cap bucket of a holding. */
export function capBucket(marketCap: number | null): 'large' | 'mid' | 'small' | 'unknown' {
  if (marketCap === null) return 'unknown';
  return marketCap >= CAP_BUCKETS.large ? 'large' : marketCap >= CAP_BUCKETS.mid ? 'mid' : 'small';
}

/** Group holdings by `keyOf`, largest value first. */
export function allocate(views: readonly HoldingView[], keyOf: (v: HoldingView) => string): AllocationSlice[] {
  const total = views.reduce((s, v) => s + v.market_value, 0);
  const slices = new Map<string, AllocationSlice>();
  for (const v of views) {
    const key = keyOf(v);
    const slice = slices.get(key) ?? { key, value: 0, weight: 0, holdings: 0 };
    slice.value += v.market_value;
    slice.holdings += 1;
    slices.set(key, slice);
  }
  const out = [...slices.values()];
  for (const s of out) s.weight = pct(s.value, total);
  return out.sort((a, b) => b.value - a.value || a.key.localeCompare(b.key));
}

/** Allocation by stock, sector, market and market-cap bucket. */
export function allocations(views: readonly HoldingView[]) {
  return {
    by_stock: allocate(views, (v) => v.code),
    by_sector: allocate(views, (v) => v.sector ?? 'Unclassified'),
    by_market: allocate(views, (v) => v.market ?? 'Unknown'),
    by_market_cap: allocate(views, (v) => capBucket(v.market_cap)),
  };
}

/** Best and worst holdings by unrealised P&L percent (up to `n` each). */
export function rankHoldings(views: readonly HoldingView[], n = 3): { best: RankedHolding[]; worst: RankedHolding[] } {
  const brief = (v: HoldingView): RankedHolding => ({ id: v.id, code: v.code, name: v.name, unrealized_pnl: v.unrealized_pnl, unrealized_pnl_percent: v.unrealized_pnl_percent });
  const sorted = [...views].sort((a, b) => b.unrealized_pnl_percent - a.unrealized_pnl_percent || a.code.localeCompare(b.code));
  return { best: sorted.slice(0, n).map(brief), worst: sorted.reverse().slice(0, n).map(brief) };
}
