/**
 * A daemon whose PostgreSQL becomes unreachable (its link through a TCP proxy is cut),
 * then reachable again: what keeps working, what answers 503, and the recovery.
 * PostgreSQL pass only (sqlite has no link to cut).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { waitForJob } from '../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { freshStoreSettings } from '../helpers/test-store.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };

describe('a daemon whose PostgreSQL goes away and comes back', () => {
  let proxy: TcpProxy;
  let t: TestDaemon;
  let user: string;
  let admin: string;

  beforeAll(async () => {
    const store = await freshStoreSettings('outage');
    const url = new URL(store.database_url!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    t = await startTestDaemon('outage', { ...store, database_url: url.toString(), workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password });
    admin = ((await (await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN })).json()) as { data: { access_token: string } }).data.access_token;
    const job = (await (await t.request('/api/v1/admin/jobs', { method: 'POST', json: { type: 'load-sample', stocks: 10, days: 40 }, token: admin })).json()) as { data: { id: string } };
    await waitForJob(t.daemon, job.data.id);
    user = (await t.login()).access_token;
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
  });

  it('keeps screening from memory, answers 503 with Retry-After where the database is needed, and recovers by itself', async () => {
    // Given the link to PostgreSQL is cut
    await proxy.cut();
    // Then health says so
    expect((await t.request('/health/db')).status).toBe(503);
    // And screening still answers for a logged-in user (token tier; the snapshot is in memory)
    const screen = await t.request('/api/v1/screen', { method: 'POST', json: { filters: { market: 'ALL' }, limit: 5 }, token: user });
    expect(screen.status).toBe(200);
    expect(((await screen.json()) as { data: unknown[] }).data).toHaveLength(5);
    // And what needs the database says "unavailable, retry", never a 500
    const preset = await t.request('/api/v1/screen/presets', { method: 'POST', json: { name: 'p', query: { filters: {} } }, token: user });
    expect(preset.status).toBe(503);
    expect(preset.headers.get('retry-after')).toBe('5');
    expect(((await preset.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
    // And an admin endpoint cannot confirm the role: 503, not 403
    expect((await t.request('/api/v1/admin/users', { token: admin })).status).toBe(503);

    // When the link is back, the pool reconnects on next use
    await proxy.restore();
    expect((await t.request('/health/db')).status).toBe(200);
    expect((await t.request('/api/v1/screen/presets', { method: 'POST', json: { name: 'p', query: { filters: {} } }, token: user })).status).toBe(201);
    expect((await t.request('/api/v1/admin/users', { token: admin })).status).toBe(200);
  });
});
