/**
 * A sample market read into a MarketHistory for the as-of tests, as the history loader reads the
 * store (createHistoryBuilder), with a halt day and a gap day.
 */
import { expect } from 'vitest';
import { valueAt, type Snapshot } from '../../../../daemon/screening/engine/snapshot.js';
import { createHistoryBuilder } from '../../../../daemon/history/history-loader.js';
import type { MarketHistory } from '../../../../daemon/history/market-history.js';
import type { DailyBar, FinancialQuarter, HaltRecord, IndexBar } from '../../../../daemon/kernel/records.js';
import { createSampleMarket } from '../../../../loaders/sample-market.js';

/**
 * A small sample market read into a MarketHistory, as the loader reads the store. Its first
 * stock is halted on `haltDay` (a halt record instead of its bar) and its second has no bar on
 * `haltDay + 1` (a gap), so both kinds of cells the series take from the daily code occur.
 */
export function sampleHistory(stocks: number, days: number, haltDay: number): MarketHistory {
  const market = createSampleMarket({ seed: 11, stocks, days });
  const bars: DailyBar[] = [];
  const halts: HaltRecord[] = [];
  const financials = new Map<string, FinancialQuarter[]>();
  const index: IndexBar[] = [];
  for (const chunk of market.chunks()) {
    bars.push(...chunk.bars);
    halts.push(...chunk.halts);
    index.push(...chunk.index);
    for (const q of chunk.financials) financials.set(q.stock_code, [...(financials.get(q.stock_code) ?? []), q]);
  }
  const [first, second] = market.stocks;
  const haltDate = market.tradeDates[haltDay] ?? '';
  const gapDate = market.tradeDates[haltDay + 1] ?? '';
  const haltBar = bars.find((b) => b.stock_code === first?.code && b.trade_date === haltDate);
  if (haltBar) halts.push({ stock_code: haltBar.stock_code, trade_date: haltDate, last_close: haltBar.close_price, market_cap: null, shares_outstanding: null });
  const kept = bars.filter((b) => b !== haltBar && !(b.stock_code === second?.code && b.trade_date === gapDate));
  bars.length = 0;
  bars.push(...kept);
  bars.sort((a, b) => (a.trade_date < b.trade_date ? -1 : a.trade_date > b.trade_date ? 1 : 0));
  const builder = createHistoryBuilder(market.stocks, [...bars.map((b) => b.trade_date), ...halts.map((h) => h.trade_date)]);
  builder.addBars(bars);
  return builder.finish('v1', halts, financials, {
    KOSPI: index.filter((b) => b.market === 'KOSPI'), KOSDAQ: index.filter((b) => b.market === 'KOSDAQ'),
  });
}

/** `field` × row cells where two snapshots of the same stocks differ (at most 10 listed). */
export function snapshotDifferences(a: Snapshot, b: Snapshot, fields: readonly string[]): string[] {
  expect(b.codes).toEqual(a.codes);
  const out: string[] = [];
  for (const field of fields) {
    for (let row = 0; row < a.size && out.length < 10; row++) {
      if (!Object.is(valueAt(a, field, row), valueAt(b, field, row))) out.push(`${a.codes[row]} ${field}: ${valueAt(a, field, row)} vs ${valueAt(b, field, row)}`);
    }
  }
  return out;
}
