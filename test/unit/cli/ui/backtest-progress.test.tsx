import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { BacktestRun } from '../../../../cli/services/screening/backtest.js';
import { BacktestProgress } from '../../../../cli/ui/components/BacktestProgress.js';

const run = (patch: Partial<BacktestRun>): BacktestRun => ({
  id: '1a2b3c4d-0000-0000-0000-000000000000', status: 'running', phase: 'screening', done: 0, total: 26, error: null, result: null, request: {}, created_at: '', finished_at: null, ...patch,
});

describe('BacktestProgress', () => {
  let app: ReturnType<typeof render> | undefined;
  afterEach(() => app?.cleanup());

  it('says the run is reading the history from the first second, before its dates are known', () => {
    app = render(<BacktestProgress snapshot={{ run: run({ status: 'queued', phase: 'reading_history', total: 0 }), elapsedS: 1.2 }} barWidth={4} />);
    const [first, second] = app.lastFrame()!.split('\n');
    expect(first).toMatch(/^backtest 1a2b3c4d reading history\s+░░░░ 1 s$/);
    expect(second).toBe('the market history is read into memory: the first run after a start or a load takes a few seconds');
  });

  it('goes through building series to a bar of screened dates, in the order the run does', () => {
    app = render(<BacktestProgress snapshot={{ run: run({ phase: 'building_series' }), elapsedS: 6 }} barWidth={4} />);
    expect(app.lastFrame()).toMatch(/^backtest 1a2b3c4d building series\s+░░░░ 0\/26 rebalances 6 s\nthe indicator series the screen reads are built over the whole history, once per data version$/);
    app.rerender(<BacktestProgress snapshot={{ run: run({ phase: 'screening', done: 13 }), elapsedS: 9 }} barWidth={4} />);
    expect(app.lastFrame()).toMatch(/^backtest 1a2b3c4d screening\s+██░░ 13\/26 rebalances 9 s$/);
    app.rerender(<BacktestProgress snapshot={{ run: run({ status: 'completed', phase: null, done: 26 }), elapsedS: 14 }} barWidth={4} />);
    expect(app.lastFrame()).toMatch(/^backtest 1a2b3c4d done\s+████ 26\/26 rebalances 14 s$/);
  });

  it('shows a queued run as waiting for a worker, and a daemon without phases as screening', () => {
    app = render(<BacktestProgress snapshot={{ run: run({ status: 'queued', phase: 'queued' }), elapsedS: 0 }} barWidth={4} />);
    expect(app.lastFrame()).toContain('queued');
    expect(app.lastFrame()).toContain('waiting for a worker of any daemon');
    app.rerender(<BacktestProgress snapshot={{ run: run({ phase: undefined, done: 2 }), elapsedS: 0 }} barWidth={4} />);
    expect(app.lastFrame()).toMatch(/screening\s+░░░░ 2\/26 rebalances 0 s$/);
  });
});
