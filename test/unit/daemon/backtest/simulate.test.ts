import { describe, expect, it } from 'vitest';
import { simulate } from '../../../../daemon/backtest/simulate.js';
import { signalDays } from '../../../../daemon/backtest/calendar.js';
import type { BacktestRules, Selected } from '../../../../daemon/backtest/types.js';
import { createHistoryBuilder } from '../../../../daemon/history/history-loader.js';
import type { DailyBar, HaltRecord, StockRecord } from '../../../../daemon/kernel/records.js';

// A hand-built market of 5 stocks over 8 trading days (Thu 2025-01-02 … Mon 2025-01-13).
const DATES = ['2025-01-02', '2025-01-03', '2025-01-06', '2025-01-07', '2025-01-08', '2025-01-09', '2025-01-10', '2025-01-13'];
const stock = (code: string): StockRecord => ({
  code, name: `Stock ${code}`, name_english: null, market: 'KOSPI', sector: null, industry: null, listing_date: null,
  shares_outstanding: 1_000_000, board: null, settle_month: 12, is_administrative: false, is_spac: false, is_preferred: false,
});
const bar = (code: string, day: number, open: number, close: number): DailyBar => ({
  stock_code: code, trade_date: DATES[day]!, open_price: open, high_price: Math.max(open, close), low_price: Math.min(open, close),
  close_price: close, volume: 1000, trading_value: 1000 * close, market_cap: null, shares_outstanding: null,
});

function market() {
  const bars: DailyBar[] = [];
  // A rises; its opens are the previous close.
  const aClose = [100, 110, 120, 120, 130, 130, 140, 150];
  aClose.forEach((c, d) => bars.push(bar('00000A', d, d === 0 ? 100 : aClose[d - 1]!, c)));
  // B: flat at 200, halted on day 2.
  for (let d = 0; d < 8; d++) if (d !== 2) bars.push(bar('00000B', d, 200, 200));
  // C: 50, then 55, 60; delisted after day 4.
  [50, 50, 50, 55, 60].forEach((c, d) => bars.push(bar('00000C', d, 50, c)));
  // D: opens at the upper limit on day 1 (previous close 1,000 → limit 1,300).
  bars.push(bar('00000D', 0, 1000, 1000));
  for (let d = 1; d < 8; d++) bars.push(bar('00000D', d, 1300, 1300));
  // E: listed on day 3, flat at 1,000.
  for (let d = 3; d < 8; d++) bars.push(bar('00000E', d, 1000, 1000));
  const halts: HaltRecord[] = [{ stock_code: '00000B', trade_date: DATES[2]!, last_close: 200, market_cap: null, shares_outstanding: null }];
  const index = DATES.map((d, i) => ({ market: 'KOSPI' as const, trade_date: d, open: null, high: null, low: null, close: 100 + i, volume: null, trading_value: null }));
  const builder = createHistoryBuilder(['00000A', '00000B', '00000C', '00000D', '00000E'].map(stock), DATES);
  builder.addBars(bars);
  return builder.finish('v1', halts, new Map(), { KOSPI: index });
}

const RULES: BacktestRules = {
  rebalance: 'weekly', top: null, weighting: 'equal', fee_bps: 10, tax_bps: 20, slippage_bps: 0, benchmark: 'KOSPI', capital: 10_000_000, risk_free_rate: 0,
};

describe('backtest simulation on a hand-built market', () => {
  it('signals on the first day and on the last trading day of each week before the end', () => {
    expect(signalDays(DATES, 0, 7, 'weekly')).toEqual([0, 1, 6]);
    expect(signalDays(DATES, 0, 7, 'monthly')).toEqual([0]);
  });

  it('matches the hand-computed equity curve to the won, fees and tax included', async () => {
    const history = market();
    const picks: Record<number, string[]> = { 0: ['00000A', '00000B', '00000D'], 1: ['00000A', '00000B', '00000C'], 6: ['00000A', '00000E'] };
    const asked: number[] = [];
    const result = await simulate({
      history, fromDay: 0, toDay: 7, rules: RULES,
      select: async (day): Promise<Selected[]> => (asked.push(day), (picks[day] ?? []).map((code) => ({ code, market_cap: null }))),
    });
    expect(asked).toEqual([0, 1, 6]);
    // Worked by hand in daemon/backtest/README.md ("Worked example").
    const expected = [10_000_000, 10_326_340, 10_640_030.12, 10_989_495.12, 11_644_069.38, 11_644_069.38, 11_961_759.38, 12_371_043.26];
    result.curve.forEach((p, i) => expect(p.equity).toBeCloseTo(expected[i]!, 2));
    expect(result.curve.map((p) => p.date)).toEqual(DATES);
    // Day 1: D opened at its upper limit and was not bought; day 2: B halted, held whole.
    expect(result.rebalances[0]!.skipped).toEqual([{ code: '00000D', reason: 'limit_up' }]);
    expect(result.rebalances[0]!.turnover).toBeCloseTo(6_660_000 / 2 / 10_000_000, 10);
    expect(result.rebalances[1]!.holdings.map((h) => [h.code, h.shares])).toEqual([['00000A', 31_769], ['00000B', 16_650], ['00000C', 69_893]]);
    // C delisted after day 4: sold at its last close with fee and tax.
    const delisted = result.trades.find((t) => t.reason === 'delisted')!;
    expect(delisted).toMatchObject({ date: DATES[4], code: '00000C', side: 'sell', shares: 69_893, price: 60 });
    expect(delisted.tax).toBeCloseTo(8_387.16, 2);
    const cHolding = result.rebalances[1]!.holdings.find((h) => h.code === '00000C')!;
    expect(cHolding).toMatchObject({ entry_price: 50, exit_price: 60, exit_date: DATES[4] });
    // No trade ever happens on a signal day itself (next-open execution).
    expect(result.trades.map((t) => t.date)).toEqual(expect.arrayContaining([DATES[1], DATES[2], DATES[7]]));
    for (const t of result.trades) expect([DATES[1], DATES[2], DATES[4], DATES[7]]).toContain(t.date);
    const stats = result.stats!;
    expect(stats.total_return).toBeCloseTo(12_371_043.26 / 10_000_000 - 1, 9);
    expect(stats.benchmark_return).toBeCloseTo(107 / 100 - 1, 9);
    expect(stats.excess_return).toBeCloseTo(stats.total_return - 0.07, 9);
    expect(stats.max_drawdown).toBe(0);
  });

  it('says so when the screen never selects anything, instead of showing zeros', async () => {
    const result = await simulate({ history: market(), fromDay: 0, toDay: 7, rules: RULES, select: async () => [] });
    expect(result.stats).toBeNull();
    expect(result.message).toMatch(/selected no stock/);
  });
});
