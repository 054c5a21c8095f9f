import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProgressSnapshot } from '../../../../cli/services/load/job-progress.js';
import { JobProgress } from '../../../../cli/ui/components/JobProgress.js';

const loading: ProgressSnapshot = {
  id: '12', state: 'active', rowsPerSecond: 45678, retryReason: null,
  progress: { phase: 'load', file: '/data/2026-03-20.csv', done: 3, total: 10, rows_ok: 1234567, rows_rejected: 12 },
};

describe('JobProgress', () => {
  let app: ReturnType<typeof render> | undefined;
  afterEach(() => app?.cleanup());

  it('shows the step, a bar filled done/total, the counts, the rate and the file', () => {
    app = render(<JobProgress snapshot={loading} barWidth={10} />);
    const [first, second] = app.lastFrame()!.split('\n');
    // 3/10 of 10 cells filled.
    expect(first).toContain('job 12 loading');
    expect(first).toContain('███░░░░░░░ 3/10 files');
    expect(first).toContain('/data/2026-03-20.csv');
    expect(second).toBe('1,234,567 rows ok · 12 rejected · 45,678 rows/s');
  });

  it('counts stocks while computing indicators and draws an empty bar before the total is known', () => {
    app = render(<JobProgress snapshot={{ ...loading, rowsPerSecond: null, progress: { phase: 'indicators', done: 30, total: 60, rows_ok: 0, rows_rejected: 0 } }} barWidth={4} />);
    expect(app.lastFrame()).toContain('indicators ██░░ 30/60 stocks');
    app.rerender(<JobProgress snapshot={{ ...loading, state: 'waiting', progress: null }} barWidth={4} />);
    expect(app.lastFrame()).toMatch(/job 12 waiting\s+░░░░$/);
  });

  it('fills the bar and drops the stale count once the job is done', () => {
    app = render(<JobProgress snapshot={{ ...loading, state: 'completed', progress: { phase: 'done', done: 60, total: 60, rows_ok: 100, rows_rejected: 0 } }} barWidth={4} />);
    expect(app.lastFrame()!.split('\n')[0]).toMatch(/^job 12 done\s+████$/);
  });

  it('says when BullMQ retries after a transient failure', () => {
    app = render(<JobProgress snapshot={{ ...loading, state: 'delayed', retryReason: 'Redis timeout' }} barWidth={4} />);
    expect(app.lastFrame()).toContain('retrying');
    expect(app.lastFrame()).toContain('retrying after: Redis timeout');
  });
});
