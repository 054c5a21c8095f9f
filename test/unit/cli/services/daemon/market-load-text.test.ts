import { describe, expect, it } from 'vitest';
import { marketLoadText } from '../../../../../cli/services/daemon/daemon-health.js';

describe('the market load line of daemon start and status', () => {
  it('says nothing without a load', () => {
    expect(marketLoadText(null)).toBeNull();
  });

  it('shows a sample load with its rows, and that the daemon answers meanwhile', () => {
    expect(marketLoadText({ type: 'load-sample', phase: 'load', done: 0, total: 1, rows_ok: 1234567 }))
      .toBe('loading the sample market: 1,234,567 rows so far (the market shown is the previous one until it completes; other requests are answered meanwhile)');
  });

  it('shows the file of a file load, the stocks of the indicator phase, and a queued load', () => {
    expect(marketLoadText({ type: 'load-files', phase: 'load', done: 2, total: 4, rows_ok: 5400 })).toMatch(/^loading market files: 5,400 rows so far \(file 3 of 4\)/);
    expect(marketLoadText({ type: 'load-sample', phase: 'indicators', done: 1200, total: 2769, rows_ok: 0 })).toMatch(/^computing indicators: 1,200\/2,769 stocks/);
    expect(marketLoadText({ type: 'load-sample', phase: 'queued', done: 0, total: 0, rows_ok: 0 })).toMatch(/^loading the sample market: queued/);
  });
});
