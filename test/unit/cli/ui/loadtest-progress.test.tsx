import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../../../loadtest/index.js';
import { EMPTY_LOADTEST_VIEW, progressLine, reduceLoadtestView, type LoadtestView } from '../../../../cli/services/loadtest/loadtest-progress.js';
import { LoadtestProgress } from '../../../../cli/ui/components/LoadtestProgress.js';

const fold = (events: ProgressEvent[]): LoadtestView => events.reduce(reduceLoadtestView, EMPTY_LOADTEST_VIEW);

const REST_RUN: ProgressEvent[] = [
  { type: 'run-start', scenarios: ['screen-simple', 'screen-complex'] },
  { type: 'scenario-start', scenario: 'screen-simple', index: 0, total: 2 },
  { type: 'phase', scenario: 'screen-simple', phase: 'warmup' },
  { type: 'tick', scenario: 'screen-simple', elapsed_s: 1, planned_s: 2, requests_per_s: 800, connections: 10, failed: 0 },
  { type: 'phase', scenario: 'screen-simple', phase: 'measure' },
  { type: 'tick', scenario: 'screen-simple', elapsed_s: 3, planned_s: 10, requests_per_s: 1234, connections: 10, failed: 2 },
];

describe('the loadtest progress view', () => {
  let app: ReturnType<typeof render> | undefined;
  afterEach(() => app?.cleanup());

  it('shows the scenario, its phase, a bar of elapsed over planned seconds and the last second\'s figures', () => {
    // Given a REST scenario 3 s into a 10 s measurement
    app = render(<LoadtestProgress view={fold(REST_RUN)} barWidth={10} />);
    // Then the header, the bar (3/10 of 10 cells) and the figures show
    expect(app.lastFrame()!.split('\n')).toEqual([
      'loadtest 1/2 screen-simple measure',
      '███░░░░░░░ 3.0 / 10 s',
      '1,234 req/s · 10 connections · 2 failed',
    ]);
  });

  it('calls the warm-up a warm-up, and restarts the figures when the phase changes', () => {
    const warm = fold(REST_RUN.slice(0, 4));
    app = render(<LoadtestProgress view={warm} barWidth={4} />);
    expect(app.lastFrame()).toContain('loadtest 1/2 screen-simple warm-up');
    expect(app.lastFrame()).toContain('██░░ 1.0 / 2 s');
    // When the measurement starts, nothing from the warm-up is shown as its figures
    app.rerender(<LoadtestProgress view={fold(REST_RUN.slice(0, 5))} barWidth={4} />);
    expect(app.lastFrame()).toContain('screen-simple measure');
    expect(app.lastFrame()).not.toContain('800 req/s');
    expect(app.lastFrame()).toContain('10 connections');
  });

  it('shows msg/s and connections of a WebSocket scenario, and an empty bar while clients connect', () => {
    const connecting = fold([
      { type: 'run-start', scenarios: ['ws-fanout'] },
      { type: 'scenario-start', scenario: 'ws-fanout', index: 0, total: 1 },
      { type: 'phase', scenario: 'ws-fanout', phase: 'connect', detail: '2000 clients' },
      { type: 'tick', scenario: 'ws-fanout', elapsed_s: 0, planned_s: 0, connections: 1500, failed: 0 },
    ]);
    app = render(<LoadtestProgress view={connecting} barWidth={4} />);
    expect(app.lastFrame()!.split('\n')).toEqual(['loadtest 1/1 ws-fanout connect (2000 clients)', '░░░░', '1,500 connections · 0 failed']);
    const measuring = reduceLoadtestView(reduceLoadtestView(connecting, { type: 'phase', scenario: 'ws-fanout', phase: 'measure' }), {
      type: 'tick', scenario: 'ws-fanout', elapsed_s: 2, planned_s: 4, connections: 1500, messages_per_s: 98765,
    });
    app.rerender(<LoadtestProgress view={measuring} barWidth={4} />);
    expect(app.lastFrame()).toContain('██░░ 2.0 / 4 s');
    expect(app.lastFrame()).toContain('98,765 msg/s · 1,500 connections');
  });

  it('lists finished scenarios with their status and message above the running one', () => {
    const view = fold([
      ...REST_RUN,
      { type: 'scenario-end', scenario: 'screen-simple', status: 'error', rows: [], message: 'rate-limited' },
      { type: 'scenario-start', scenario: 'screen-complex', index: 1, total: 2 },
    ]);
    app = render(<LoadtestProgress view={view} barWidth={4} />);
    const lines = app.lastFrame()!.split('\n');
    expect(lines[0]).toBe('✗ screen-simple error — rate-limited');
    expect(lines[1]).toBe('loadtest 2/2 screen-complex setting up');
    // When the run ends only the finished lines stay
    const done = fold([...REST_RUN, { type: 'scenario-end', scenario: 'screen-simple', status: 'pass', rows: [] }, { type: 'run-end', pass: true, aborted: false }]);
    app.rerender(<LoadtestProgress view={done} barWidth={4} />);
    expect(app.lastFrame()).toBe('✓ screen-simple pass');
  });

  it('ignores events of a scenario that is not the current one', () => {
    const view = fold(REST_RUN);
    expect(reduceLoadtestView(view, { type: 'tick', scenario: 'other', elapsed_s: 9, planned_s: 9, requests_per_s: 1 })).toBe(view);
  });
});

describe('plain progress lines (piped output)', () => {
  it('writes one line per scenario start, phase and end, and none per tick', () => {
    expect(REST_RUN.map(progressLine).filter(Boolean)).toEqual(['▶ screen-simple (1/2)', '  screen-simple: warm-up', '  screen-simple: measure']);
    expect(progressLine({ type: 'scenario-end', scenario: 'ws-fanout', status: 'fail', rows: [] })).toBe('■ ws-fanout: fail');
    expect(progressLine({ type: 'phase', scenario: 'ws-fanout', phase: 'connect', detail: '10 clients' })).toBe('  ws-fanout: connect (10 clients)');
  });
});
