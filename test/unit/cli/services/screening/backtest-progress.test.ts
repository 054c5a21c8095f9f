/** The progress line of `stockscreen backtest`: what the run is doing before its first date, then the bar. */
import { describe, expect, it } from 'vitest';
import { progressText, type BacktestRun } from '../../../../../cli/services/screening/backtest.js';

const run = (patch: Partial<BacktestRun>): BacktestRun => ({
  id: '0123456789abcdef', status: 'running', phase: 'screening', done: 0, total: 10, error: null, result: null, request: {}, created_at: '', finished_at: null, ...patch,
});

describe('backtest progress line', () => {
  it('says the run is reading the history while its dates are not known yet', () => {
    expect(progressText(run({ status: 'queued', phase: 'reading_history', total: 0 }))).toBe(
      'backtest 01234567 reading the market history (the first run after a start or a load takes a few seconds)…',
    );
  });

  it('says which phase a running run is in before its first date, with its rebalance count', () => {
    expect(progressText(run({ phase: 'reading_history' }))).toContain('reading the market history (the first run after a start or a load takes a few seconds) (10 rebalances)…');
    expect(progressText(run({ phase: 'building_series' }))).toBe('backtest 01234567 building the indicator series the screen reads (10 rebalances)…');
  });

  it('shows the queue, then the bar while screening, and no phase once ended', () => {
    expect(progressText(run({ status: 'queued', phase: 'queued' }))).toBe('backtest 01234567 queued, waiting for a worker (10 rebalances)');
    expect(progressText(run({ done: 5 }))).toBe('backtest 01234567 [############------------] 5/10 rebalances');
    expect(progressText(run({ status: 'completed', phase: null, done: 10 }))).toBe('backtest 01234567 [########################] 10/10 rebalances');
    // A daemon older than the phase field: the bar as before
    expect(progressText(run({ phase: undefined, done: 5 }))).toBe('backtest 01234567 [############------------] 5/10 rebalances');
  });
});
