import { describe, expect, it } from 'vitest';
import { holdingsView, holdingTsv, PERFORMANCE_COLUMNS, performanceRecord, performanceSummary } from '../../../../../cli/services/portfolio/portfolio-rows.js';
import type { Performance, PortfolioOverview } from '../../../../../daemon/contract/portfolio.js';

const overview: PortfolioOverview = {
  holdings: [
    {
      id: 'h1', code: '005930', name: '삼성전자', market: 'KOSPI', sector: 'IT', quantity: 10, average_price: 70_000, current_price: 72_000, price_source: 'live',
      price_as_of: null, market_value: 720_000, cost: 700_000, unrealized_pnl: 20_000, unrealized_pnl_percent: 2.857142857, day_change: -5000, day_change_percent: -0.69,
      weight: 60, market_cap: null, acquired_at: '2025-01-02', note: null,
    },
  ],
  totals: { holdings: 1, market_value: 720_000, cost: 700_000, unrealized_pnl: 20_000, unrealized_pnl_percent: 2.857142857, day_change: -5000, day_change_percent: -0.69 },
};

describe('portfolio rows', () => {
  it('colours P&L by sign (gain up/red, loss down/blue) on the terminal', () => {
    const view = holdingsView(overview);
    const row = view.rows[0]!;
    // 720,000 − 700,000 = +20,000; 20,000 / 700,000 = 2.857% → +2.86%
    expect(row.slice(6, 10).map((c) => [c.text, c.move ?? null])).toEqual([['720,000', null], ['+20,000', 'up'], ['+2.86%', 'up'], ['-0.69%', 'down']]);
    expect(view.rows[1]![0]!.text).toBe('TOTAL');
  });

  it('gives raw values for pipes', () => {
    expect(holdingTsv(overview.holdings[0]!)).toEqual(['h1', '005930', '삼성전자', 10, 70_000, 72_000, 720_000, 700_000, 20_000, 2.857142857, -0.69, 60]);
  });

  it('names every piped perf column in order', () => {
    const p = {
      total_value: 1, total_cost: 2, unrealized_pnl: 3, unrealized_pnl_percent: 4, realized_pnl: 5, total_return_percent: 6, day_change: 7, day_change_percent: 8,
      returns: { '1W': 9, '1M': 10, '3M': 11, '6M': 12, YTD: 13, '1Y': 14 }, volatility_percent: 15, max_drawdown_percent: 16, sharpe_ratio: 17, beta: 18,
      benchmark_return_percent: 19, excess_return_percent: 20,
    } as unknown as Performance;
    const fields = performanceRecord(p).fields;
    expect(fields.map(([k]) => k)).toEqual([...PERFORMANCE_COLUMNS]);
    expect(fields.map(([, v]) => v)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // A drawdown is a positive size of a fall: shown as a fall.
    expect(Object.fromEntries(performanceSummary({ ...p, benchmark: 'KOSPI' }))['max drawdown']).toEqual({ text: '16.00%', move: 'down' });
  });
});
