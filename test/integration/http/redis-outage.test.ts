/**
 * The daemon with Redis unreachable or hung: it starts (job workers on), serves, answers
 * 503 — never a masked 500 — where Redis is needed, fails open where it is only a guard
 * (rate limits, revocation checks, screen cache), and closes cleanly.
 */
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitReady } from '../../../daemon/infra/redis.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { startTestDaemon, testRedisUrl, type TestDaemon } from '../../helpers/test-daemon.js';

describe('daemon with Redis unreachable and a job worker on', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    // Given nothing listens at the Redis URL, and one in-process job worker is asked for
    // (the helper turns workers off unless told otherwise)
    const port = await closedPort();
    t = await startTestDaemon('redis-unreachable', { redis_url: `redis://127.0.0.1:${port}`, workers: 1 });
  });
  afterAll(() => t?.close());

  it('starts and serves, reporting Redis as disconnected', async () => {
    // Then start() returned (the worker did not hold it up) and the daemon answers
    expect((await t.request('/health')).status).toBe(200);
    const redis = await t.request('/health/redis');
    expect(redis.status).toBe(503);
    expect(await redis.json()).toMatchObject({ status: 'unhealthy', redis: 'disconnected' });
    expect((await t.request('/health/db')).status).toBe(200);
  });

  it('accepts access tokens while revocation cannot be checked (fails open), and answers logout with 503 + Retry-After', async () => {
    // Given a signed-in user
    const user = await t.login();
    // When the revocation list cannot be read, the token is accepted
    expect((await t.request('/api/v1/users/me', { token: user.access_token })).status).toBe(200);
    // When they log out, the access token cannot be recorded as revoked
    const out = await t.request('/api/v1/auth/logout', { method: 'POST', json: { refresh_token: user.refresh_token }, token: user.access_token });
    // Then the answer says "unavailable, retry", not a masked 500
    expect(out.status).toBe(503);
    expect(out.headers.get('retry-after')).toBe('5');
    const body = (await out.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.error.message).toMatch(/redis/i);
    // And the refresh family, kept in the database, was revoked all the same
    expect((await t.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: user.refresh_token } })).status).toBe(401);
  });

  it('closes cleanly while the worker still waits for Redis', async () => {
    await t.daemon.close();
    await expect(t.request('/health')).rejects.toThrow();
  });
});

describe('daemon with a hung Redis (accepts connections, never answers)', () => {
  let t: TestDaemon;
  let hung: { port: number; close(): void };
  beforeAll(async () => {
    hung = await silentServer();
    t = await startTestDaemon('redis-hung', {
      redis_url: `redis://127.0.0.1:${hung.port}`,
      redis_command_timeout_ms: 200,
      rate_limit: { enabled: true, timeout_ms: 50 },
    });
  });
  afterAll(async () => {
    // Not t.close(): its key clean-up would wait on the hung server (nothing was written there).
    await t?.daemon.close();
    hung?.close();
    if (t) await rm(t.dataDir, { recursive: true, force: true });
  });

  const failedOpen = async () =>
    (await t.daemon.context().core.metrics.rateLimitDecisions.get()).values.find((v) => v.labels.decision === 'failed_open')?.value ?? 0;

  it('answers a signed-in GET and a signed-in screen instead of hanging, with rate limits failing open', async () => {
    // Given a signed-in user (register and login pass the limiter by failing open)
    const user = await t.login();
    const before = await failedOpen();
    // When they call an authenticated endpoint (revocation check on the hung connection)
    const me = await t.request('/api/v1/users/me', { token: user.access_token });
    // And run a screen (result-cache read and write on the hung connection)
    const screen = await t.request('/api/v1/screen', { method: 'POST', json: { min_roe: 1 }, token: user.access_token });
    // Then both answer
    expect(me.status).toBe(200);
    expect(screen.status).toBe(200);
    expect(screen.headers.get('x-cache')).toBe('MISS');
    // And the limiter let them through without a count
    expect(me.headers.get('x-ratelimit-remaining')).toBeNull();
    expect(await failedOpen()).toBe(before + 2);
  });
});

describe('daemon started while Redis is down, once Redis is back', () => {
  let t: TestDaemon;
  let proxy: TcpProxy;
  beforeAll(async () => {
    // Given the daemon's only way to Redis is cut when it starts, with a job worker on
    const { hostname, port } = new URL(testRedisUrl());
    proxy = await startTcpProxy({ host: hostname, port: Number(port) });
    await proxy.cut();
    t = await startTestDaemon('redis-late', { redis_url: `redis://127.0.0.1:${proxy.port}`, workers: 1 });
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
  });

  it('runs jobs: the worker connects when Redis becomes reachable', async () => {
    expect((await t.request('/health/redis')).status).toBe(503);
    // When the link comes back
    await proxy.restore();
    const { jobs: { market: jobs }, redis: { commands } } = t.daemon.context();
    expect(await waitReady(commands, 15_000)).toBe(true);
    await jobs.queue.waitUntilReady();
    // Then a job is taken by this daemon's worker and completes
    const job = await jobs.enqueue({ type: 'compute-indicators' }, null);
    await waitForJob(t.daemon, job.id, 30_000);
    expect((await jobs.get(job.id)).state).toBe('completed');
    expect((await t.request('/health/redis')).status).toBe(200);
  });
});

async function closedPort(): Promise<number> {
  const srv = createTcpServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** A TCP server that accepts connections and never replies (a hung Redis). */
async function silentServer(): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  const srv = createTcpServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  return {
    port: (srv.address() as AddressInfo).port,
    close() {
      for (const s of sockets) s.destroy();
      srv.close();
    },
  };
}
