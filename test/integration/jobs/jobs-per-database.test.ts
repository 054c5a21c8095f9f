/**
 * Each database's jobs are its own: daemons sharing a Redis (one key prefix) but not a database
 * never list, show or run each other's market-data jobs — `jobs list` after a fresh data
 * directory is empty — while daemons sharing the database share its jobs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type TempEnv } from '../cli/fake-io.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };

describe('market-data jobs per database', () => {
  let a: TestDaemon;
  let fresh: TestDaemon;
  let sameDb: TestDaemon;
  let e: TempEnv;
  const adminOf = { admin_email: ADMIN.email, admin_password: ADMIN.password };
  /** One CLI profile per daemon (each has its own accounts). */
  const profile = (t: TestDaemon): string => (t === a ? 'a' : t === fresh ? 'fresh' : 'same');
  const jobsList = async (t: TestDaemon): Promise<{ code: number; out: string }> => {
    const io = fakeIO();
    const code = await run(['--url', t.url, '--profile', profile(t), '--json', 'jobs', 'list'], io, e.env);
    return { code, out: io.out() };
  };

  beforeAll(async () => {
    a = await startTestDaemon('jobs-db-a', { workers: 1, ...adminOf });
    // A daemon on a fresh database, on the same Redis prefix (and with a worker of its own)
    fresh = await startTestDaemon('jobs-db-fresh', { workers: 1, redis_prefix: a.prefix, ...adminOf });
    // And one sharing A's database
    sameDb = await startTestDaemon('jobs-db-same', { workers: 0, redis_prefix: a.prefix, ...a.store, ...adminOf });
    e = await tempEnv();
    for (const t of [a, fresh, sameDb]) {
      const login = await run(['--url', t.url, '--profile', profile(t), 'login', '--email', ADMIN.email, '--password-stdin'], fakeIO({ stdin: ADMIN.password }), e.env);
      expect(login).toBe(0);
    }
  });
  afterAll(async () => {
    await sameDb?.daemon.close();
    await fresh?.close();
    await a?.close();
    await e?.cleanup();
  });

  it("lists, shows and runs only its own database's jobs", async () => {
    // Given a sample load on A
    const token = ((await (await a.request('/api/v1/auth/login', { method: 'POST', json: ADMIN })).json()) as { access_token: string }).access_token;
    const job = ((await (await a.request('/api/v1/admin/jobs', { method: 'POST', token, json: { type: 'load-sample', seed: 2, stocks: 10, days: 40 } })).json()) as any).data;
    await waitForJob(a.daemon, job.id);
    // Then A and the daemon sharing its database list it
    for (const t of [a, sameDb]) {
      const list = await jobsList(t);
      expect(list.code).toBe(0);
      expect(JSON.parse(list.out).data.map((j: { id: string }) => j.id)).toEqual([job.id]);
    }
    // And the daemon on a fresh database does not, nor shows it, and its worker loaded nothing
    const list = await jobsList(fresh);
    expect(list.code, list.out).toBe(0);
    expect(JSON.parse(list.out), list.out).toMatchObject({ data: [] });
    const freshToken = ((await (await fresh.request('/api/v1/auth/login', { method: 'POST', json: ADMIN })).json()) as { access_token: string }).access_token;
    expect((await fresh.request(`/api/v1/admin/jobs/${job.id}`, { token: freshToken })).status).toBe(404);
    expect(await fresh.daemon.context().store.stocks.count()).toBe(0);
    expect(await a.daemon.context().store.stocks.count()).toBe(10);
  });
});
