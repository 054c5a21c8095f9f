import { describe, expect, it } from 'vitest';
import { barCells, createLineSink, createRateMeter, createSnapshotter, phaseLabel, progressLine, type ProgressSnapshot } from '../../../../../cli/services/load/job-progress.js';
import type { JobView } from '../../../../../daemon/contract/jobs.js';

function view(patch: Partial<JobView>): JobView {
  return {
    id: '7', type: 'load-files', state: 'active', data: { type: 'load-files', paths: ['/d'], compute: true, replace_sample: false }, progress: null, result: null,
    failed_reason: null, attempts: 0, created_at: '2026-03-20T00:00:00.000Z', started_at: null, finished_at: null, requested_by: null, ...patch,
  };
}

describe('progress bar geometry', () => {
  it('fills done/total of the width, rounding down, clamped', () => {
    expect(barCells(3, 10, 30)).toEqual({ filled: 9, empty: 21 }); // 3/10 × 30
    expect(barCells(1, 3, 10)).toEqual({ filled: 3, empty: 7 }); // 3.33 → 3
    expect(barCells(12, 10, 10)).toEqual({ filled: 10, empty: 0 });
    expect(barCells(0, 0, 10)).toEqual({ filled: 0, empty: 10 }); // unknown total
  });
});

describe('rows/s', () => {
  it('is rows since the first sample over the time since, once 250 ms have passed', () => {
    let t = 0;
    const meter = createRateMeter(() => t);
    expect(meter.sample(1_000)).toBeNull();
    t = 100;
    expect(meter.sample(1_500)).toBeNull();
    t = 2_000;
    expect(meter.sample(11_000)).toBe(5_000); // (11,000 − 1,000) rows / 2 s
  });

  it('is measured only while loading, and kept through later phases', () => {
    let t = 0;
    const snap = createSnapshotter(() => t);
    const load = (rows: number) => view({ progress: { phase: 'load', done: 0, total: 1, rows_ok: rows, rows_rejected: 0 } });
    expect(snap(load(0)).rowsPerSecond).toBeNull();
    t = 500;
    expect(snap(load(1_000)).rowsPerSecond).toBe(2_000); // 1,000 rows / 0.5 s
    t = 10_000;
    expect(snap(view({ progress: { phase: 'indicators', done: 5, total: 60, rows_ok: 1_000, rows_rejected: 0 } })).rowsPerSecond).toBe(2_000);
  });
});

describe('progress text', () => {
  const snapshot: ProgressSnapshot = {
    id: '7', state: 'active', rowsPerSecond: 2000.4, retryReason: null,
    progress: { phase: 'load', file: '/data/2026-03-20.csv', done: 3, total: 10, rows_ok: 12345, rows_rejected: 5 },
  };

  it('names the step from the queue state, then the phase', () => {
    expect(phaseLabel('waiting', null)).toBe('waiting');
    expect(phaseLabel('delayed', null)).toBe('retrying');
    expect(phaseLabel('active', { phase: 'indicators', done: 0, total: 0, rows_ok: 0, rows_rejected: 0 })).toBe('indicators');
    expect(phaseLabel('failed', { phase: 'load', done: 0, total: 0, rows_ok: 0, rows_rejected: 0 })).toBe('failed');
  });

  it('prints one line with counts, rate and file', () => {
    expect(progressLine(snapshot)).toBe('job 7 loading 3/10 files · 12,345 rows ok · 5 rejected · 2,000 rows/s · /data/2026-03-20.csv');
    expect(progressLine({ ...snapshot, progress: { phase: 'indicators', done: 20, total: 60, rows_ok: 0, rows_rejected: 0 } })).toBe('job 7 indicators 20/60 stocks');
    // The index phase counts nothing: the load's 10/10 is not repeated.
    expect(progressLine({ ...snapshot, progress: { phase: 'index', done: 10, total: 10, rows_ok: 0, rows_rejected: 0 } })).toBe('job 7 index');
  });

  it('writes a line only when something visible changed', () => {
    let text = '';
    const sink = createLineSink({ write: (s: string) => (text += s) });
    sink.update(snapshot);
    sink.update({ ...snapshot, rowsPerSecond: 9 }); // the rate alone is not a change
    sink.update({ ...snapshot, progress: { ...snapshot.progress!, done: 4 } });
    expect(text.trimEnd().split('\n')).toHaveLength(2);
    expect(text).toContain('4/10 files');
  });
});
