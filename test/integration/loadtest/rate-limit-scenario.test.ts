import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoadtest } from '../../../loadtest/runner.js';
import type { Report, ReportRow } from '../../../loadtest/types.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const RAISED = { 'POST /auth/register': 1e9, 'POST /auth/login': 1e9 };

const row = (report: Report, metric: string): ReportRow => {
  const found = report.rows.find((r) => r.metric === metric);
  if (!found) throw new Error(`no row ${metric}: ${JSON.stringify(report.scenarios)}`);
  return found;
};

describe('rate-limit scenario', () => {
  let on: TestDaemon;
  let off: TestDaemon;
  beforeAll(async () => {
    [on, off] = await Promise.all([
      startTestDaemon('loadtest-rl-on', { admin_email: ADMIN.email, admin_password: ADMIN.password, rate_limit: { anonymous_per_hour: 1e9, endpoints: RAISED } }),
      startTestDaemon('loadtest-rl-off', { admin_email: ADMIN.email, admin_password: ADMIN.password, rate_limit: { enabled: false } }),
    ]);
  });
  afterAll(() => Promise.all([on.close(), off.close()]));

  it('fails, saying why, against a daemon whose rate limiting is off', async () => {
    const report = await runLoadtest({ url: off.url, scenarios: ['rate-limit'], admin: ADMIN, rateLimit: { limit: 20, extra: 10 } });
    expect(row(report, 'admitted of parallel requests')).toMatchObject({ measured: null, pass: false, note: expect.stringMatching(/rate limiting is off/) });
    expect(report.pass).toBe(false);
  });

  it('admits exactly the custom limit out of a parallel burst and answers the rest 429 with Retry-After', async () => {
    // Given a fresh enterprise user with a custom limit of 20/h, who already made 2 requests (users/me at
    // registration, the probe): 18 remain; 18 + 10 parallel requests → 18 admitted, 10 rejected
    const report = await runLoadtest({ url: on.url, scenarios: ['rate-limit'], admin: ADMIN, rateLimit: { limit: 20, extra: 10 } });
    expect(row(report, 'X-RateLimit-Limit (custom limit set)')).toMatchObject({ measured: 20, pass: true });
    expect(report.scenarios[0]!.settings).toMatchObject({ remaining_before: 18, parallel_requests: 28 });
    expect(row(report, 'admitted (2xx)')).toMatchObject({ measured: 18, pass: true });
    expect(row(report, 'rejected (429)')).toMatchObject({ measured: 10, pass: true });
    expect(row(report, 'other answers')).toMatchObject({ measured: 0, pass: true });
    expect(row(report, '429s with Retry-After')).toMatchObject({ measured: 100, pass: true });
  });
});
