import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../loadtest/api.js';
import { alertTickRows, runAlertTickBench } from '../../../loadtest/bench/alert-ticks.js';
import { loadAlertStocks } from '../../../loadtest/bench/alerts.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };

describe('the alert bench through POST /admin/ticks', () => {
  let t: TestDaemon;
  let admin: string;
  beforeAll(async () => {
    t = await startTestDaemon('bench-alerts', { workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password, feed: 'ingest', market_clock: 'always-open' });
    admin = (await t.login(ADMIN.email, ADMIN.password)).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 9, stocks: 15, days: 120 } });
    await waitForJob(t.daemon, ((await job.json()) as { data: { id: string } }).data.id);
  }, 120_000);
  afterAll(() => t.close());

  it('ticks without alerts, creates the alert mix as an enterprise user, ticks again, and reports both runs', async () => {
    // Given every stock of the market (read from the daemon's database as the bench does)
    const stocks = await loadAlertStocks(t.store);
    expect(stocks).toHaveLength(15);
    // When 40 alerts are measured with 2 requests of 10 ticks in flight (more ticks in flight than
    // stocks: each request must still carry a stock's ticks in order, or volumes would go down)
    const result = await runAlertTickBench({
      api: createApiClient(t.url), adminToken: admin, codes: stocks.map((s) => s.code), alerts: 40, seconds: 0.5, batch: 10, inFlight: 2, signal: new AbortController().signal,
    });
    // Then every alert was created and every tick request accepted, in both runs
    expect(result).toMatchObject({ codes: 15, alerts_created: 40, alerts_failed: 0, batch: 10, in_flight: 2 });
    expect(result.without_alerts).toMatchObject({ failed: 0, first_failure: null });
    expect(result.with_alerts).toMatchObject({ failed: 0, first_failure: null });
    expect(result.without_alerts.requests).toBeGreaterThan(0);
    expect(result.with_alerts.latency_ms.count).toBe(result.with_alerts.requests);
    const rows = alertTickRows(result);
    expect(rows.map((r) => r.metric)).toEqual([
      'active alerts', 'alerts created/s (POST /alerts)', 'ticks/s without alerts', 'ticks/s with alerts', 'request p50 without alerts', 'request p50 with alerts',
      'request p99 without alerts', 'request p99 with alerts', 'added per tick p50', 'added per tick p99', 'firings',
    ]);
    expect(rows.find((r) => r.metric === 'active alerts')).toMatchObject({ measured: 40 });
    expect(typeof rows.find((r) => r.metric === 'firings')?.measured).toBe('number');
  }, 60_000);
});
