import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEventHub } from '../../../../cli/services/output/event-hub.js';
import type { StatsEvent } from '../../../../cli/services/realtime/ws-stats.js';
import { WsStatsDashboard } from '../../../../cli/ui/components/WsStatsDashboard.js';
import { renderPerformance, renderPortfolio } from '../../../../cli/ui/market-render.js';
import type { Performance } from '../../../../daemon/contract/portfolio.js';
import type { WsStats } from '../../../../daemon/contract/ws.js';

const stats = (connections: number, mps: number): WsStats => ({
  active_connections: connections, total_subscriptions: connections * 2, subscriptions_by_type: { stock: connections * 2, market: 0, sector: 0 }, messages_sent: 5000,
  saved_sessions: 1, batching_enabled: true, batch_interval_ms: 30, queued_messages: 0, rate_limiting_enabled: true, rate_limit: 100, messages_per_second: mps,
  memory: { rss: 64 * 1024 * 1024, heap_used: 32 * 1024 * 1024, heap_total: 48 * 1024 * 1024, external: 0, array_buffers: 0 }, frames_sent: 5000, topics: 0, compression: null, send_latency_ms: { p50: 0.5, p95: 1, p99: 2, max: 3, samples: 9 }, bytes_per_connection: 4096,
});

describe('WsStatsDashboard', () => {
  let app: ReturnType<typeof render> | undefined;
  afterEach(() => app?.cleanup());

  it('shows the latest figures with their trends', async () => {
    const hub = createEventHub<StatsEvent>();
    app = render(<WsStatsDashboard subscribe={hub.subscribe} url="http://d" intervalLabel="1s" color={false} interactive={false} onExit={() => undefined} trendWidth={8} />);
    expect(app.lastFrame()).toContain('waiting for the first sample');
    // connections 1, 2, 3 → ▁ ▅ █ (0, 0.5·7 = 3.5 → 4, 7)
    [1, 2, 3].forEach((n, i) => hub.emit({ type: 'sample', stats: stats(n, n * 10), at: new Date(Date.UTC(2025, 0, 1, 0, 0, i)) }));
    await vi.waitFor(() => expect(app!.lastFrame()).toContain('updated 00:00:02Z'));
    const frame = app.lastFrame()!;
    expect(frame).toMatch(/connections\s+3\s+▁▅█/);
    expect(frame).toMatch(/messages\/s\s+30\s+▁▅█/);
    expect(frame).toMatch(/rss\s+64\.0 MiB\s+▄▄▄/);
    expect(frame).toContain('send p50/p99 0.5/2 ms');
    hub.emit({ type: 'error', message: 'cannot reach stockscreend' });
    await vi.waitFor(() => expect(app!.lastFrame()).toContain('last poll failed: cannot reach stockscreend'));
  });
});

