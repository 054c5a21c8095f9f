/**
 * A backtest run over the market's history: at each signal day the screen runs as
 * of that day (`select`), the portfolio trades toward it at the next trading day's open, and
 * it is valued at every close through `to`. A held stock whose data ends before the market's
 * (delisted) is sold at its last close on its last day. Pure apart from awaiting `select`.
 */
import { closeThrough, delistedAfter, type MarketHistory } from '../history/market-history.js';
import { signalDays } from './calendar.js';
import { computeStats } from './metrics.js';
import { Portfolio } from './portfolio.js';
import type { BacktestResult, BacktestRules, CurvePoint, PeriodHolding, RebalanceRecord, Selected } from './types.js';

/** What a simulation needs. */
export interface SimulationInput {
  history: MarketHistory;
  /** Date indices of the first signal and the last valuation day. */
  fromDay: number;
  toDay: number;
  rules: BacktestRules;
  /** The screen's members as of date index `day`, best first (already cut to `top`). */
  select(day: number): Promise<Selected[]>;
  /** After each signal's screen: (done, total) signals. */
  onProgress?(done: number, total: number): void | Promise<void>;
}

/** The benchmark index's close on every date (carried forward over gaps), or null before it starts. */
function benchmarkCloses(history: MarketHistory, market: BacktestRules['benchmark']): (number | null)[] {
  const byDate = new Map(history.index[market].map((b) => [b.trade_date, b.close]));
  let last: number | null = null;
  return history.dates.map((d) => (last = byDate.get(d) ?? last));
}

/** Run the simulation. */
export async function simulate(input: SimulationInput): Promise<BacktestResult> {
  const { history, fromDay, toDay, rules } = input;
  const signals = new Set(signalDays(history.dates, fromDay, toDay, rules.rebalance));
  const bench = benchmarkCloses(history, rules.benchmark);
  const bench0 = bench[fromDay] ?? null;
  const book = new Portfolio(history, rules);
  const curve: CurvePoint[] = [];
  const rebalances: RebalanceRecord[] = [];
  let pending: { day: number; targets: Selected[] } | null = null;
  let everSelected = false;
  let done = 0;
  for (let d = fromDay; d <= toDay; d++) {
    if (pending) {
      closePeriod(rebalances.at(-1), book, d, history);
      rebalances.push(openPeriod(book, d, pending, history));
      pending = null;
    }
    sellDelisted(book, d, history, rebalances.at(-1));
    const benchValue = bench0 && bench[d] ? (rules.capital * (bench[d] ?? 0)) / bench0 : null;
    curve.push({ date: history.dates[d] ?? '', equity: d === fromDay ? rules.capital : book.valueAt(d), benchmark: benchValue });
    if (signals.has(d) && d < toDay) {
      const targets = await input.select(d);
      everSelected ||= targets.length > 0;
      pending = { day: d, targets };
      await input.onProgress?.(++done, signals.size);
    }
  }
  finalPeriod(rebalances.at(-1), toDay, history);
  const result: BacktestResult = {
    from: history.dates[fromDay] ?? '', to: history.dates[toDay] ?? '', rules, curve, rebalances, trades: book.trades,
    stats: everSelected ? computeStats(curve, rebalances, rules.risk_free_rate) : null,
  };
  if (!everSelected) result.message = 'The screen selected no stock on any rebalance date in this range: there was nothing to hold (no data for this universe then?).';
  return result;
}

function openPeriod(book: Portfolio, day: number, pending: { day: number; targets: Selected[] }, history: MarketHistory): RebalanceRecord {
  const { turnover, skipped } = book.rebalance(day, pending.targets);
  const holdings: PeriodHolding[] = [...book.positions.values()].map((p) => ({
    code: p.stock.record.code, name: p.stock.record.name, shares: p.shares,
    entry_price: book.quote(p.stock, day).mark, exit_price: null, exit_date: null, return_pct: null,
  }));
  return { signal_date: history.dates[pending.day] ?? '', trade_date: history.dates[day] ?? '', selected: pending.targets.length, skipped, turnover, holdings };
}

/** Exit prices of the open holdings of `period`: the marks at `day`'s open (the next rebalance). */
function closePeriod(period: RebalanceRecord | undefined, book: Portfolio, day: number, history: MarketHistory): void {
  for (const h of period?.holdings ?? []) {
    const stock = history.byCode.get(h.code);
    if (h.exit_price !== null || !stock) continue;
    exit(h, book.quote(stock, day).mark, history.dates[day] ?? '');
  }
}

function finalPeriod(period: RebalanceRecord | undefined, day: number, history: MarketHistory): void {
  for (const h of period?.holdings ?? []) {
    const stock = history.byCode.get(h.code);
    if (h.exit_price === null && stock) exit(h, closeThrough(stock, day) ?? h.entry_price, history.dates[day] ?? '');
  }
}

function exit(h: PeriodHolding, price: number, date: string): void {
  h.exit_price = price;
  h.exit_date = date;
  h.return_pct = h.entry_price > 0 ? (price / h.entry_price - 1) * 100 : null;
}

/** Sell, at its last close, every position whose stock's data ends on `day` (delisted after it). */
function sellDelisted(book: Portfolio, day: number, history: MarketHistory, period: RebalanceRecord | undefined): void {
  for (const p of [...book.positions.values()]) {
    if (delistedAfter(history, p.stock) !== day) continue;
    const price = closeThrough(p.stock, day) ?? 0;
    book.liquidate(day, p, price, 'delisted');
    const h = period?.holdings.find((x) => x.code === p.stock.record.code && x.exit_price === null);
    if (h) exit(h, price, history.dates[day] ?? '');
  }
}
