/** A small generated market for backtest tests: six KOSPI stocks with deterministic bars on the given trading days. */
import type { Daemon } from '../../daemon/daemon.js';
import type { DailyBar } from '../../daemon/kernel/records.js';

/** The stocks of the generated market. */
export const GENERATED_CODES = ['00000A', '00000B', '00000C', '00000D', '00000E', '00000F'];

/** Deterministic bars of every generated stock on `dates`. */
export function generatedBars(dates: readonly string[]): DailyBar[] {
  return GENERATED_CODES.flatMap((code, i) => dates.map((date, d) => {
    const close = 1000 + i * 100 + ((d * (i + 3)) % 17) * 10;
    return {
      stock_code: code, trade_date: date, open_price: close - 5, high_price: close + 10, low_price: close - 10, close_price: close,
      volume: 10_000 + d, trading_value: (10_000 + d) * close, market_cap: close * 1_000_000, shares_outstanding: 1_000_000,
    };
  }));
}

/**
 * Store the generated market's bars on `dates` through the daemon's own market service, compute
 * the indicators and publish the new data version (the as-of history is then read again on the
 * next as-of request).
 */
export async function applyGeneratedMarket(daemon: Daemon, dates: readonly string[]): Promise<void> {
  const ctx = daemon.context();
  const stocks = GENERATED_CODES.map((code) => ({ code, name: `Stock ${code}`, market: 'KOSPI' as const, settle_month: 12 }));
  await ctx.store.marketData.apply({ stocks, bars: generatedBars(dates), halts: [], financials: [], index: [] });
  const run = await ctx.store.marketData.computeIndicators();
  await ctx.screening.snapshot.refresh(run.version);
}
