/**
 * The simulated account of a backtest: cash, whole-share positions, and the trading
 * rules of one execution day. Orders fill at the day's open ± slippage; a stock with no bar
 * that day (halted) is neither bought nor sold and is valued at its last close; KRX price
 * limits (±30% of the previous close, on the tick grid) block buying at the upper limit and
 * selling at the lower limit (a locked market has no counterparty). Fees are charged on both
 * sides, the transaction tax on sells only.
 */
import { priceLimits } from '../kernel/tick-size.js';
import { barOn, closeThrough, type MarketHistory, type StockHistory } from '../history/market-history.js';
import type { BacktestRules, RebalanceRecord, Selected, Trade } from './types.js';

/** One position. */
export interface Position {
  stock: StockHistory;
  shares: number;
}

/** What a tradable quote of one day is. */
interface DayQuote {
  open: number | null;
  mark: number;
  limitUp: boolean;
  limitDown: boolean;
}

/** The account. */
export class Portfolio {
  cash: number;
  readonly positions = new Map<string, Position>();
  readonly trades: Trade[] = [];

  constructor(
    private readonly history: MarketHistory,
    private readonly rules: BacktestRules,
  ) {
    this.cash = rules.capital;
  }

  /** Value at the close of date index `day` (halted and delisted stocks at their last close). */
  valueAt(day: number): number {
    let v = this.cash;
    for (const p of this.positions.values()) v += p.shares * (closeThrough(p.stock, day) ?? 0);
    return v;
  }

  /** The day's open (null when halted), its mark for valuation, and whether it opened locked at a limit. */
  quote(stock: StockHistory, day: number): DayQuote {
    const i = barOn(stock, day);
    const prev = closeThrough(stock, day - 1);
    if (i < 0) return { open: null, mark: closeThrough(stock, day) ?? prev ?? 0, limitUp: false, limitDown: false };
    const open = stock.open[i] ?? 0;
    const limits = prev !== null && prev > 0 ? priceLimits(prev) : null;
    return { open, mark: open, limitUp: limits !== null && open >= limits.upper, limitDown: limits !== null && open <= limits.lower };
  }

  /** Rebuild the portfolio toward `targets` at the open of date index `day`; returns the turnover and what was skipped. */
  rebalance(day: number, targets: readonly Selected[]): Pick<RebalanceRecord, 'turnover' | 'skipped'> {
    const skipped: RebalanceRecord['skipped'] = [];
    const quotes = new Map<string, DayQuote>();
    const quoteOf = (s: StockHistory) => quotes.get(s.record.code) ?? quotes.set(s.record.code, this.quote(s, day)).get(s.record.code)!;
    const total = this.openValue(day, quoteOf);
    // Positions that cannot be sold today stay whole; the rest of the money is allocated.
    let frozen = 0;
    const frozenCodes = new Set<string>();
    for (const [code, p] of this.positions) {
      const q = quoteOf(p.stock);
      if (q.open === null || q.limitDown) {
        frozen += p.shares * q.mark;
        frozenCodes.add(code);
      }
    }
    const desired = this.desiredShares(targets, total - frozen, frozenCodes, quoteOf);
    let traded = 0;
    for (const [code, p] of [...this.positions]) {
      if (frozenCodes.has(code)) {
        if (!desired.has(code)) skipped.push({ code, reason: quoteOf(p.stock).open === null ? 'halted' : 'limit_down' });
        continue;
      }
      const want = desired.get(code) ?? 0;
      if (p.shares > want) traded += this.sell(day, p, p.shares - want, quoteOf(p.stock).open ?? 0);
    }
    for (const t of targets) {
      const stock = this.history.byCode.get(t.code);
      if (!stock || frozenCodes.has(t.code)) continue;
      const q = quoteOf(stock);
      const have = this.positions.get(t.code)?.shares ?? 0;
      const want = desired.get(t.code) ?? 0;
      if (want <= have) continue;
      if (q.open === null || q.limitUp) {
        skipped.push({ code: t.code, reason: q.open === null ? 'halted' : 'limit_up' });
        continue;
      }
      traded += this.buy(day, stock, want - have, q.open);
    }
    return { turnover: total > 0 ? traded / 2 / total : 0, skipped };
  }

  /** Sell every share of `p` at `price` (a delisting: the last price), recording `reason`. */
  liquidate(day: number, p: Position, price: number, reason?: 'delisted'): void {
    this.sell(day, p, p.shares, price, reason, false);
  }

  private openValue(day: number, quoteOf: (s: StockHistory) => DayQuote): number {
    let v = this.cash;
    for (const p of this.positions.values()) v += p.shares * quoteOf(p.stock).mark;
    return v;
  }

  /** Whole shares each target should hold: its weight of `money` at the buy price with costs. */
  private desiredShares(targets: readonly Selected[], money: number, frozen: ReadonlySet<string>, quoteOf: (s: StockHistory) => DayQuote): Map<string, number> {
    const out = new Map<string, number>();
    const live = targets.filter((t) => !frozen.has(t.code) && this.history.byCode.has(t.code));
    const weights = this.weights(live);
    const buyCost = 1 + this.rules.slippage_bps / 1e4;
    const fee = 1 + this.rules.fee_bps / 1e4;
    live.forEach((t, i) => {
      const q = quoteOf(this.history.byCode.get(t.code)!);
      const price = (q.open ?? q.mark) * buyCost * fee;
      out.set(t.code, price > 0 ? Math.floor((money * (weights[i] ?? 0)) / price) : 0);
    });
    return out;
  }

  private weights(targets: readonly Selected[]): number[] {
    if (targets.length === 0) return [];
    if (this.rules.weighting === 'equal') return targets.map(() => 1 / targets.length);
    const caps = targets.map((t) => (t.market_cap != null && t.market_cap > 0 ? t.market_cap : 0));
    const sum = caps.reduce((a, b) => a + b, 0);
    return sum > 0 ? caps.map((c) => c / sum) : targets.map(() => 1 / targets.length);
  }

  private sell(day: number, p: Position, shares: number, open: number, reason?: 'delisted', slip = true): number {
    const price = slip ? open * (1 - this.rules.slippage_bps / 1e4) : open;
    const gross = shares * price;
    const fee = (gross * this.rules.fee_bps) / 1e4;
    const tax = (gross * this.rules.tax_bps) / 1e4;
    this.cash += gross - fee - tax;
    p.shares -= shares;
    if (p.shares === 0) this.positions.delete(p.stock.record.code);
    this.trades.push({ date: this.history.dates[day] ?? '', code: p.stock.record.code, side: 'sell', shares, price, fee, tax, ...(reason ? { reason } : {}) });
    return gross;
  }

  private buy(day: number, stock: StockHistory, shares: number, open: number): number {
    const price = open * (1 + this.rules.slippage_bps / 1e4);
    const perShare = price * (1 + this.rules.fee_bps / 1e4);
    const qty = Math.min(shares, Math.floor(this.cash / perShare));
    if (qty <= 0) return 0;
    const gross = qty * price;
    const fee = (gross * this.rules.fee_bps) / 1e4;
    this.cash -= gross + fee;
    const p = this.positions.get(stock.record.code);
    if (p) p.shares += qty;
    else this.positions.set(stock.record.code, { stock, shares: qty });
    this.trades.push({ date: this.history.dates[day] ?? '', code: stock.record.code, side: 'buy', shares: qty, price, fee, tax: 0 });
    return gross;
  }
}
