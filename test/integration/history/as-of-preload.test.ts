/**
 * `as_of_preload`: a daemon that has it reads the market history and builds the common
 * indicator series in the background after start and after each new data version, before any
 * as-of request; one without it reads nothing until the first as-of request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

/** Poll `check` until it holds (a background build in the daemon; bounded). */
async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each([true, false])('as_of_preload %s', (preload) => {
  let t: TestDaemon;
  const stats = () => t.daemon.context().screening.asOf.stats();

  beforeAll(async () => {
    t = await startTestDaemon(`asof-preload-${preload}`, { workers: 1, as_of_preload: preload, admin_email: 'ops@example.com', admin_password: 'ops-password-1' });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    const admin = ((await login.json()) as any).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 7, stocks: 30, days: 120 } });
    await waitForJob(t.daemon, ((await job.json()) as any).data.id);
  }, 120_000);
  afterAll(async () => {
    if (preload) await t.daemon.context().screening.asOf.warmed();
    await t.close();
  });

  it(preload ? 'holds the new data version\'s history and series before any as-of request' : 'reads no history until an as-of request', async () => {
    const version = t.daemon.context().screening.snapshot.current().version;
    if (preload) {
      await until('the new version\'s history and series', () => stats().version === version && (stats().series?.fields ?? 0) > 0);
    } else {
      expect(stats().version).toBeUndefined();
      expect(stats().series).toBeUndefined();
    }
  });
});
