/**
 * `Idempotency-Key` on POST /admin/jobs, through the daemon's own route and Redis: the same key
 * and body answer the same job (never a second one), per user, for 24 h; the same key with
 * another body, or while the first request is still being answered, is a 409; a malformed key is
 * a 400; without a key every request enqueues its own job, as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdempotencyStore, IDEMPOTENCY_TTL_MS } from '../../../daemon/http/idempotency.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const COMPUTE = { type: 'compute-indicators' };
type Json = any;

describe('POST /admin/jobs with an Idempotency-Key', () => {
  let t: TestDaemon;
  let admin: string;
  const enqueue = (json: unknown, key?: string) =>
    t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json, headers: key === undefined ? {} : { 'Idempotency-Key': key } });
  const jobIds = async () => ((await (await t.request('/api/v1/admin/jobs?limit=200', { token: admin })).json()) as Json).data.map((j: Json) => j.id) as string[];

  beforeAll(async () => {
    // Given a daemon whose jobs stay queued (no worker), so every enqueued job stays listed
    t = await startTestDaemon('idem-jobs', { workers: 0, admin_email: ADMIN.email, admin_password: ADMIN.password });
    admin = ((await (await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN })).json()) as Json).access_token;
  }, 60_000);
  afterAll(() => t?.close());

  it('answers a repeated request with the same job, marked as replayed, and enqueues one', async () => {
    const before = (await jobIds()).length;
    const first = await enqueue(COMPUTE, 'upload-1');
    expect(first.status).toBe(202);
    const job = ((await first.json()) as Json).data;
    const again = await enqueue(COMPUTE, 'upload-1');
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(`/api/v1/admin/jobs/${job.id}`);
    expect(((await again.json()) as Json).data).toEqual(job);
    expect((await jobIds()).length).toBe(before + 1);
    // Kept for 24 h
    const pttl = await t.daemon.context().redis.commands.pttl((await t.daemon.context().redis.commands.keys(`${t.prefix}idem:admin-jobs:*`))[0]!);
    expect(pttl).toBeGreaterThan(IDEMPOTENCY_TTL_MS - 60_000);
    expect(pttl).toBeLessThanOrEqual(IDEMPOTENCY_TTL_MS);
  });

  it('enqueues one job for concurrent requests with one key; the others get that job or a 409 to retry', async () => {
    const before = (await jobIds()).length;
    const answers = await Promise.all(Array.from({ length: 6 }, () => enqueue(COMPUTE, 'burst-key')));
    const ok = answers.filter((r) => r.status === 202);
    const busy = answers.filter((r) => r.status === 409);
    expect(ok.length + busy.length).toBe(6);
    expect(new Set(await Promise.all(ok.map(async (r) => ((await r.json()) as Json).data.id))).size).toBe(1);
    for (const r of busy) {
      expect(r.headers.get('retry-after')).toBe('2');
      expect(((await r.json()) as Json).error.details.in_progress).toBe(true);
    }
    expect((await jobIds()).length).toBe(before + 1);
  });

  it('refuses the same key with a different body, and a malformed key, enqueueing nothing', async () => {
    await enqueue(COMPUTE, 'reused-key');
    const before = (await jobIds()).length;
    const other = await enqueue({ type: 'load-sample', seed: 1, stocks: 10, days: 30, replace: true }, 'reused-key');
    expect(other.status).toBe(409);
    expect(((await other.json()) as Json).error.details).toMatchObject({ 'Idempotency-Key': expect.stringContaining('another body'), in_progress: false });
    const long = await enqueue(COMPUTE, 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(((await long.json()) as Json).error.details).toHaveProperty('Idempotency-Key');
    const spaced = await enqueue(COMPUTE, 'has space');
    expect(spaced.status).toBe(400);
    expect((await jobIds()).length).toBe(before);
  });

  it('lets a request that failed be sent again with its key', async () => {
    // A load of a path outside the import roots is refused (400): the key is not kept
    const bad = { type: 'load-files', paths: ['/etc/passwd'] };
    expect((await enqueue(bad, 'failed-key')).status).toBe(400);
    expect((await enqueue(bad, 'failed-key')).status).toBe(400);
  });

  it('enqueues a job per request without a key, as before', async () => {
    const before = (await jobIds()).length;
    expect((await enqueue(COMPUTE)).status).toBe(202);
    expect((await enqueue(COMPUTE)).status).toBe(202);
    expect((await jobIds()).length).toBe(before + 2);
  });

  it('documents the header in the OpenAPI document', async () => {
    const doc = (await (await t.request('/openapi.json')).json()) as Json;
    const post = doc.paths['/api/v1/admin/jobs']?.post ?? doc.paths['/admin/jobs']?.post;
    expect(post.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'Idempotency-Key', required: false })]));
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['202', '400', '409', '503']));
  });

  it('never answers another admin\'s request with a job enqueued under the same key', async () => {
    // Given a second admin
    const other = await t.login();
    expect((await t.request(`/api/v1/admin/users/${other.id}`, { method: 'PATCH', token: admin, json: { role: 'admin' } })).status).toBe(200);
    const otherToken = (await t.login(other.email)).access_token;
    // When both send the same body with the same key
    const mine = ((await (await enqueue(COMPUTE, 'shared-key')).json()) as Json).data;
    const theirs = await t.request('/api/v1/admin/jobs', { method: 'POST', token: otherToken, json: COMPUTE, headers: { 'Idempotency-Key': 'shared-key' } });
    // Then each gets a job of their own
    expect(theirs.status).toBe(202);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(((await theirs.json()) as Json).data.id).not.toBe(mine.id);
  });

  it('keeps keys per user: one user\'s key never answers another\'s request', async () => {
    const { commands, factory } = t.daemon.context().redis;
    const store = createIdempotencyStore(commands, (...p) => factory.key(...p), 'scope-test');
    const a = await store.claim('user-a', 'same-key', { x: 1 });
    expect(a.kind).toBe('new');
    if (a.kind === 'new') await a.complete({ status: 202, data: { id: 'job-a' } });
    const b = await store.claim('user-b', 'same-key', { x: 1 });
    expect(b.kind).toBe('new');
    expect(await store.claim('user-a', 'same-key', { x: 1 })).toEqual({ kind: 'replay', answer: { status: 202, data: { id: 'job-a' } } });
  });
});
