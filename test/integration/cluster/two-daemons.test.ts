/**
 * Two daemons sharing one Redis prefix and one data dir (one sqlite file): state that
 * must be shared is, and a recomputation on one refreshes the other's screening snapshot.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

describe('two daemons on one Redis and one database', () => {
  let a: TestDaemon;
  let b: TestDaemon;
  beforeAll(async () => {
    a = await startTestDaemon('cluster', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1' });
    b = await startTestDaemon('cluster-b', { workers: 0, redis_prefix: a.prefix, ...a.store });
  });
  afterAll(async () => {
    await b?.daemon.close();
    await a?.close();
  });

  it('accepts a token issued by the other daemon, and logout on one revokes it on both', async () => {
    const { access_token } = await a.login();
    expect((await b.request('/api/v1/users/me', { token: access_token })).status).toBe(200);
    await b.request('/api/v1/auth/logout', { method: 'POST', json: {}, token: access_token });
    expect((await a.request('/api/v1/users/me', { token: access_token })).status).toBe(401);
  });

  it('refreshes the other daemon\'s screening snapshot after indicators are recomputed', async () => {
    const login = await a.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    const admin = ((await login.json()) as any).access_token;
    const job = await a.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 9, stocks: 25, days: 40 } });
    const result: any = await waitForJob(a.daemon, ((await job.json()) as any).data.id);
    // B hears about the new version over Redis pub/sub and rebuilds its own snapshot.
    await vi.waitFor(() => expect(b.daemon.context().screening.snapshot.current().version).toBe(result.indicators.version), { timeout: 10_000, interval: 20 });
    const { access_token } = await b.login();
    const res = (await (await b.request('/api/v1/screen', { method: 'POST', json: {}, token: access_token })).json()) as any;
    expect(res.meta.total).toBe(25);
  });
});
