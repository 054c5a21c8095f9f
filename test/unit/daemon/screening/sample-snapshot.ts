/**
 * The sample market (the real KOSPI/KOSDAQ listing with generated prices and statements) as a
 * screening snapshot: every registry indicator at its last trading day, computed by the
 * daemon's own code from the generated bars, halts, statements and index series. Its columns
 * hold what a real market holds: nulls (young stocks, banks without some statements), many
 * ties (integer scores, flags, prices on the tick grid), zeros and negative values.
 */
import { buildAsOfSnapshot } from '../../../../daemon/history/as-of-snapshot.js';
import { createHistoryBuilder } from '../../../../daemon/history/history-loader.js';
import type { DailyBar, FinancialQuarter, HaltRecord, IndexBar } from '../../../../daemon/kernel/records.js';
import type { Snapshot } from '../../../../daemon/screening/engine/snapshot.js';
import { createSampleMarket } from '../../../../loaders/sample-market.js';

/** The snapshot of a sample market of `stocks` issues (the largest listed) over `days` trading days. */
export async function sampleSnapshot(stocks: number, days: number, seed = 42): Promise<Snapshot> {
  const market = createSampleMarket({ seed, stocks, days });
  const bars: DailyBar[] = [];
  const halts: HaltRecord[] = [];
  const financials = new Map<string, FinancialQuarter[]>();
  const index: IndexBar[] = [];
  for (const chunk of market.chunks()) {
    for (const b of chunk.bars) bars.push(b);
    halts.push(...chunk.halts);
    index.push(...chunk.index);
    for (const q of chunk.financials) financials.set(q.stock_code, [...(financials.get(q.stock_code) ?? []), q]);
  }
  bars.sort((a, b) => (a.trade_date < b.trade_date ? -1 : a.trade_date > b.trade_date ? 1 : 0));
  const builder = createHistoryBuilder(market.stocks, [...bars.map((b) => b.trade_date), ...halts.map((h) => h.trade_date)]);
  builder.addBars(bars);
  const history = builder.finish(`sample-${seed}`, halts, financials, {
    KOSPI: index.filter((b) => b.market === 'KOSPI'), KOSDAQ: index.filter((b) => b.market === 'KOSDAQ'),
  });
  return buildAsOfSnapshot(history, history.dates.length - 1, async () => {});
}