describe('portfolio views', () => {
  it('renders holdings with a totals row, without colour when it is off', () => {
    const text = renderPortfolio(
      {
        holdings: [{ id: 'h1', code: '005930', name: 'Samsung', market: 'KOSPI', sector: 'IT', quantity: 10, average_price: 70_000, current_price: 72_000, price_source: 'close', price_as_of: null, market_value: 720_000, cost: 700_000, unrealized_pnl: 20_000, unrealized_pnl_percent: 2.857, day_change: 0, day_change_percent: 0, weight: 100, market_cap: null, acquired_at: '2025-01-02', note: null }],
        totals: { holdings: 1, market_value: 720_000, cost: 700_000, unrealized_pnl: 20_000, unrealized_pnl_percent: 2.857, day_change: 0, day_change_percent: 0 },
      },
      { color: false, columns: 160 },
    );
    expect(text).toMatch(/h1\s+005930\s+Samsung\s+10\s+70,000\s+72,000 \(close\)\s+720,000\s+\+20,000\s+\+2\.86%\s+0\.00%\s+100\.0%/);
    expect(text).toMatch(/TOTAL\s+1 holding\(s\)\s+720,000\s+\+20,000/);
    expect(text).not.toMatch(/\u001b\[/);
  });

  it('renders performance with the value chart', () => {
    const series = [100, 110, 105, 120].map((value, i) => ({ date: `2025-01-0${i + 1}`, value, return_index: value }));
    const p = {
      as_of: '2025-01-04', history_start: '2025-01-01', window: { from: '2025-01-01', to: '2025-01-04', days: 4 },
      total_value: 120, total_cost: 100, unrealized_pnl: 20, unrealized_pnl_percent: 20, realized_pnl: 0, total_return_percent: 20, day_change: 15, day_change_percent: 14.29,
      returns: { '1W': 20, '1M': 20, '3M': 20, '6M': 20, YTD: 20, '1Y': 20 }, volatility_percent: null, max_drawdown_percent: 4.55, sharpe_ratio: null, beta: null,
      benchmark: 'KOSPI', benchmark_return_percent: null, excess_return_percent: null, risk_free_rate: 0.03, unavailable: {},
      allocation: { by_stock: [], by_sector: [{ key: 'IT', value: 120, weight: 100, holdings: 1 }], by_market: [], by_market_cap: [] },
      best: [{ id: 'h1', code: '005930', name: 'Samsung', unrealized_pnl: 20, unrealized_pnl_percent: 20 }], worst: [], series,
    } as Performance;
    const text = renderPerformance(p, { color: false, columns: 100 });
    expect(text).toMatch(/unrealised P&L\s+\+20 \(\+20\.00%\)/);
    expect(text).toMatch(/max drawdown\s+4\.55%/);
    expect(text).toMatch(/1W\s+1M\s+3M\s+6M\s+YTD\s+1Y/);
    // The chart: y labels 120 (top) and 100 (bottom), braille rows, the first and last date under it.
    expect(text).toMatch(/120 ┤[\u2800-\u28ff]+/);
    expect(text).toMatch(/100 ┤[\u2800-\u28ff]+/);
    expect(text).toMatch(/2025-01-01\s+2025-01-04/);
    expect(text).toMatch(/IT\s+100\.0%/);
  });

  it('shows "—" with the reason for figures the history cannot define, and BEST/WORST by rank, not beside the sectors', () => {
    // Given a holding bought today: one day of history, no statistics
    const p = {
      as_of: '2025-01-03', history_start: '2025-01-03', window: { from: '2025-01-03', to: '2025-01-03', days: 0 },
      total_value: 120, total_cost: 100, unrealized_pnl: 20, unrealized_pnl_percent: 20, realized_pnl: 0, total_return_percent: 20, day_change: 3, day_change_percent: 2.5,
      returns: { '1W': null, '1M': null, '3M': null, '6M': null, YTD: null, '1Y': null }, volatility_percent: null, max_drawdown_percent: null, sharpe_ratio: null, beta: null,
      benchmark: 'KOSPI', benchmark_return_percent: 0.5, excess_return_percent: null, risk_free_rate: 0.03,
      unavailable: { returns: 'needs 2 trading days of history; has 1', volatility_percent: 'needs 20 daily returns; has 0', max_drawdown_percent: 'needs 2 trading days of history; has 1', sharpe_ratio: 'needs 20 daily returns; has 0', beta: 'needs 20 daily returns with KOSPI closes; has 0', excess_return_percent: 'needs 2 trading days of history; has 1' },
      allocation: { by_stock: [], by_sector: [{ key: '반도체', value: 60, weight: 50, holdings: 1 }, { key: '은행', value: 60, weight: 50, holdings: 1 }], by_market: [], by_market_cap: [] },
      best: [{ id: 'h1', code: '005930', name: 'Samsung', unrealized_pnl: 20, unrealized_pnl_percent: 20 }], worst: [{ id: 'h2', code: '105560', name: 'KB', unrealized_pnl: -1, unrealized_pnl_percent: -1 }], series: [],
    } as Performance;
    // When rendered for a terminal
    const text = renderPerformance(p, { color: false, columns: 120 });
    // Then no 0.00 stands in for a missing figure: "—" and why
    expect(text).toMatch(/volatility \(ann\.\)\s+— needs 20 daily returns; has 0/);
    expect(text).toMatch(/Sharpe ratio\s+— needs 20 daily returns; has 0/);
    expect(text).toMatch(/beta vs KOSPI\s+— needs 20 daily returns with KOSPI closes; has 0/);
    expect(text).toMatch(/max drawdown\s+— needs 2 trading days of history; has 1/);
    expect(text).toMatch(/—\s+—\s+—\s+—\s+—\s+—/);
    expect(text).toContain('returns: needs 2 trading days of history; has 1');
    expect(text).not.toMatch(/(^|[^\d])0\.00%/m);
    // And the sector rows stand alone; best and worst share rank rows
    expect(text).toMatch(/^\s*반도체\s+50\.0%\s+60\s*$/m);
    expect(text).toMatch(/^\s*#\s+BEST\s+P&L %\s+WORST\s+P&L %\s*$/m);
    expect(text).toMatch(/^\s*1\s+005930 Samsung\s+\+20\.00%\s+105560 KB\s+-1\.00%\s*$/m);
  });
});
